"""A tournament that grows: ``--resume`` with more deals, another bot or another schedule
plays only the games not stored yet and keeps the others; what would change the meaning of the
stored results is refused, naming the key. Every run records its config and SPRT in the
database. Driven by the driver's scripted backend (no bot runs)."""

from __future__ import annotations

import csv
import re
import sqlite3
from pathlib import Path

import pytest

from chaodipi.arena.cli.games import find_game
from chaodipi.arena.cli.main import main
from chaodipi.arena.cli.run_job import finished_line
from chaodipi.arena.errors import ResumeError
from chaodipi.arena.report.summary import build_report
from chaodipi.arena.report.tables import write_csv
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameRow, game_label
from chaodipi.arena.results.sprt import SprtTest
from chaodipi.arena.tournament.config import TournamentConfig, load_config, schedule
from tests.test_driver import Scripted, played, run, void
from tests.test_tournament import write_config

TWO = {"good": "./good", "broken": "./broken --fast"}


def config(tmp_path: Path, bots: dict[str, str] = TWO, **keys: object) -> TournamentConfig:
    """A tournament of ``bots`` (their commands never run) with ``keys``, one deal of one
    hand unless they say otherwise, stored in ``r.sqlite``."""
    settings: dict[str, object] = {"hands": 1, "deals": 1, "database": "r.sqlite", **keys}
    return load_config(write_config(tmp_path / "t.toml", bots=bots, **settings))


def play_all(tournament: TournamentConfig, **options: object) -> Scripted:
    """Run ``tournament``, every game it is handed played (bot_a wins)."""
    probe = Scripted([])
    run(tournament, probe, **options)  # learns the games left: none played
    assert probe.assignment is not None
    backend = Scripted([played(key) for key in probe.assignment.games])
    run(tournament, backend, resume=True)
    return backend


def rows(tournament: TournamentConfig) -> dict[object, object]:
    db = ResultsDB(tournament.database, read_only=True)
    try:
        return {r.key: r for r in db.rows()}
    finally:
        db.close()


def test_more_deals_play_only_the_new_games_and_keep_the_stored_ones(tmp_path: Path) -> None:
    first = config(tmp_path, deals=2)
    play_all(first)
    before = rows(first)
    assert set(before) == set(schedule(first))
    grown = config(tmp_path, deals=5)
    backend = Scripted([])
    outcome = run(grown, backend, resume=True)
    assert backend.assignment is not None
    assert backend.assignment.games == tuple(schedule(grown)[4:])  # deals 3, 4 and 5 only
    assert outcome.skipped == 4
    assert {k: v for k, v in rows(grown).items() if k in before} == before


def test_another_bot_in_a_round_robin_plays_only_its_pairings(tmp_path: Path) -> None:
    first = config(tmp_path, deals=2)
    play_all(first)
    grown = config(tmp_path, {**TWO, "third": "./third"}, deals=2)
    backend = Scripted([])
    run(grown, backend, resume=True)
    assert backend.assignment is not None
    left = backend.assignment.games
    assert len(left) == 8 and all("third" in (k.bot_a, k.bot_b) for k in left)
    gauntlet = config(tmp_path, {**TWO, "third": "./third"}, deals=3, schedule="gauntlet",
                      gauntlet="good")  # fmt: skip
    backend = Scripted([])
    run(gauntlet, backend, resume=True)  # good meets the others: its deal 3 is new
    assert backend.assignment is not None
    assert {(k.bot_a, k.bot_b, k.deal) for k in backend.assignment.games} == {
        ("good", "broken", 3), ("good", "third", 1), ("good", "third", 2), ("good", "third", 3),
    }  # fmt: skip


