"""The report: void games left out of everything, strict JSON, unbounded ratings shown as such,
the SPRT inside the report, and plots of an unbeaten bot."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sqlite3
from dataclasses import astuple, replace
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console

from chaodipi.arena.report.summary import build_report, print_report
from chaodipi.arena.report.tables import write_csv
from chaodipi.arena.results.database import _COLUMNS, _SCHEMA, ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.results.sprt import SprtTest


def game(
    a: str,
    b: str,
    seed: int,
    swapped: int,
    score_a: float | None,
    *,
    void: str | None = None,
    strikes_a: int = 0,
    errors: str = "",
) -> GameRow:
    """A stored game; a void one has played nothing (every count 0)."""
    played = void is None
    return GameRow(
        key=GameKey(a, b, seed, swapped),
        score_a=score_a,
        hands=2 if played else 0,
        levels_a=3 if played else 0,
        levels_b=1 if played else 0,
        defended_a=1 if played else 0,
        points_a=40 if played else 0,
        defended_b=1 if played else 0,
        points_b=80 if played else 0,
        strikes_a=strikes_a,
        strikes_b=0,
        illegal_a=0,
        illegal_b=0,
        crashes_a=0,
        crashes_b=0,
        forfeit=None,
        reason="played to the end" if played else "void",
        errors=errors,
        seconds=1.0,
        void=void,
    )


def pairs(a: str, b: str, totals: list[float], first_seed: int = 1) -> list[GameRow]:
    """Both games of each seed, with a's points in the pair (0, ½, 1, 1½ or 2)."""
    split = {0.0: (0.0, 0.0), 0.5: (0.5, 0.0), 1.0: (1.0, 0.0), 1.5: (1.0, 0.5), 2.0: (1.0, 1.0)}
    rows = []
    for seed, total in enumerate(totals, start=first_seed):
        first, second = split[total]
        rows += [game(a, b, seed, 0, first), game(a, b, seed, 1, second)]
    return rows


def strict_json(text: str) -> Any:
    """Parse as a strict parser would: Infinity, -Infinity and NaN are errors."""

    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def unbeaten_rows() -> list[GameRow]:
    """``boss`` wins every game; ``x`` and ``y`` trade pairs; one void game of x vs y (10 pairs
    each: as many as the report needs to estimate, ``MIN_PAIRS``)."""
    rows = pairs("boss", "x", [2.0] * 10) + pairs("boss", "y", [2.0] * 10)
    rows += pairs("x", "y", [2.0, 1.0, 0.5, 1.5, 0.0] * 2)
    rows.append(game("x", "y", 11, 0, None, void="y never connected"))
    return rows


def test_strict_json_refuses_infinity() -> None:
    with pytest.raises(ValueError, match="Infinity"):
        strict_json('{"a": Infinity}')


@pytest.mark.parametrize(
    "rows",
    [
        unbeaten_rows(),
        [],
        [
            game("a", "b", 1, 0, None, void="b could not start"),
            game("a", "b", 1, 1, None, void="b could not start"),
        ],
        pairs("a", "b", [2.0] * 3),
        pairs("a", "b", [1.0] * 3),
    ],
    ids=["unbeaten", "no-games", "all-void", "all-won", "no-spread"],
)
def test_report_json_is_strict(rows: list[GameRow]) -> None:
    report = build_report(rows, ["a", "b"] if not rows or rows[0].key.bot_a == "a" else None)
    document = strict_json(json.dumps(report.as_dict(), allow_nan=False))
    assert document["games"] == report.games
    assert len(document["bots"]) == len(report.bots)


def test_an_unbeaten_bot_is_unbounded_not_a_made_up_number() -> None:
    report = build_report(unbeaten_rows())
    boss = report.bots[0]
    assert boss.bot == "boss" and boss.rating == math.inf and boss.unbounded
    x, y = (next(b for b in report.bots if b.bot == n) for n in "xy")
    # x and y are fitted from their own games: 10 pairs, x scored 10 of 20 → equal
    assert math.isfinite(x.rating) and x.rating == pytest.approx(y.rating, abs=1e-6)
    document = strict_json(json.dumps(report.as_dict(), allow_nan=False))
    bots = {b["bot"]: b for b in document["bots"]}
    assert bots["boss"]["rating"] is None and bots["boss"]["unbounded"] is True
    assert bots["boss"]["unbounded_side"] == "above"
    assert bots["x"]["unbounded"] is False and isinstance(bots["x"]["rating"], float)
    pair = next(p for p in document["pairs"] if p["bot_b"] == "x")
    assert pair["elo"] is None and pair["elo_unbounded"] is True and pair["elo_error"] is None
    assert pair["score"] == 1.0


