"""The deal number is called a deal (not a seed) in the config, the database and the report;
configs and databases written with the old names still work."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chaodipi.arena.errors import ConfigError
from chaodipi.arena.tournament.config import ConfigDeprecation, parse_config
from chaodipi.arena.tournament.results import GameKey, GameRow, ResultsDB

BOTS = {"a": {"command": "x"}, "b": {"command": "y"}}


def test_the_old_key_names_are_read_as_the_new_ones_with_a_warning() -> None:
    with pytest.warns(ConfigDeprecation) as caught:
        config = parse_config({"seeds": 3, "seed_base": 7, "bots": BOTS}, Path("."))
    assert (config.deals, config.first_deal) == (3, 7)
    assert [str(w.message) for w in caught] == [
        "config key 'seeds' is now 'deals': it is read as deals (rename it)",
        "config key 'seed_base' is now 'first_deal': it is read as first_deal (rename it)",
    ]
    with pytest.raises(ConfigError, match="seeds: is the old name of deals; give only deals"):
        parse_config({"seeds": 3, "deals": 3, "bots": BOTS}, Path("."))


def test_the_fingerprint_keeps_the_names_an_old_database_stored() -> None:
    """A database claimed before the rename holds a fingerprint of seeds/seed_base: the same
    tournament written with the new names must still be resumed."""
    new = parse_config({"deals": 3, "first_deal": 7, "bots": BOTS}, Path("."))
    with pytest.warns(ConfigDeprecation):
        old = parse_config({"seeds": 3, "seed_base": 7, "bots": BOTS}, Path("."))
    assert (
        new.fingerprint() == old.fingerprint() == "c092d9aa7c46e490"
    )  # as the old arena computed it


def _row(key: GameKey) -> GameRow:
    return GameRow(key, 1.0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, None, "played", "", 1.0)


def test_a_database_with_a_seed_column_is_read_and_resumed(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = ResultsDB(path)
    db.add(_row(GameKey("a", "b", 4, True)))
    db.close()
    raw = sqlite3.connect(path)
    raw.execute("ALTER TABLE games RENAME COLUMN deal TO seed")  # as an older arena wrote it
    raw.commit()
    raw.close()
    reader = ResultsDB(path, read_only=True)
    assert [r.key for r in reader.rows()] == [GameKey("a", "b", 4, True)]
    reader.close()
    writer = ResultsDB(path)  # a resume: the column is renamed, the game kept
    assert writer.done() == {GameKey("a", "b", 4, True)}
    writer.add(_row(GameKey("a", "b", 5, False)))
    assert [r.key.deal for r in writer.rows()] == [4, 5]
    writer.close()