def test_a_pairing_turned_round_is_refused(tmp_path: Path) -> None:
    """Its games would be other games (bot_a and bot_b swapped): all played again."""
    play_all(config(tmp_path, deals=2))
    turned = {"broken": "./broken --fast", "good": "./good"}
    with pytest.raises(ResumeError, match="bots: this run plays broken vs good, which the "
                       "stored games have as good vs broken"):  # fmt: skip
        run(config(tmp_path, turned, deals=3), Scripted([]), resume=True)
    with pytest.raises(ResumeError, match="gauntlet: this run plays broken vs good"):
        run(config(tmp_path, schedule="gauntlet", gauntlet="broken"), Scripted([]), resume=True)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"hands": 2}, "hands: the stored games were played with hands = 1, this run has 2"),
        ({"preset": "anchao"}, "preset: the stored games were played with preset = 'classic'"),
        ({"decision_ms": 500}, "decision_ms: the stored games were played with decision_ms = 2000"),
        ({"bank_ms": 0}, "bank_ms: the stored games were played with bank_ms = 30000"),
        ({"max_strikes": 1}, "max_strikes: the stored games were played with max_strikes = 3"),
    ],
)
def test_what_changes_the_meaning_of_stored_results_is_refused_naming_the_key(
    tmp_path: Path, change: dict[str, object], named: str
) -> None:
    play_all(config(tmp_path))
    with pytest.raises(ResumeError, match=named):
        run(config(tmp_path, deals=3, **change), Scripted([]), resume=True)
    assert len(ResultsDB(tmp_path / "r.sqlite", read_only=True).runs()) == 2  # refused: no run


def test_a_stored_bot_may_not_be_dropped_or_changed(tmp_path: Path) -> None:
    play_all(config(tmp_path))
    with pytest.raises(ResumeError, match=r"bots\.broken: the stored games include bot 'broken'"):
        run(config(tmp_path, {"good": "./good", "other": "./other"}), Scripted([]), resume=True)
    changed = {"good": "./good", "broken": "./broken --slow"}
    with pytest.raises(ResumeError, match="bots.broken.command: the stored games were played by "
                       r"\./broken --fast"):  # fmt: skip
        run(config(tmp_path, changed), Scripted([]), resume=True)


def test_growing_still_needs_resume(tmp_path: Path) -> None:
    play_all(config(tmp_path))
    with pytest.raises(ResumeError, match="already holds 2 games of this tournament: pass --resume"):
        run(config(tmp_path, deals=2), Scripted([]))


def test_each_run_records_its_config_and_sprt(tmp_path: Path) -> None:
    first = config(tmp_path, decision_ms=700)
    play_all(first, sprt_test=SprtTest(0, 50, 0.05, 0.1))
    run(config(tmp_path, deals=2, decision_ms=700, concurrency=2), Scripted([]), resume=True)
    runs = ResultsDB(first.database, read_only=True).runs()
    assert [r.resumed for r in runs] == [False, True, True]
    assert runs[0].sprt == {"elo0": 0, "elo1": 50, "alpha": 0.05, "beta": 0.1}
    assert runs[2].sprt is None
    assert (runs[0].config["decision_ms"], runs[0].config["deals"]) == (700, 1)
    assert (runs[2].config["deals"], runs[2].config["concurrency"]) == (2, 2)
    assert runs[2].config["bots"][1] == {
        "name": "broken", "command": ["./broken", "--fast"], "fresh": False, "processes": None,
    }  # fmt: skip