def test_void_games_are_left_out_of_every_statistic() -> None:
    rows = pairs("a", "b", [2.0, 0.5, 1.0])
    voided = [
        game("a", "b", 7, 0, None, void="b never connected", strikes_a=5),
        game("a", "b", 7, 1, None, void="b exited before its first decision"),
        game("a", "b", 8, 0, None, void="b never connected"),
    ]
    clean, dirty = build_report(rows), build_report(rows + voided)
    assert dirty.games == clean.games == 6
    assert dirty.void == 3 and dirty.voids[0].reason == "b never connected"
    assert dirty.bots == clean.bots  # ratings, games, levels, timeouts: all unchanged
    (clean_pair,), (dirty_pair,) = clean.pairs, dirty.pairs
    assert dirty_pair.void == 3 and clean_pair.void == 0
    assert dirty_pair.pentanomial == clean_pair.pentanomial == (0, 1, 1, 0, 1)
    assert dirty_pair.unfinished == 0
    document = strict_json(json.dumps(dirty.as_dict(), allow_nan=False))
    assert document["void"] == 3 and document["pairs"][0]["void"] == 3
    assert document["voids"][1] == {
        "bot_a": "a",
        "bot_b": "b",
        "deal": 7,
        "swapped": True,
        "reason": "b exited before its first decision",
        "id": None,  # a row that was never stored has no number
        "game": "a-b-d7-b",
    }


def printed(report_rows: list[GameRow], width: int = 220, **kwargs: Any) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    print_report(build_report(report_rows, **kwargs), console)
    return console.export_text()


def test_print_shows_unbounded_void_and_sprt() -> None:
    text = printed(unbeaten_rows())
    assert "+∞ (unbounded)" in text
    assert "−2443" not in text and "inf" not in text and "nan" not in text
    assert "Standings (60 games, 1 void)" in text
    assert "void games: 1" in text
    assert "1 × x vs y (deal 11): y never connected" in text
    text = printed(
        pairs("a", "b", [2.0] * 23), bot_names=["a", "b"], sprt=SprtTest(0, 50, 0.05, 0.05)
    )
    assert (
        "SPRT: H1 accepted (elo0 0, elo1 50, α 0.05, β 0.05): LLR 3.07 ≥ 2.94 after 23 pairs"
        in text
    )


def test_sprt_in_the_report_is_the_first_bots_view() -> None:
    test = SprtTest(0, 50, 0.05, 0.05)
    rows = pairs("a", "b", [2.0] * 23)
    assert build_report(rows, ["a", "b"], sprt=test).sprt is not None
    as_a = build_report(rows, ["a", "b"], sprt=test).sprt
    as_b = build_report(rows, ["b", "a"], sprt=test).sprt
    assert as_a is not None and as_a.verdict == "H1" and as_a.pairs == 23
    assert as_b is not None and as_b.verdict == "H0"
    document = strict_json(json.dumps(build_report(rows, ["a", "b"], sprt=test).as_dict()))
    assert document["sprt"]["verdict"] == "H1"
    assert document["sprt"]["llr"] == pytest.approx(3.0729, abs=1e-4)
    assert (document["sprt"]["elo0"], document["sprt"]["elo1"]) == (0, 50)
    assert build_report(rows, ["a", "b"]).as_dict()["sprt"] is None
    with pytest.raises(ValueError, match="exactly two bots"):
        build_report(rows, ["a", "b", "c"], sprt=test)


