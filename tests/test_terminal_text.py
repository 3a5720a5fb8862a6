"""A bot's text reaches the operator's terminal only as visible text (records/text.py): its
name, its notes and its error text, through ``arena show`` (whole or ``--seat``), ``arena
watch``, ``arena games``, ``arena report`` and ``arena run``'s lines, print each control
character as an escape (``\\x1b``), and a name in square brackets is no rich markup."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.cli.live import watch_table
from chaodipi.arena.cli.main import main
from chaodipi.arena.cli.run_job import finished_line
from chaodipi.arena.files import write_record
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import Turn, pack, record_lines, visible
from tests.test_show import _row

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;pwned\x07"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
EVIL_NAME = f"evil{TITLE}\b\b"
EVIL_NOTE = f"I win{CLEAR}{CLIPBOARD}\u202eesrever"
RAW = ("\x1b", "\x07", "\x08", "\u202e")


def _record() -> list[dict[str, Any]]:
    match = Match(PRESETS["hefei"], seed=3, max_hands=1)
    rng = random.Random(3)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    turns = [Turn(ms=40, note=EVIL_NOTE if seat == 0 else "") for seat, _ in match.actions]
    bots = (EVIL_NAME, "beta", EVIL_NAME, "beta")
    return list(record_lines(match, turns, bots=bots, date="2026-12-01T14:00:00Z"))


def _raw(text: str) -> list[str]:
    return [char for char in RAW if char in text]


def test_visible_shows_each_control_character_as_an_escape() -> None:
    assert visible(EVIL_NAME) == "evil\\x1b]0;pwned\\x07\\x08\\x08"
    assert visible("a\tb\nc\x9bd\x7f") == "a\\tb\\nc\\x9bd\\x7f"
    assert visible("红五 ♠A 10 [b]x") == "红五 ♠A 10 [b]x"


@pytest.mark.parametrize("seat", [None, 0])
def test_show_prints_a_bots_name_and_notes_visibly(
    tmp_path: Path, capsys: Any, seat: int | None
) -> None:
    path = tmp_path / "game.jsonl"
    write_record(path, _record())
    assert main(["show", str(path), *([] if seat is None else ["--seat", str(seat)])]) == 0
    out = capsys.readouterr().out
    assert _raw(out) == []
    assert "evil\\x1b]0;pwned\\x07\\x08\\x08" in out
    flat = " ".join(out.split())  # its wrapping undone
    assert "I win\\x1b[2J\\x1b[H\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202eesrever" in flat


def test_watch_prints_the_servers_words_visibly() -> None:
    over = pb.WatchResponse(
        match_over=pb.MatchOver(
            ending=pb.ENDING_PLAYED_OUT, reason=f"seat 2 said {CLEAR}", hands=1, progress=[2, 3]
        )
    )
    out = io.StringIO()
    watch_table([over], "t1", out)
    assert _raw(out.getvalue()) == [] and "said \\x1b[2J\\x1b[H" in out.getvalue()


def _database(path: Path, name: str, rival: str) -> Path:
    """A results database someone else made: a game whose errors quote a bot's stderr, with an
    escape and rich markup in it."""
    db = ResultsDB(path)
    errors = f"{name} crashed: its stderr ends [/]x {CLEAR}"
    db.add(_row(GameKey(name, rival, 1, False), errors=errors, crashes_a=1))
    db.add(_row(GameKey(name, rival, 1, True), score_a=0.0, forfeit=name))
    db.add_record(GameKey(name, rival, 1, False), pack(_record()))
    db.release_deal(1)
    db.close()
    return path


def test_report_prints_a_bots_errors_visibly(tmp_path: Path, capsys: Any) -> None:
    database = _database(tmp_path / "results.sqlite", "evil", "x")
    assert main(["report", str(database)]) == 0
    out = capsys.readouterr().out
    assert _raw(out) == []
    assert "its stderr ends [/]x \\x1b[2J" in " ".join(out.split())


@pytest.mark.parametrize("command", ["games", "report"])
def test_a_database_whose_names_are_no_names_is_refused_visibly(
    tmp_path: Path, capsys: Any, command: str
) -> None:
    database = _database(tmp_path / "results.sqlite", EVIL_NAME, "[/]x")
    assert main([command, str(database)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert _raw(line) == []
    assert "is not an arena results database" in line
    assert "evil\\x1b]0;pwned\\x07\\x08\\x08" in line and "a bot's name is" in line


def test_runs_line_for_a_finished_game_is_visible() -> None:
    row = _row(GameKey(EVIL_NAME, "b", 1, False), reason=f"won {CLEAR}")
    assert _raw(finished_line(row, 2)) == []
