"""The report: void games left out of everything, strict JSON, unbounded ratings shown as such,
the SPRT inside the report, and plots of an unbeaten bot."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from chaodipi.arena.report.stats import SprtTest
from chaodipi.arena.report.summary import build_report, print_report
from chaodipi.arena.tournament.results import GameKey, GameRow


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
    """``boss`` wins every game; ``x`` and ``y`` trade pairs; one void game of x vs y."""
    rows = pairs("boss", "x", [2.0] * 5) + pairs("boss", "y", [2.0] * 5)
    rows += pairs("x", "y", [2.0, 1.0, 0.5, 1.5, 0.0])
    rows.append(game("x", "y", 9, 0, None, void="y never connected"))
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
    # x and y are fitted from their own games: 5 pairs, x scored 5 of 10 → equal
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
    }


def printed(report_rows: list[GameRow], **kwargs: Any) -> str:
    console = Console(width=220, record=True, color_system=None)
    print_report(build_report(report_rows, **kwargs), console)
    return console.export_text()


def test_print_shows_unbounded_void_and_sprt() -> None:
    text = printed(unbeaten_rows())
    assert "+∞ (unbounded)" in text
    assert "−2443" not in text and "inf" not in text and "nan" not in text
    assert "Standings (30 games, 1 void)" in text
    assert "void games: 1" in text
    assert "1 × x vs y (deal 9): y never connected" in text
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
    assert any("10 games" in c for c in cells) and any("[" in c for c in cells)


def test_plots_with_every_bot_unbounded(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from chaodipi.arena.report.plots import ratings_figure, write_plots

    report = build_report(pairs("a", "b", [2.0] * 4))
    assert [b.rating for b in report.bots] == [math.inf, -math.inf]
    write_plots(report, tmp_path)
    low, high = ratings_figure(report).axes[0].get_xlim()
    assert math.isfinite(low) and math.isfinite(high) and -1000 < low < high < 1000


def test_the_worked_example_of_docs_report_md() -> None:
    """docs/report.md derives these numbers by hand: keep them true."""
    rows = pairs("alpha", "beta", [0, 0.5, 1, 1, 1, 1, 1.5, 1.5, 2, 2])
    text = printed(rows, bot_names=["alpha", "beta"], sprt=SprtTest(0, 50, 0.05, 0.05))
    docs = (Path(__file__).resolve().parent.parent / "docs" / "report.md").read_text("utf-8")
    for shown in (
        "│    1 │ alpha │      +26 ± 77 │    20 │  11.5 │ 57.5% [36.4%, 76.2%] │",
        "│ alpha vs beta │ 10-7-3 │ 57.5% [39.1%, 75.9%] │      +52.5 ± 138.1 │ 78.8% │ [1, 1, 4, 2, 2] │",
        "+52.5 ± 151.2 │              15% │    0 │",
        "SPRT: continue (elo0 0, elo1 50, α 0.05, β 0.05): LLR 0.30 in (−2.94, 2.94) after 10 pairs",
    ):
        assert shown in text and shown in docs