def test_plots_of_an_unbeaten_bot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from chaodipi.arena.report.plots import head_to_head_figure, ratings_figure, write_plots

    report = build_report(unbeaten_rows())
    paths = write_plots(report, tmp_path)
    assert [p.name for p in paths] == ["ratings.png", "head_to_head.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
    figure = ratings_figure(report)
    low, high = figure.axes[0].get_xlim()
    assert math.isfinite(low) and math.isfinite(high) and -1000 < low < high < 1000
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert any("+∞" in t for t in texts)
    heat = head_to_head_figure(report)
    cells = [t.get_text() for t in heat.axes[0].texts]
    assert any("20 games" in c for c in cells) and any("[" in c for c in cells)


def test_plots_with_every_bot_unbounded(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from chaodipi.arena.report.plots import head_to_head_figure, ratings_figure, write_plots

    report = build_report(pairs("a", "b", [2.0] * 4))
    assert [b.rating for b in report.bots] == [math.inf, -math.inf]
    cells = [t.get_text() for t in head_to_head_figure(report).axes[0].texts]
    assert cells and all("needs ≥ 10 pairs" in cell for cell in cells), cells
    write_plots(report, tmp_path)
    low, high = ratings_figure(report).axes[0].get_xlim()
    assert math.isfinite(low) and math.isfinite(high) and -1000 < low < high < 1000


def test_the_worked_example_of_docs_report_md() -> None:
    """docs/report.md derives these numbers by hand: keep them true."""
    rows = pairs("alpha", "beta", [0, 0.5, 1, 1, 1, 1, 1.5, 1.5, 2, 2])
    text = printed(rows, bot_names=["alpha", "beta"], sprt=SprtTest(0, 50, 0.05, 0.05))
    docs = (Path(__file__).resolve().parent.parent / "docs" / "report.md").read_text("utf-8")
    for shown in (
        "┃ rank ┃ bot   ┃ rating ± 95 % ┃       score % [95 %] ┃ games ┃ score ┃ levels/hand ┃ pts/def. hand ┃",
        "│    1 │ alpha │      +26 ± 77 │ 57.5% [36.4%, 76.2%] │    20 │  11.5 │        1.50 │          40.0 │",
        "faults: none (no strikes, fallbacks, illegal moves, crashes or forfeits)",
        "│ alpha vs beta │ 10-7-3 │ 57.5% [39.1%, 75.9%] │ +52.5 ± 138.1 │ 78.8% │ [1, 1, 4, 2, 2] │ +52.5 ± 151.2 │      15% │    0 │",
        "SPRT: continue (elo0 0, elo1 50, α 0.05, β 0.05): LLR 0.30 in (−2.94, 2.94) after 10 pairs",
    ):
        assert shown in text and shown in docs


def test_fallbacks_are_a_fault_of_their_own_beside_strikes() -> None:
    """Answers a bot's kit chose for it (``Answer.fallback``) are counted per bot, in its
    side's column, and shown in the faults table and the JSON: a bot that played on its
    SDK's default moves has faults, never "faults: none"."""
    rows = pairs("slow", "quick", [2.0, 1.0])
    rows[0] = replace(rows[0], fallbacks_a=3)  # slow's seats in its first game
    rows[3] = replace(rows[3], fallbacks_a=2, fallbacks_b=1)  # and quick's once
    report = build_report(rows)
    counts = {b.bot: (b.fallbacks, b.timeouts) for b in report.bots}
    assert counts == {"slow": (5, 0), "quick": (1, 0)}
    assert {b["bot"]: b["fallbacks"] for b in report.as_dict()["bots"]} == {"slow": 5, "quick": 1}
    text = printed(rows)
    assert "faults: none" not in text
    faults = _section(text, "Faults", "Head to head")
    header = next(line for line in faults.splitlines() if "fallbacks" in line)
    column = header.index("fallbacks") + len("fallbacks")
    slow = next(line for line in faults.splitlines() if "│ slow " in line)
    assert slow[:column].rstrip().endswith("5"), faults


def test_a_bot_whose_results_include_moves_played_for_it_is_marked_in_the_standings() -> None:
    """"slow wins" is not read at face value: a bot with fallbacks or strikes in its games is
    marked in the standings, and a line under them names each such bot with its counts; a
    bot with none is not marked (and a clean report has no such line)."""
    rows = pairs("slow", "random", [2.0, 2.0])
    rows[0] = replace(rows[0], fallbacks_a=84)
    rows[1] = replace(rows[1], fallbacks_a=1, strikes_a=2)
    text = printed(rows)
    standings = _section(text, "Standings", "Faults")
    assert re.search(r"│ slow \* +│", standings) and re.search(r"│ random +│", standings)
    (note,) = [line for line in standings.splitlines() if line.startswith("* ")]
    assert note.startswith("* moves played for the bot, not by it: slow (2 strikes, 85 fallbacks);")
    assert "random" not in note
    assert "* moves played for" not in printed(pairs("slow", "random", [2.0, 2.0]))


def test_a_results_file_without_the_fallback_columns_reads_them_as_0_and_a_run_adds_them(
    tmp_path: Path,
) -> None:
    """A results file an older arena wrote has no ``fallbacks_a``/``fallbacks_b``: reading it
    takes them as 0; opening it to write (``--resume``) adds them, keeping its games."""
    path = tmp_path / "old.sqlite"
    old_schema = "\n".join(line for line in _SCHEMA.splitlines() if "fallbacks_" not in line)
    row = game("a", "b", 1, 0, 1.0)
    columns = [c for c in _COLUMNS if not c.startswith("fallbacks_")]
    values = [*astuple(row.key), *(getattr(row, c) for c in columns[4:])]
    with sqlite3.connect(path) as db:
        db.executescript(old_schema)
        db.execute(
            f"INSERT INTO games ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            values,
        )
    db.close()
    reader = ResultsDB(path, read_only=True)
    assert reader.rows() == [row]  # fallbacks 0
    reader.close()
    writer = ResultsDB(path)
    writer.add(replace(game("a", "b", 2, 0, 0.0), fallbacks_b=4))
    assert [r.fallbacks_b for r in writer.rows()] == [0, 4]
    writer.close()


def test_a_void_game_s_errors_never_repeat_why_it_is_void_even_in_an_older_file(
    tmp_path: Path,
) -> None:
    """A void game's row says why in ``void`` and what else went wrong in ``errors``: the report
    lists each once and never cuts one out of the other's text. A file an older arena wrote
    began a void game's ``errors`` with its ``void`` text: it is read without it, and a run that
    resumes the file stores it without it."""
    why = "b (seat 1, game a-b-d7-a) did not connect within 10 s"
    crash = "a (a-1, seat 0, game a-b-d7-a) crashed mid-game, exit code 1"
    path = tmp_path / "old.sqlite"
    writer = ResultsDB(path)
    writer.add(game("a", "b", 7, 0, None, void=why, errors=crash))
    writer.close()
    report = build_report(ResultsDB(path, read_only=True).rows())
    assert report.problems == [crash] and [v.reason for v in report.voids] == [why]
    with sqlite3.connect(path) as db:  # as an older arena wrote it
        db.execute("UPDATE games SET errors = ? WHERE deal = 7", (f"{why}\n{crash}",))
        db.execute("DELETE FROM meta WHERE key = 'errors_apart_from_void'")
    db.close()
    reader = ResultsDB(path, read_only=True)
    (row,) = reader.rows()
    reader.close()
    assert (row.void, row.errors, row.trouble) == (why, crash, f"{why}\n{crash}")
    assert build_report([row]).problems == [crash]
    ResultsDB(path).close()  # a resume drops the older text from the file itself
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT errors FROM games").fetchall() == [(crash,)]
    db.close()


# -- the printed report: readable at 80 and 120 columns, labels that say what they mean ---------

LONG = ("montecarlo_budget_400ms", "heuristic_candidate_v2")


def long_named_rows() -> list[GameRow]:
    """Three bots, two with long names; the first took a timeout; one void game."""
    mc, heuristic = LONG
    rows = pairs(mc, heuristic, [0, 0.5, 1, 1, 1, 1, 1.5, 1.5, 2, 2])
    rows += pairs(mc, "random", [2.0, 2.0, 2.0, 2.0, 1.5], first_seed=11)
    rows += pairs(heuristic, "random", [2.0, 1.0, 0.5, 1.5, 0.0, 2.0], first_seed=20)
    rows.append(game(heuristic, "random", 30, 0, None, void="random never connected"))
    rows.append(game(mc, "random", 31, 0, 1.0, strikes_a=2))
    return rows


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end)]


