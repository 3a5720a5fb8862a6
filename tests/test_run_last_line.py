"""``arena run``'s last line says every fault kind the faults table counts: strikes and
illegal moves too, not only the forfeits and crashes that make exit code 1."""

from __future__ import annotations

from dataclasses import replace

from chaodipi.arena.cli.run_job import faults_said, finished_line, game_notes
from chaodipi.arena.report.summary import FAULTS, build_report
from tests.test_report import pairs


def test_the_last_line_says_the_illegal_moves_and_strikes_the_faults_table_counts() -> None:
    rows = pairs("alpha", "beta", [1.0, 1.5])
    rows[0] = replace(rows[0], illegal_a=3, strikes_b=2)
    rows[1] = replace(rows[1], illegal_b=1)
    report = build_report(rows)
    counted = {(b.bot, kind): getattr(b, kind) for b in report.bots for kind in FAULTS}
    said = faults_said(report)
    for (bot, kind), n in counted.items():
        if n and kind in ("timeouts", "illegal"):
            assert f"{n} {FAULTS[kind]}" in said.split(f"{bot}: ", 1)[1].split(";")[0], said
    assert said.startswith("; faults: ") and "illegal" in said and "2 strikes" in said
    assert "timeout" not in said


def test_a_clean_run_says_no_faults() -> None:
    assert faults_said(build_report(pairs("alpha", "beta", [1.0, 1.5]))) == ""


def test_each_finished_game_says_its_bots_faults_in_one_line() -> None:
    """A bot too slow for its deadline: its game's line is followed by one line naming it with
    its fallbacks and strikes (the tables log each at info only), after what else went wrong."""
    (row,) = pairs("slow", "random", [1.0])[:1]
    row = replace(row, id=12, fallbacks_a=14, strikes_a=2, crashes_b=1, errors="random crashed")
    line = finished_line(row, 40)
    assert line.startswith("Finished game 12 of 40, slow-random-d1-a (slow vs random, deal 1): ")
    assert game_notes(row) == [
        "random crashed",
        "faults: slow: 2 strikes, 14 fallbacks; random: 1 crash",
    ]
    assert game_notes(replace(row, fallbacks_a=0, strikes_a=0, crashes_b=0, errors="")) == []
