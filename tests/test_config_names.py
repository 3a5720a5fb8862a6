"""The deal number is called a deal (not a seed) in the config, the database and the report;
configs and databases written with the old names still work. A bot's name follows one rule
wherever it comes from (a config file, ``--bot``, ``arena bench``)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from chaodipi.arena.errors import ConfigError
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.tournament.config import ConfigDeprecation, parse_config

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


# -- bot names: one rule wherever they come from -----------------------------------------------

BAD_NAMES = ["../../outside", "[/]x", "a b", "evil\x1b]0;t\x07", ""]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_config_s_bot_name_follows_the_rule_of_the_command_line(name: str) -> None:
    bots = {name: {"command": "x"}, "b": {"command": "y"}}
    with pytest.raises(ConfigError) as caught:
        parse_config({"bots": bots}, Path("."))
    assert str(caught.value) == (
        f"bots.{name!r}: a bot's name is letters, digits and _.+- only (it names the bot's "
        "files and games)"
    )


@pytest.mark.parametrize("name", ["../../outside", "[/]x"])
def test_arena_run_refuses_a_config_s_bad_bot_name_in_one_line(tmp_path: Path, name: str) -> None:
    """The name would have named log files outside the run's folder, or broken arena games:
    the run refuses it before it starts anything."""
    config = tmp_path / "run" / "t.toml"
    config.parent.mkdir()
    config.write_text(
        f'database = "results.sqlite"\n[bots.{json.dumps(name)}]\ncommand = "python3 a.py"\n'
        '[bots.b]\ncommand = "python3 b.py"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "a bot's name is letters, digits" in done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["run", "t.toml"]  # nothing written


def test_the_rule_is_the_one_of_bot_and_bench_and_of_a_database_read() -> None:
    from chaodipi.arena.cli import arguments, bench
    from chaodipi.arena.results import check
    from chaodipi.arena.results.rows import BOT_NAME
    from chaodipi.arena.tournament import config

    assert arguments.BOT_NAME is bench.BOT_NAME is config.BOT_NAME is check.BOT_NAME is BOT_NAME
    assert BOT_NAME.fullmatch("search40_v1.2+x-y") and not BOT_NAME.fullmatch("a/b")