@pytest.mark.parametrize("width", [80, 120])
def test_the_report_reads_at_80_and_120_columns(width: int) -> None:
    """No line is wider than the terminal, no bot name is cut or wrapped, no number is cut, and
    every column is there: what does not fit beside the names is continued in another table."""
    text = printed(long_named_rows(), width)
    assert max(cell_len(line) for line in text.splitlines()) <= width
    assert "…" not in text.replace("… and", "")  # rich's ellipsis: a cut cell
    standings = _section(text, "Standings", "Faults")
    faults = _section(text, "Faults", "Head to head")
    pairings = _section(text, "Head to head", "void games")
    rows = [line for line in standings.splitlines() if line.startswith("│")]
    for name in (*LONG, "random"):
        assert any(f"│ {name} " in line for line in rows), name
        assert re.search(rf"(│ |vs ){re.escape(name)} ", pairings), name
    assert f"│ {LONG[0]} " in faults and f"│ {LONG[1]} " not in faults  # only the bot with a fault
    for header in ("rating ± 95 %", "score % [95 %]", "games", "levels/hand", "pts/def. hand"):
        assert header in standings, header
    for header in ("strikes", "fallbacks", "illegal", "crashes", "forfeits"):
        assert header in faults, header
    for header in ("W-L-D", "score % [95 %]", "Elo ± 95 %", "LOS", "Ptnml", "variance", "void"):
        assert header in pairings, header
    for cell in ("57.5% [39.1%, 75.9%]", "+52.5 ± 138.1", "+52.5 ± 151.2", "[1, 1, 4, 2, 2]"):
        assert cell in pairings, cell  # each on one line
    assert "71.0% [53.4%, 83.9%]" in standings