def test_an_external_bots_token_is_not_stored(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(
        '[bots.outside]\ntoken = "a-secret-token-123"\n[bots.inside]\ncommand = "./in"\n',
        encoding="utf-8",
    )
    tournament = load_config(toml, {"deals": 1, "hands": 1})
    run(tournament, Scripted([]))
    raw = sqlite3.connect(tournament.database)
    assert "a-secret-token-123" not in str(raw.execute("SELECT * FROM runs").fetchall())
    assert ResultsDB(tournament.database, read_only=True).runs()[0].config["bots"][0] == {
        "name": "outside", "token": True,
    }  # fmt: skip


def test_a_database_written_before_runs_were_recorded_is_resumed_as_before(
    tmp_path: Path,
) -> None:
    """Such a file holds only the tournament's fingerprint: the same tournament is resumed (and
    from then on recorded), another one is refused as before."""
    first = config(tmp_path, deals=2)
    play_all(first)
    raw = sqlite3.connect(first.database)
    raw.execute("DROP TABLE runs")  # as an older arena left it
    raw.commit()
    raw.close()
    assert ResultsDB(first.database, read_only=True).runs() == []  # read as it is
    with pytest.raises(ResumeError, match="holds another tournament's results"):
        run(config(tmp_path, deals=3), Scripted([]), resume=True)
    backend = Scripted([])
    run(first, backend, resume=True)
    assert backend.assignment is not None and backend.assignment.games == ()
    assert len(ResultsDB(first.database, read_only=True).runs()) == 1


def _listed(database: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    """``arena games DB``: each listed game's number and name, as printed."""
    assert main(["games", str(database)]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[:2] for line in out.splitlines() if re.match(r" *\d+ +\S+-d\d", line)]
    return [(int(number), name) for number, name in listed]


def test_a_game_keeps_its_number_in_the_log_games_and_show_when_the_run_grows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game's number is given as it is stored and never changes: the live log's "Finished
    game N of T", ``arena games`` (by number, the order they were stored), ``arena show DB N``
    and games.csv name the same game, and a third bot added with --resume numbers only its new
    games (it renumbered every stored one: they were numbered by deal)."""
    first = config(tmp_path, deals=2)
    probe = Scripted([])
    run(first, probe)
    assert probe.assignment is not None
    order = list(reversed(probe.assignment.games))  # finished in another order than scheduled
    logged: list[str] = []

    def on_game(row: GameRow, done: int, total: int) -> None:
        logged.append(finished_line(row, total))

    run(first, Scripted([played(k) for k in order]), resume=True, on_game=on_game)
    before = _listed(first.database, capsys)
    assert before == [(n, game_label(k)) for n, k in enumerate(order, start=1)]
    assert [line.split(" (")[0] for line in logged] == [
        f"Finished game {n} of 4, {name}" for n, name in before
    ]
    grown = config(tmp_path, {**TWO, "third": "./third"}, deals=2)
    probe = Scripted([])
    run(grown, probe, resume=True)
    assert probe.assignment is not None
    logged.clear()
    run(grown, Scripted([played(k) for k in probe.assignment.games]), resume=True, on_game=on_game)
    after = _listed(grown.database, capsys)
    assert after[:4] == before and [n for n, _ in after] == list(range(1, 13))
    assert [line.split(",")[0] for line in logged] == [
        f"Finished game {n} of 12" for n in range(5, 13)
    ]
    db = ResultsDB(grown.database, read_only=True)
    try:
        stored = db.rows()
    finally:
        db.close()
    for number, name in after:
        found = find_game(stored, str(number))
        assert found is not None and game_label(found.key) == name
    report = build_report(stored)
    write_csv(report, stored, tmp_path / "csv")
    with (tmp_path / "csv" / "games.csv").open(encoding="utf-8") as file:
        assert [(int(line["id"]), line["game"]) for line in csv.DictReader(file)] == after
    with pytest.raises(SystemExit):
        main(["games", "--help"])
    assert "by number, the order they were stored" in " ".join(capsys.readouterr().out.split())


def test_a_void_game_played_again_keeps_its_number(tmp_path: Path) -> None:
    tournament = config(tmp_path, deals=2)
    probe = Scripted([])
    run(tournament, probe)
    assert probe.assignment is not None
    first, *others = probe.assignment.games
    run(tournament, Scripted([void(first), *map(played, others)]), resume=True)
    numbers = {key: r.id for key, r in rows(tournament).items()}  # type: ignore[attr-defined]
    assert numbers[first] == 1 and rows(tournament)[first].void is not None  # type: ignore[attr-defined]
    run(tournament, Scripted([played(first)]), resume=True)
    again = rows(tournament)
    assert {key: r.id for key, r in again.items()} == numbers  # type: ignore[attr-defined]
    assert again[first].void is None  # type: ignore[attr-defined]


def test_a_database_written_before_games_had_numbers_reads_them_in_the_order_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older file has no ``id`` column: read as it is, its games are numbered in the order
    they were stored; a run that resumes it writes those same numbers and goes on from them."""
    tournament = config(tmp_path, deals=2)
    probe = Scripted([])
    run(tournament, probe)
    assert probe.assignment is not None
    order = list(reversed(probe.assignment.games))
    run(tournament, Scripted([played(k) for k in order[:3]]), resume=True)
    raw = sqlite3.connect(tournament.database)
    raw.execute("DROP INDEX games_by_id")
    raw.execute("ALTER TABLE games DROP COLUMN id")  # as an older arena left it
    raw.commit()
    raw.close()
    expected = [(n, game_label(k)) for n, k in enumerate(order[:3], start=1)]
    assert _listed(tournament.database, capsys) == expected
    run(tournament, Scripted([played(order[3])]), resume=True)
    assert _listed(tournament.database, capsys) == [*expected, (4, game_label(order[3]))]
