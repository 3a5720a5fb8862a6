"""Statistics against values worked out by hand from cutechess's and fastchess's formulas."""

from __future__ import annotations

import math

import pytest

from arena.stats import (
    elo,
    elo_estimate,
    joint_ratings,
    pentanomial,
    pentanomial_estimate,
    sprt_bounds,
    sprt_llr,
    wilson_interval,
)


def test_elo_of_a_score() -> None:
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(190.85, abs=0.01)  # −400·log10(1/3)
    assert elo(0.25) == pytest.approx(-190.85, abs=0.01)


def test_wld_60_40_0() -> None:
    """s = 0.6, σ² = 0.24, σ/√N = 0.04899; Elo(0.69602) = 143.9, Elo(0.50398) = 2.77;
    LOS = ½ + ½·erf(20/√200) = 0.97725."""
    e = elo_estimate(60, 40, 0)
    assert e.elo == pytest.approx(70.44, abs=0.01)
    assert e.error == pytest.approx(70.57, abs=0.05)
    assert e.los == pytest.approx(0.97725, abs=1e-4)


def test_wld_30_20_50() -> None:
    """s = 0.55, σ² = 0.1225, σ/√N = 0.035; bounds Elo(0.6186) = 84.0 and Elo(0.4814) = −12.9;
    LOS = ½ + ½·erf(1) = 0.92135."""
    e = elo_estimate(30, 20, 50)
    assert e.elo == pytest.approx(34.86, abs=0.01)
    assert e.error == pytest.approx(48.47, abs=0.05)
    assert e.los == pytest.approx(0.92135, abs=1e-4)


def test_pentanomial_counts_and_estimate() -> None:
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2]) == (1, 1, 2, 1, 2)
    # pairs per game: 0, ¼, ½, ½, ¾, 1, 1 → s = 4/7
    e = pentanomial_estimate((1, 1, 2, 1, 2))
    assert e.score == pytest.approx(4 / 7)
    assert e.n == 7


def test_wilson_interval() -> None:
    low, high = wilson_interval(60, 100)
    # centre (0.6 + z²/200)/(1 + z²/100) = 0.59631, half-width 0.09430
    assert (round(low, 4), round(high, 4)) == (0.5020, 0.6906)


def test_sprt() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert (round(lower, 3), round(upper, 3)) == (-2.944, 2.944)
    # a strong result passes the upper bound, a weak one the lower
    assert sprt_llr((1.0, 0.0, 0.5), (300, 100, 0), 0, 50) > upper
    assert sprt_llr((1.0, 0.0, 0.5), (100, 300, 0), 0, 50) < lower


def test_joint_ratings_order_and_gaps() -> None:
    games = [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25
    games += [("b", "c", 1.0)] * 75 + [("b", "c", 0.0)] * 25
    ratings = joint_ratings(["a", "b", "c"], games)
    assert ratings["a"] > ratings["b"] > ratings["c"]
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-6)
    # 75 % against a neighbour is about 190 Elo; the virtual draws pull it in a little
    assert 150 < ratings["a"] - ratings["b"] < 200
    assert math.isfinite(joint_ratings(["x", "y"], [("x", "y", 1.0)] * 10)["x"])


def test_no_spread_means_no_claimed_precision() -> None:
    """Three pairs that all split 1-1 give Elo 0, but not ± 0: the error is unknown."""
    e = pentanomial_estimate((0, 0, 3, 0, 0))
    assert e.elo == 0 and math.isinf(e.error) and e.los == 0.5
    # the score's interval falls back on Wilson's over the 3 pairs: ½ ± 0.3747
    assert tuple(round(x, 4) for x in e.score_interval) == (0.1253, 0.8747)
    # three lost pairs: 0, at most 56 %, not "anything from 0 to 100 %"
    low, high = pentanomial_estimate((3, 0, 0, 0, 0)).score_interval
    assert (low, round(high, 4)) == (0.0, 0.5615)


def test_score_interval_from_pairs() -> None:
    # the montecarlo vs heuristic ladder: 150 pairs [11, 19, 73, 24, 23] score 0.5483 with
    # σ² = 0.0720 per pair, so the 95 % interval is 0.5483 ± 1.96 · √(0.0720 / 150) = ± 0.0430
    e = pentanomial_estimate((11, 19, 73, 24, 23))
    low, high = e.score_interval
    assert (round(e.score, 4), round(low, 4), round(high, 4)) == (0.5483, 0.5053, 0.5913)