def test_a_wide_terminal_prints_one_table_each() -> None:
    text = printed(long_named_rows(), 220)
    assert "continued" not in text
    assert text.count("Standings (43 games, 1 void)") == 1


def test_the_worked_example_at_80_columns_continues_its_tables() -> None:
    """docs/report.md says how the example prints at 80 columns."""
    text = printed(pairs("alpha", "beta", [0, 0.5, 1, 1, 1, 1, 1.5, 1.5, 2, 2]), 80)
    assert text.count("Standings (20 games), continued") == 1
    assert text.count("Head to head (first bot's view; duplicate deals), continued") == 1


def test_the_score_is_labelled_score_percent_not_win_rate() -> None:
    """A draw counts ½: a bot that drew every game is at 50 %, which is no win rate."""
    text = printed(pairs("a", "b", [1.0] * 3))  # every pair split: 3 wins, 3 losses
    assert "score % [95 %]" in text and "win rate" not in text
    assert "50.0% [" in text


def test_an_interval_that_reaches_a_bound_is_not_called_no_spread() -> None:
    """The Elo error is unknown in two cases, and the report says which one: nine pairs won 2-0
    and one 1½-½ have spread, but their interval reaches 100 % (no finite Elo at its top)."""
    text = printed(pairs("a", "b", [2.0] * 9 + [1.5]))
    assert "97.5% [92.9%, 100.0%]" in text
    assert "+636.4 ± ?" in text and "(interval reaches 100 %)" in text
    assert "no spread" not in text
    text = printed(pairs("a", "b", [0.0] * 9 + [0.5]))
    assert "−636.4 ± ?" in text and "(interval reaches 0 %)" in text
    assert "no spread" not in text
    text = printed(pairs("a", "b", [1.0] * 10))  # every pair alike: truly no spread
    assert "+0.0 ± ?" in text and "(no spread)" in text and "reaches" not in text
    report = build_report(pairs("a", "b", [2.0] * 9 + [1.5]))
    assert report.pairs[0].games_high == 1.0  # the games' interval, in the JSON too
    assert strict_json(json.dumps(report.as_dict()))["pairs"][0]["games_high"] == 1.0


def test_a_bot_name_is_printed_as_it_is_never_as_markup() -> None:
    text = printed(pairs("[bold]a", "b", [2.0, 1.0]))
    assert "│ [bold]a " in text and "[bold]a vs b" in text


def test_a_likelihood_of_superiority_short_of_certain_never_prints_as_100_percent() -> None:
    """15 pairs won and one lost: the LOS is over 99.9 % but not 1, and the head-to-head says
    ">99.9%" (it printed "100.0%", which only a pairing with no loss at all earns)."""
    rows = pairs("a", "b", [2.0] * 15 + [0.0])
    los = next(p for p in build_report(rows, bot_names=["a", "b"]).pairs if p.bot_a == "a").los
    assert 0.999 < los < 1, los
    text = printed(rows, bot_names=["a", "b"])
    head_to_head = text[text.index("Head to head") :]
    assert "│ >99.9% │" in head_to_head and "│ 100.0% │" not in head_to_head, text


