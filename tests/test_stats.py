"""Statistics against values worked out by hand from cutechess's and fastchess's formulas."""

from __future__ import annotations

import math

import pytest

from chaodipi.arena.report.stats import (
    anchored_ratings,
    elo,
    elo_estimate,
    joint_ratings,
    pentanomial_estimate,
    wilson_interval,
)
from chaodipi.arena.results.sprt import (
    SprtTest,
    logistic,
    pentanomial,
    pentanomial_llr,
    sprt,
    sprt_bounds,
)


def test_elo_of_a_score() -> None:
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(190.85, abs=0.01)  # −400·log10(1/3)
    assert elo(0.25) == pytest.approx(-190.85, abs=0.01)
    # a perfect score has no finite Elo: say so, not −400·log10(1e-9)
    assert elo(1.0) == math.inf and elo(0.0) == -math.inf
    assert logistic(elo(0.75)) == pytest.approx(0.75)


def test_no_games_no_numbers() -> None:
    e = pentanomial_estimate((0, 0, 0, 0, 0))
    assert e.n == 0 and math.isnan(e.elo) and math.isnan(e.score) and math.isinf(e.error)
    assert math.isnan(elo_estimate(0, 0, 0).los)


def test_a_perfect_score_is_unbounded() -> None:
    e = pentanomial_estimate((0, 0, 0, 0, 5))
    assert e.elo == math.inf and math.isinf(e.error) and e.los == 1.0


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


# --- SPRT ---------------------------------------------------------------------------------
# The expected LLRs below were computed apart from chaodipi.arena.results.sprt, from fishtest's published
# formulas (LLR_logistic, after Van den Bergh): empty buckets get 1e-3 pairs, N = the sum of
# the counts so regularised, and each hypothesis is qᵢ = pᵢ / (1 + x (aᵢ − s)) with x the root
# of Σ pᵢ (aᵢ − s) / (1 + x (aᵢ − s)) = 0 for s = 1 / (1 + 10^(−elo/400)); the root was found
# by 400 bisections at 40 significant digits (mpmath); LLR = Σ cᵢ log(q1ᵢ / q0ᵢ).
EXACT_LLRS = [
    # counts (LL, LD, WL+DD, WD, WW), elo0, elo1, LLR
    ((0, 0, 0, 0, 9), 0, 50, 1.20257300003),  # the old approximation accepted H1 here
    ((0, 0, 0, 0, 22), 0, 50, 2.93926709632),  # just short of log(0.95/0.05) = 2.94444
    ((0, 0, 0, 0, 23), 0, 50, 3.07285894544),
    ((0, 0, 0, 0, 12), 0, 100, 2.96395153882),
    ((11, 19, 73, 24, 23), 0, 50, 1.83935442207),  # the montecarlo vs heuristic ladder
    ((11, 19, 73, 24, 23), 0, 5, 0.653325507044),
    ((5, 30, 110, 40, 15), -3, 1, 0.971425924311),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), EXACT_LLRS)
def test_exact_pentanomial_llr(
    counts: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    assert pentanomial_llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-9)


