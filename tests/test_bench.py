"""``arena bench``: a stranger's bot against the ladder's rungs on the standard deal set, end
to end (real servers, bot processes), and ``--ladder``."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from chaodipi.arena.cli.bench import duration_text, estimate_s
from chaodipi.arena.cli.bench_job import BenchRow, _document, bench_notes, bench_rows, bench_tables
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.tournament.deal_sets import load_deal_set, standard_set_path
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
    first = done.stderr.splitlines()[0]  # before any game: what it plays, roughly how long
    assert first.startswith("arena bench: 8 games to play, 1 hand each: roughly "), first
    header = _row(done.stdout, "against")
    assert header[1:] == [
        "games",
        "W-L-D",
        "score % [95 %]",
        "Elo ± 95 %",
        "LOS",
        "levels/hand",
        "pts/def. hand",
    ]
    assert "Elo ± 95 % and LOS: from the pairs of games on one deal" in done.stdout
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
        assert cells[4] == cells[5] == "— (needs ≥ 10 pairs)", cells  # 2 pairs: too few
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
    assert "game " not in again.stderr and "0 games to play" in again.stderr
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
    """The rungs are the sample bots weakest first, and the two that search do so at a fixed
    budget (a number of playouts), so that a bench means the same on any machine."""
    assert [r.name for r in RUNGS] == ["random", "heuristic", "dmc", "search40", "search"]
    assert [r.command.split()[2] for r in RUNGS] == [
        f"chaodipi.sample_bots.{module}"
        for module in ("random_bot", "heuristic_bot", "dmc_bot", "search_bot", "search_bot")
    ]
    for name, playouts in (("search40", "40"), ("search", "120")):
        words = rung_named(name).command.split()
        assert words[words.index("--simulations") + 1] == playouts


def test_the_table_fits_80_columns_without_breaking_a_rung_s_name() -> None:
    """At 80 columns no cell is cut: the table goes on in a second one led by the rung's name
    (before, "heuristic" came out as "heurist…", a W-L-D as "165-66…"), and an unbounded Elo
    is one cell that a note under the table explains."""
    rows = [
        BenchRow("heuristic", 60, 60, 0, 0, 1.0, 0.886, 1.0, math.inf, math.nan, 1.0, 4.083,
                 362.7, 0),
        BenchRow("search40", 300, 165, 66, 69, 0.665, 0.625, 0.705, 119.1, 31.7, 0.9999, 0.88,
                 94.0, 0),
    ]  # fmt: skip
    console = Console(width=80, record=True)
    for table in bench_tables("a bench", "against", rows, 80):
        console.print(table)
    lines = console.export_text().splitlines() + bench_notes(rows)
    assert max(len(line) for line in lines) <= 80, lines
    assert sum(line.startswith("│ heuristic ") for line in lines) == 2, lines  # both tables
    assert sum(line.startswith("│ search40 ") for line in lines) == 2, lines
    for cell in ("165-66-69", "66.5% [62.5%, 70.5%]", "+119.1 ± 31.7", "+0.880", "362.7"):
        assert any(cell in line for line in lines), (cell, lines)
    assert any("+∞" in line for line in lines) and not any("unboun" in line for line in lines)
    assert any("no pair lost" in line for line in lines), lines
    assert any(">99.9%" in line for line in lines), lines


def _won(key: GameKey) -> GameRow:
    """A game the first bot won in one hand."""
    return GameRow(key, 1.0, 1, 1, 0, 1, 80, 0, 0, 0, 0, 0, 0, 0, 0, None, "played", "", 1.0)


def test_four_pairs_won_give_no_los_of_100_percent() -> None:
    """The bench printed LOS 100.0 % from 4 pairs: below 10 pairs its Elo and LOS say they
    need more pairs, in the table, under it, and in ``--json`` (null, with the reason)."""
    rows = [_won(GameKey("mine", "random", deal, bool(s))) for deal in range(1, 5) for s in (0, 1)]
    (row,) = bench_rows(rows, [("random", "mine", "random")])
    console = Console(width=120, record=True)
    for table in bench_tables("a bench", "against", [row], 120):
        console.print(table)
    cells = _row(console.export_text(), "random")
    assert cells[3] == "100.0% [—]" and cells[4] == cells[5] == "— (needs ≥ 10 pairs)", cells
    assert any("needs ≥ 10 pairs" in note for note in bench_notes([row]))
    deal_set = SimpleNamespace(identity=lambda: {"name": "classic.json.gz", "sha256": "0"})
    config = SimpleNamespace(preset="classic", deal_set=deal_set, first_deal=1, deals=4, hands=1,
                             decision_ms=1000, bank_ms=0)  # fmt: skip
    (item,) = _document(config, [row], [])["rows"]  # type: ignore[arg-type]
    assert item["los"] is None and item["elo"] is None
    assert item["not_estimated"] == "needs ≥ 10 pairs"


def test_help_says_how_long_the_default_bench_takes_and_the_estimate_matches() -> None:
    """The default bench is 800 two-hand games, about 2.5 hours on 2 cores: ``--help`` says so,
    and the estimate printed before a bench starts says the same of the default's games."""
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "bench", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = " ".join(done.stdout.split())
    assert "the default bench is 1000 games of 2 hands" in said, said
    assert "roughly 2 h 40 min on 2 cores" in said and "estimate" in said
    default = [("bot", r.name) for r in RUNGS for _ in range(200)]
    assert duration_text(estimate_s(default, 2, 2) or 0) == "2 h 40 min"
    assert estimate_s(default, 0, 2) is None  # whole matches: no estimate