@pytest.mark.parametrize(
    ("totals", "printed_before"),
    [
        # random against a copy of itself: LOS 92.1 %, +88.7 Elo, variance removed 82 %
        ([1.5, 1.0], ("│ 92.1% │", "+88.7", "82%")),
        ([2.0] * 4, ("│ 100.0% │", "+∞", "(unbounded)")),  # arena bench's LOS 100.0 % from 4 pairs
        ([1.0] * 3, ("│ 50.0% │", "+0.0", "100%")),  # variance removed 100 % from 3 equal pairs
        ([2.0, 1.0, 0.5, 1.5, 0.0, 2.0, 1.0, 1.5, 0.5], ("│ 69.4% │", "+38.8", "−13%")),
    ],
)
def test_too_few_pairs_give_no_elo_los_or_variance_removed(
    totals: list[float], printed_before: tuple[str, str, str], tmp_path: Path
) -> None:
    """Below ``MIN_PAIRS`` (10) complete pairs the head-to-head says a figure needs more pairs
    instead of printing one: in the text, in JSON (null, with the reason) and in the CSV."""
    rows = pairs("a", "b", totals)
    text = printed(rows, bot_names=["a", "b"])
    head_to_head = text[text.index("Head to head") :]
    assert head_to_head.count("— (needs ≥ 10 pairs)") == 4  # Elo ×2, LOS, variance removed
    for figure in printed_before:  # what it printed with too few pairs
        assert figure not in head_to_head, figure
    report = build_report(rows, ["a", "b"])
    (pair,) = strict_json(json.dumps(report.as_dict()))["pairs"]
    assert pair["pairs"] == len(totals) and pair["not_estimated"] == "needs ≥ 10 pairs"
    for key in ("elo", "elo_error", "los", "score_low", "elo_games", "variance_reduction"):
        assert pair[key] is None, key
    assert pair["score"] == pytest.approx(sum(totals) / 2 / len(totals))
    write_csv(report, rows, tmp_path)
    with (tmp_path / "pairings.csv").open(encoding="utf-8") as file:
        (line,) = csv.DictReader(file)
    assert line["not_estimated"] == "needs ≥ 10 pairs" and line["los"] == line["elo"] == ""
    # one pair more and every figure is given
    enough = build_report(pairs("a", "b", [*totals, *[1.5] * (10 - len(totals))]), ["a", "b"])
    assert enough.pairs[0].not_estimated is None and not math.isnan(enough.pairs[0].los)


def test_no_csv_cell_from_a_database_is_a_formula_and_numbers_stay_numbers(tmp_path: Path) -> None:
    """A results file may be anyone's: a text cell beginning with ``=``, ``+``, ``-`` or ``@``
    (OWASP's CSV injection: a spreadsheet would run ``=HYPERLINK(...)``) is written led by
    ``'``, in games.csv, pairings.csv and standings.csv; a negative number stays a number
    (pandas reads the column as numbers)."""
    pandas = pytest.importorskip("pandas")
    from chaodipi.arena.cli.main import main

    database = tmp_path / "r.sqlite"
    db = ResultsDB(database)
    for row in pairs("-x", "+y", [2.0, 0.5]):
        db.add(replace(row, points_a=-20, reason='=HYPERLINK("http://x.example","click")',
                       errors="@SUM(1+1)"))  # fmt: skip
    db.close()
    folder = tmp_path / "csv"
    assert main(["report", str(database), "--csv", str(folder)]) == 0
    games = pandas.read_csv(folder / "games.csv")
    assert set(games["reason"]) == {"'=HYPERLINK(\"http://x.example\",\"click\")"}
    assert set(games["errors"]) == {"'@SUM(1+1)"}
    assert set(games["bot_a"]) == {"'-x"} and set(games["bot_b"]) == {"'+y"}
    assert set(games["game"]) == {"'-x-+y-d1-a", "'-x-+y-d1-b", "'-x-+y-d2-a", "'-x-+y-d2-b"}
    assert games["points_a"].dtype.kind == "i" and set(games["points_a"]) == {-20}
    standings = pandas.read_csv(folder / "standings.csv")
    assert set(standings["bot"]) == {"'-x", "'+y"}
    assert standings["rating"].dtype.kind == "f" and (standings["rating"] < 0).any()
    pairings = pandas.read_csv(folder / "pairings.csv")
    assert (pairings["bot_a"][0], pairings["bot_b"][0]) == ("'-x", "'+y")
    for name in ("games", "standings", "pairings"):
        for cell in (folder / f"{name}.csv").read_text(encoding="utf-8").replace("\n", ",").split(","):
            assert not cell.lstrip('"').startswith(("=", "+", "@")), (name, cell)
