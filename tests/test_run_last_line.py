"""``arena run``'s last line says every fault kind the faults table counts: strikes and
illegal moves too, not only the forfeits and crashes that make exit code 1."""

from __future__ import annotations

from dataclasses import replace

from chaodipi.arena.cli.run_job import faults_said
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