def _llr_by_direct_maximisation(counts: list[float], elo0: float, elo1: float) -> float:
    """The same LLR another way: maximise Σ cᵢ log qᵢ over q with Σ qᵢ = 1 and Σ qᵢ aᵢ = s
    by a general constrained optimiser (no Lagrange formula)."""
    from scipy.optimize import minimize

    c = [x if x else 1e-3 for x in counts]
    scores = [0, 0.25, 0.5, 0.75, 1]

    def best(s: float) -> float:
        fit = minimize(
            lambda q: -sum(ci * math.log(max(qi, 1e-300)) for ci, qi in zip(c, q, strict=True)),
            [0.2] * 5,
            method="SLSQP",
            bounds=[(1e-12, 1)] * 5,
            constraints=[
                {"type": "eq", "fun": lambda q: sum(q) - 1},
                {
                    "type": "eq",
                    "fun": lambda q: sum(qi * a for qi, a in zip(q, scores, strict=True)) - s,
                },
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return -float(fit.fun)

    return best(logistic(elo1)) - best(logistic(elo0))


@pytest.mark.parametrize("counts", [[3, 7, 20, 9, 6], [0, 2, 10, 6, 4], [12, 5, 30, 2, 1]])
def test_llr_matches_a_direct_constrained_maximisation(counts: list[float]) -> None:
    expected = _llr_by_direct_maximisation(counts, -10, 20)
    assert pentanomial_llr(counts, -10, 20) == pytest.approx(expected, abs=1e-4)


def test_llr_is_antisymmetric_under_swapping_the_bots() -> None:
    """The second bot's view of the same pairs (buckets reversed, Elo negated)."""
    counts = [4, 9, 30, 12, 7]
    assert pentanomial_llr(counts[::-1], 0, 30) == pytest.approx(
        -pentanomial_llr(counts, -30, 0), abs=1e-12
    )
    assert pentanomial_llr([0, 0, 0, 0, 0], 0, 50) == 0.0


def test_all_won_pairs_need_23_pairs_at_0_50() -> None:
    test = SprtTest(elo0=0, elo1=50, alpha=0.05, beta=0.05)
    assert sprt(test, [0, 0, 0, 0, 22]).verdict is None
    decided = sprt(test, [0, 0, 0, 0, 23])
    assert decided.verdict == "H1" and decided.pairs == 23
    assert str(decided) == (
        "H1 accepted (elo0 0, elo1 50, α 0.05, β 0.05): LLR 3.07 ≥ 2.94 after 23 pairs"
    )
    assert sprt(test, [23, 0, 0, 0, 0]).verdict == "H0"
    going = sprt(test, [0, 0, 0, 0, 9])
    assert str(going) == (
        "continue (elo0 0, elo1 50, α 0.05, β 0.05): LLR 1.20 in (−2.94, 2.94) after 9 pairs"
    )
    assert going.as_dict() == {
        "elo0": 0,
        "elo1": 50,
        "alpha": 0.05,
        "beta": 0.05,
        "llr": pytest.approx(1.2025730000),
        "lower": pytest.approx(-2.944439),
        "upper": pytest.approx(2.944439),
        "pairs": 9,
        "verdict": None,
    }


def test_sprt_bounds_and_hypotheses() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert (round(lower, 3), round(upper, 3)) == (-2.944, 2.944)
    assert tuple(round(x, 4) for x in sprt_bounds(0.05, 0.1)) == (-2.2513, 2.8904)
    with pytest.raises(ValueError, match="elo0 < elo1"):
        SprtTest(50, 0, 0.05, 0.05)
    with pytest.raises(ValueError, match="alpha"):
        SprtTest(0, 50, 0, 0.05)


# --- joint rating -------------------------------------------------------------------------


def _gradient(ratings: dict[str, float], games: list[tuple[str, str, float]]) -> dict[str, float]:
    """∂ log-likelihood / ∂ rating (per Elo): points taken minus points expected."""
    grad = dict.fromkeys(ratings, 0.0)
    for a, b, score in games:
        expected = logistic(ratings[a] - ratings[b])
        grad[a] += score - expected
        grad[b] -= score - expected
    return grad


def test_joint_rating_hand_solved_triangle() -> None:
    """Strengths 4 : 2 : 1 give p(a beats b) = 2/3, p(b beats c) = 2/3, p(a beats c) = 4/5.
    With exactly those scores every likelihood equation (points = expected points) holds at
    a − b = b − c = 400·log10(2) = 120.41 Elo, so with mean 0: +120.41, 0, −120.41. Draws count
    half: a's 20 of 30 against b come as 16 wins, 8 draws and 6 losses."""
    games = [("a", "b", 1.0)] * 16 + [("a", "b", 0.5)] * 8 + [("a", "b", 0.0)] * 6
    games += [("b", "c", 1.0)] * 20 + [("b", "c", 0.0)] * 10
    games += [("c", "a", 1.0)] * 6 + [("c", "a", 0.0)] * 24
    ratings = joint_ratings(["a", "b", "c"], games)
    assert [round(ratings[x].elo, 4) for x in "abc"] == [120.4120, 0.0, -120.4120]
    fitted = {name: r.elo for name, r in ratings.items()}
    assert all(abs(g) < 1e-6 for g in _gradient(fitted, games).values())
    assert all(0 < r.error < 200 and not r.unbounded for r in ratings.values())


def test_joint_rating_of_a_chain() -> None:
    """a–b and b–c only: the fit is each pairing's own score, 75 % = 190.85 Elo apart."""
    games = [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25
    games += [("b", "c", 1.0)] * 75 + [("b", "c", 0.0)] * 25
    ratings = joint_ratings(["a", "b", "c"], games)
    assert [round(ratings[x].elo, 2) for x in "abc"] == [190.85, 0.0, -190.85]


def test_joint_rating_gradient_is_zero_at_the_fit() -> None:
    import random

    rng = random.Random(7)
    strength = {"p": 150.0, "q": 40.0, "r": 0.0, "s": -90.0}
    names = list(strength)
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for _ in range(40):
                u = rng.random()
                p = logistic(strength[a] - strength[b])
                games.append((a, b, 1.0 if u < p * 0.85 else 0.5 if u < p * 0.85 + 0.15 else 0.0))
    ratings = {name: r.elo for name, r in joint_ratings(names, games).items()}
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-6)
    assert all(abs(g) < 1e-6 for g in _gradient(ratings, games).values())

    # moving any rating lowers the likelihood
    def log_likelihood(r: dict[str, float]) -> float:
        return sum(
            s * math.log(logistic(r[a] - r[b])) + (1 - s) * math.log(logistic(r[b] - r[a]))
            for a, b, s in games
        )

    best = log_likelihood(ratings)
    for name in names:
        for step in (-1.0, 1.0):
            assert log_likelihood({**ratings, name: ratings[name] + step}) < best


def test_unbeaten_bots_are_unbounded() -> None:
    two = joint_ratings(["x", "y"], [("x", "y", 1.0)] * 10)
    assert two["x"].elo == math.inf and two["y"].elo == -math.inf and two["x"].unbounded
    # boss beat everyone; a and b are fitted from their own games, 60 % → ±35.2 Elo
    games = [("boss", "a", 1.0)] * 6 + [("b", "boss", 0.0)] * 6
    games += [("a", "b", 1.0)] * 6 + [("a", "b", 0.0)] * 4
    ratings = joint_ratings(["a", "b", "boss", "idle"], games)
    assert ratings["boss"].elo == math.inf
    assert round(ratings["a"].elo, 2) == round(elo(0.6) / 2, 2) == 35.22
    assert math.isnan(ratings["idle"].elo)  # no games: nothing places it
    # a > b > c, every game won: b in the middle is the anchor
    chain = joint_ratings(["a", "b", "c"], [("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 1.0)])
    assert [chain[x].elo for x in "abc"] == [math.inf, 0.0, -math.inf]
    assert all(math.isnan(r.elo) for r in joint_ratings(["a", "b"], []).values())


def _binary_games(seed: int) -> tuple[list[str], list[tuple[str, str, float]]]:
    import random

    rng = random.Random(seed)
    strength = {"p": 150.0, "q": 40.0, "r": 0.0, "s": -90.0}
    games = []
    for a, b in [(a, b) for a in strength for b in strength if a < b]:
        games += [
            (a, b, float(rng.random() < logistic(strength[a] - strength[b]))) for _ in range(60)
        ]
    return list(strength), games


def test_anchored_rating_without_anchor_or_prior_is_the_joint_rating() -> None:
    """No rung and no virtual pairs: the same maximum likelihood, mean 0. Games won or lost
    (a dispersion of 1, as the joint rating assumes) give about the same errors."""
    names, games = _binary_games(8)
    joint = joint_ratings(names, games)
    anchored = anchored_ratings(names, games, prior_pairs=0.0)
    for name in names:
        assert anchored[name].elo == pytest.approx(joint[name].elo, abs=1e-6)
        assert anchored[name].error == pytest.approx(joint[name].error, rel=0.1)


def test_anchored_rating_is_the_maximum_with_its_prior() -> None:
    """The docstring's case by hand: r pinned at +100; a and b each with one virtual drawn pair
    against +100. Moving a or b by 0.1 Elo either way lowers the log-likelihood."""
    pairs = [("a", "r", 0.75), ("a", "r", 0.5), ("b", "r", 0.25), ("a", "b", 1.0)]
    fitted = anchored_ratings(["a", "b", "r"], pairs, {"r": 100.0})

    def log_likelihood(r: dict[str, float]) -> float:
        def term(x: float, y: float, s: float) -> float:
            return s * math.log(logistic(x - y)) + (1 - s) * math.log(logistic(y - x))

        virtual = term(r["a"], 100.0, 0.5) + term(r["b"], 100.0, 0.5)
        return sum(term(r[a], r[b], s) for a, b, s in pairs) + virtual

    best = {name: rating.elo for name, rating in fitted.items()}
    assert best["r"] == 100.0 and fitted["r"].error == 0.0
    for name in "ab":
        for step in (-0.1, 0.1):
            assert log_likelihood({**best, name: best[name] + step}) < log_likelihood(best)


def test_anchored_errors_come_from_the_pairs_spread() -> None:
    """The same games fitted one by one and as pairs (two games of a couple averaged): half as
    many outcomes, each half as spread (a dispersion of about ½), so about the same errors
    and, the model being the same, about the same ratings."""
    names, games = _binary_games(9)
    halves = list(zip(games[::2], games[1::2], strict=True))
    as_pairs = [(a, b, (x + y) / 2) for (a, b, x), (_, _, y) in halves]
    assert all(a == a2 and b == b2 for (a, b, _), (a2, b2, _) in halves)
    games_fit = anchored_ratings(names, games, {"r": 0.0})
    pairs_fit = anchored_ratings(names, as_pairs, {"r": 0.0})
    for name in ("p", "q", "s"):
        assert pairs_fit[name].error == pytest.approx(games_fit[name].error, rel=0.1)
        assert pairs_fit[name].elo == pytest.approx(games_fit[name].elo, abs=5)
