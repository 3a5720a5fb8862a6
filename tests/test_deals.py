"""Deals come from a secret key: a seat's cards do not lead back to a deal number without it,
and the same key deals the same cards (duplicate pairs, every pairing, ``--resume``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest

from chaodipi.arena.deals import DealKey
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameRow
from chaodipi.arena.tournament.config import load_config
from chaodipi.arena.tournament.driver import run_tournament
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from tests.test_tournament import BOT, write_config

CLASSIC = PRESETS["classic"]


def first_packet(seed: int | str, seat: int = 0) -> list[str]:
    """What ``seat`` sees of a deal before anyone acts: its first cards."""
    return [str(c) for c in Match(CLASSIC, seed, max_hands=1).hand.hand(seat)]


def test_the_same_key_deals_the_same_cards_and_another_key_other_cards() -> None:
    key = DealKey.new()
    again = DealKey.from_hex(key.hex())
    assert first_packet(key.seed(1)) == first_packet(again.seed(1))
    assert first_packet(key.seed(1)) != first_packet(key.seed(2))
    assert first_packet(key.seed(1)) != first_packet(DealKey.new().seed(1))


def test_a_seats_cards_do_not_match_any_small_deal_number_without_the_key() -> None:
    """The attack that worked on deals seeded 0, 1, 2, …: try the small seeds with the public
    engine until one deals the cards in hand. With a keyed deal, none of them does."""
    key = DealKey.new()
    for deal in (0, 1, 2):
        seen = first_packet(key.seed(deal))
        assert all(first_packet(guess) != seen for guess in range(0, 300))
        assert first_packet(deal) != seen  # the deal number alone is no seed


def test_a_deal_key_is_never_printed_by_accident() -> None:
    key = DealKey.new()
    assert key.hex() not in repr(key) and key.hex() not in f"{key!r}"
    with pytest.raises(ValueError, match="hex digits"):
        DealKey.from_hex("not a key")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        DealKey(b"short")


def test_a_tournament_deals_from_its_stored_key_and_resume_keeps_it(tmp_path: Path) -> None:
    config = load_config(
        write_config(
            tmp_path / "t.toml",
            deals = 1,
            concurrency=2,
            database="r.sqlite",
            replays="replays",
            bots={"a": BOT, "b": BOT},
        )
    )
    outcome = anyio.run(lambda: run_tournament(config), backend="asyncio")
    assert outcome.played == 2 and outcome.void == 0
    stored = sqlite3.connect(tmp_path / "r.sqlite").execute(
        "SELECT value FROM meta WHERE key = 'deal_key'"
    )
    key = DealKey.from_hex(stored.fetchone()[0])
    replays = sorted((tmp_path / "replays").glob("*.jsonl"))
    assert [p.name for p in replays] == ["a-b-d1-a.jsonl", "a-b-d1-b.jsonl"]
    headers = [json.loads(p.read_text().splitlines()[0]) for p in replays]
    # both games of the pair played the keyed deal 1, which the replay records to replay it
    assert {h["seed"] for h in headers} == {key.seed(1)}
    db = ResultsDB(tmp_path / "r.sqlite")
    assert db.deal_key() == key  # --resume deals the same cards
    db.close()


def test_a_replay_appears_only_once_every_game_on_its_deal_is_stored(tmp_path: Path) -> None:
    """The twin game of a duplicate pair plays the same cards: its replay would show a seat's
    opponents' hands while the other game still plays. At every stored game, each replay in the
    folder belongs to a deal whose games are all stored."""
    config = load_config(
        write_config(
            tmp_path / "t.toml",
            deals = 2,
            concurrency=2,
            database="r.sqlite",
            replays="replays",
            bots={"a": BOT, "b": BOT},
        )
    )
    stored: list[tuple[int, int]] = []
    early: list[str] = []

    def on_game(row: GameRow, done: int, total: int) -> None:
        stored.append((row.key.deal, row.key.swapped))
        for replay in (tmp_path / "replays").glob("*.jsonl"):
            deal = int(replay.stem.split("-d")[1].split("-")[0])
            if {(deal, 0), (deal, 1)} - set(stored):
                early.append(replay.name)

    outcome = anyio.run(lambda: run_tournament(config, on_game=on_game), backend="asyncio")
    assert outcome.played == 4
    assert early == []
    assert len(list((tmp_path / "replays").glob("*.jsonl"))) == 4
