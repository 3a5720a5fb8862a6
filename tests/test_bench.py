"""``arena bench``: a stranger's bot against the ladder's rungs on the standard deal set, end
to end (real servers, bot processes), and ``--ladder``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from chaodipi.arena.tournament.deal_sets import load_deal_set, standard_set_path
from chaodipi.arena.tournament.results import GameKey, ResultsDB
from chaodipi.arena.tournament.rungs import RUNGS
from chaodipi.arena.tournament.rungs import rung as rung_named

ROOT = Path(__file__).resolve().parents[1]
BOT = f"python3 {ROOT / 'examples' / 'highest_card_bot.py'}"


def bench(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "bench", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def _row(stdout: str, label: str) -> list[str]:
    """The cells of the table's row for ``label``."""
    for line in stdout.splitlines():
        cells = [c.strip() for c in re.split("[│┃]", line.strip("│┃ "))]
        if cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r} in:\n{stdout}")


def test_bench_plays_a_bot_against_each_rung_on_the_standard_set(tmp_path: Path) -> None:
    argv = [BOT, "--name", "mine", "--rungs", "random,heuristic", "-n", "2", "--hands", "1"]
    done = bench(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header = _row(done.stdout, "against")
    assert header[1:] == [
        "games",
        "W-L-D",
        "score % [95 %] (pairs)",
        "Elo ± 95 % (pairs)",
        "LOS",
        "levels / hand",
        "points / defended hand",
    ]
    db = ResultsDB(tmp_path / "bench.sqlite", read_only=True)
    try:
        rows = db.rows()
        config = db.runs()[-1].config
    finally:
        db.close()
    assert {r.key for r in rows} == {
        GameKey("mine", rung, deal, swapped)
        for rung in ("random", "heuristic")
        for deal in (1, 2)
        for swapped in (False, True)
    }
    for rung in ("random", "heuristic"):
        cells = _row(done.stdout, rung)
        mine = [r for r in rows if r.key.bot_b == rung]
        wins = sum(r.score_a == 1.0 for r in mine)
        losses = sum(r.score_a == 0.0 for r in mine)
        assert cells[1] == "4"
        assert cells[2] == f"{wins}-{losses}-{4 - wins - losses}"
        score = (wins + (4 - wins - losses) / 2) / 4
        assert cells[3].startswith(f"{score:.1%} [")
        assert re.fullmatch(r"[+−](\d+\.\d ± (\d+\.\d|\?)|∞ \(unbounded\))|—", cells[4]), cells
        hands = sum(r.hands for r in mine)
        levels = sum(r.levels_a for r in mine) / hands
        assert cells[6] == f"{levels:+.3f}"
    assert "random" not in _row(done.stdout, "against")
    assert "search" not in done.stdout.split("reproduce")[0]  # only the rungs asked for
    standard = load_deal_set(standard_set_path("classic"))
    assert config["deals_file"] == {"name": "classic.json.gz", "sha256": standard.sha256}
    assert config["schedule"] == "gauntlet" and config["gauntlet"] == "mine"
    assert "python3 -m chaodipi.arena bench" in done.stdout  # how to play it again
    # stored like any run: --resume plays nothing more and prints the same table
    again = bench(*argv, "--resume", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert _row(again.stdout, "random") == _row(done.stdout, "random")
    assert "game " not in again.stderr
    document = json.loads(bench(*argv, "--resume", "--json", cwd=tmp_path).stdout)
    assert [row["label"] for row in document["rows"]] == ["random", "heuristic"]
    assert [row["games"] for row in document["rows"]] == [4, 4]
    assert document["deals_file"]["sha256"] == standard.sha256 and document["deals"] == 2
    refused = bench(*argv, cwd=tmp_path)
    assert refused.returncode == 2
    assert "pass --resume" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_bench_ladder_plays_each_rung_against_the_one_below(tmp_path: Path) -> None:
    done = bench("--ladder", "--rungs", "random,heuristic", "-n", "1", "--hands", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cells = _row(done.stdout, "heuristic vs random")
    assert cells[1] == "2"
    db = ResultsDB(tmp_path / "bench-heuristic-vs-random.sqlite", read_only=True)
    try:
        assert {r.key.bot_a for r in db.rows()} == {"heuristic"}
    finally:
        db.close()
    assert (
        "heuristic vs random: python3 -m chaodipi.arena bench --ladder --rungs random,heuristic"
        in done.stdout
    )


def test_the_rung_table_is_the_ladder_weakest_first_at_fixed_budgets() -> None:
    """The rungs are the sample bots weakest first, and the two that think do so at a fixed
    budget (a number of samples or playouts), so that a bench means the same on any machine."""
    assert [r.name for r in RUNGS] == ["random", "heuristic", "montecarlo", "search"]
    assert [r.command.split()[2] for r in RUNGS] == [
        f"chaodipi.sample_bots.{module}"
        for module in ("random_bot", "heuristic_bot", "mc_bot", "search_bot")
    ]
    assert "--samples" in rung_named("montecarlo").command.split()
    assert "--simulations" in rung_named("search").command.split()