def test_an_elo_error_that_cannot_be_measured_is_explained_under_the_table() -> None:
    """``± ?`` was printed with nothing to say what it means: a note under the table says the
    error cannot be measured, and why for that row (a 12-pair run won every time but once:
    the score interval reaches 100 %)."""
    row = BenchRow("search", 24, 23, 1, 0, 23 / 24, 0.9, 1.0, 552.0, math.inf, 0.999, 0.0, 0.0, 0)
    console = Console(width=120, record=True)
    for table in bench_tables("a bench", "against", [row], 120):
        console.print(table)
    assert _row(console.export_text(), "search")[4] == "+552.0 ± ?"
    (note,) = [note for note in bench_notes([row]) if note.startswith("± ?")]
    assert "cannot be measured" in note and note.endswith("search: interval reaches 100 %")


def test_a_learned_rung_is_a_rung_of_the_presets_with_a_model_shipped_alone(
    tmp_path: Path,
) -> None:
    """The dmc rung plays a model trained on classic: ``-p hefei`` leaves it out of the
    default rungs, refuses it named in ``--rungs`` in one line saying which presets have a
    model (nothing played), and ``--help`` lists each preset's rungs."""
    from chaodipi.arena.tournament.rungs import rungs_of

    assert rung_named("dmc").presets() == ("classic",)
    assert [r.name for r in rungs_of("classic")] == [r.name for r in RUNGS]
    for preset in ("anchao", "kangqi", "mingchao", "hefei"):
        assert [r.name for r in rungs_of(preset)] == ["random", "heuristic", "search40", "search"]
    said = ("arena bench: rung dmc plays a model trained on one preset and has none for hefei "
            "(it has one for: classic): leave it out of --rungs")
    for argv in ([BOT, "--rungs", "heuristic,dmc"], ["--ladder", "--rungs", "heuristic,dmc"]):
        done = bench(*argv, "-p", "hefei", "-n", "1", cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.splitlines() == [said], done.stderr
    assert not list(tmp_path.iterdir())  # nothing played, no database
    done = bench("--help", cwd=tmp_path)
    lines = [" ".join(line.split()) for line in done.stdout.splitlines()]
    assert "classic random,heuristic,dmc,search40,search" in lines, done.stdout
    assert "hefei random,heuristic,search40,search" in lines, done.stdout


def test_a_ladder_of_a_preset_without_the_learned_rung_s_model_refuses_it() -> None:
    from chaodipi.arena.errors import ConfigError
    from tests.ladder_support import ladder_config

    with pytest.raises(ConfigError) as refused:
        ladder_config(ROOT, preset="hefei", rungs=["heuristic", "dmc"])
    assert str(refused.value) == (
        "rungs: dmc plays a model trained on one preset and has none for hefei (it has one "
        "for: classic): leave it out")
    assert ladder_config(ROOT, preset="classic", rungs=["heuristic", "dmc"]).rungs == (
        "heuristic", "dmc")


def test_a_bench_of_an_in_process_bot_plays_the_rungs_in_process(tmp_path: Path) -> None:
    """CMD ``py:MODULE:NAME``: the rungs are played by their callables too, every game in a
    worker (the stored commands say so, and only the workers' stderr files are there); with
    ``--workers 0`` every bot is a process, the rungs by their commands, and the command to
    play it again says ``--workers 0``."""
    argv = ["py:chaodipi.sample_bots.rungs:Random", "--name", "mine", "--rungs", "heuristic"]
    argv += ["-n", "1", "--hands", "1"]
    done = bench(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("arena bench: 2 games to play")
    db = ResultsDB(tmp_path / "bench.sqlite", read_only=True)
    try:
        commands = {b["name"]: b["command"] for b in db.runs()[-1].config["bots"]}
        assert len(db.rows()) == 2
    finally:
        db.close()
    assert commands == {
        "mine": ["py:chaodipi.sample_bots.rungs:Random"],
        "heuristic": [rung_named("heuristic").callable],
    }
    logs = sorted(p.name for p in (tmp_path / "bench-logs").iterdir())
    assert logs and all("#w" in name for name in logs)
    apart = tmp_path / "apart"
    apart.mkdir()
    done = bench(*argv, "--workers", "0", cwd=apart)
    assert done.returncode == 0, done.stderr
    db = ResultsDB(apart / "bench.sqlite", read_only=True)
    try:
        commands = {b["name"]: b["command"] for b in db.runs()[-1].config["bots"]}
    finally:
        db.close()
    assert commands["heuristic"] == rung_named("heuristic").command.split()
    assert not any("#w" in p.name for p in (apart / "bench-logs").iterdir())
    assert "--workers 0" in done.stdout


def test_each_rung_is_also_a_callable_that_plays_its_seat() -> None:
    """Each rung's in-process form loads (``chaodipi.bot.load_bot``) and, made for a seat,
    answers a legal action from that seat's view; made twice for the same view, the same one
    (its generator seeded by what the seat knows), but for the search rungs, whose time cap a
    loaded machine may reach."""
    from chaodipi.bot import load_bot
    from chaodipi.engine import PRESETS, Match, observe

    match = Match(PRESETS["classic"], seed=11)
    while match.legal_actions().forced() is not None:
        match.apply(match.to_play, match.legal_actions().forced())
    view = observe(match, match.to_play)
    assert view.legal is not None
    for each in RUNGS:
        assert each.callable.startswith("py:chaodipi.sample_bots.rungs:")
        new_game = load_bot(each.callable.removeprefix("py:"))
        first, again = new_game()(view), new_game()(view)
        assert first in view.legal and again in view.legal, each.name
        assert first == again or each.name.startswith("search"), each.name
