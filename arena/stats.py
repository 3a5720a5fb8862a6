"""Tournament statistics: score, Elo difference with its 95 % error, LOS, pentanomial pairs,
SPRT, and a joint maximum-likelihood rating for several bots.

The formulas are cutechess-cli's and fastchess's (../shared/notes/arena-statistics.md): with
``s`` the mean score per game (or per pair), ``σ²`` its variance and ``N`` the games (pairs),
``Elo(s) = −400 log10(1/s − 1)``, the error is half the width of
``[Elo(s − 1.96σ/√N), Elo(s + 1.96σ/√N)]``, and ``LOS = Φ((s − ½)/(σ/√N))``.

>>> e = elo_estimate(wins=60, losses=40, draws=0)
>>> round(e.elo, 1), round(e.error, 1), round(e.los, 4)
(70.4, 70.6, 0.9772)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

__all__ = [
    "EloEstimate",
    "elo",
    "elo_estimate",
    "joint_ratings",
    "pentanomial",
    "pentanomial_estimate",
    "sprt_bounds",
    "sprt_llr",
    "wilson_interval",
]

_Z95 = NormalDist().inv_cdf(0.975)


def elo(score: float) -> float:
    """Elo difference of a mean score (0 < score < 1)."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference, its 95 % error, the likelihood of superiority and the sample."""

    elo: float
    error: float
    los: float
    score: float
    n: int
    score_interval: tuple[float, float] = (0.0, 1.0)
    """The mean score's 95 % interval: normal, from the outcomes' spread; Wilson's when every
    outcome is alike (the sample then shows no spread, yet n alike results still bound it)."""


def _estimate(outcomes: Sequence[float], weights: Sequence[int]) -> EloEstimate:
    n = sum(weights)
    if n == 0:
        return EloEstimate(0.0, math.inf, 0.5, 0.5, 0)
    score = sum(o * w for o, w in zip(outcomes, weights, strict=True)) / n
    variance = sum(w * (o - score) ** 2 for o, w in zip(outcomes, weights, strict=True)) / n
    spread = math.sqrt(variance / n)
    if spread == 0:  # every result alike: the sample says nothing about its own spread
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
        return EloEstimate(elo(score), math.inf, los, score, n, wilson_interval(score * n, n))
    low, high = score - _Z95 * spread, score + _Z95 * spread
    los = NormalDist().cdf((score - 0.5) / spread)
    error = (elo(high) - elo(low)) / 2
    return EloEstimate(elo(score), error, los, score, n, (max(0.0, low), min(1.0, high)))


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """From single games: W/L/D counts, with cutechess's LOS
    ``½ + ½ erf((W − L) / √(2(W + L)))``."""
    estimate = _estimate((1.0, 0.0, 0.5), (wins, losses, draws))
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2 * decisive))
    return replace(estimate, los=los)


def pentanomial(pair_scores: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts of pairs scoring 0, ½, 1, 1½, 2 points (LL, LD, WL+DD, WD, WW)."""
    counts = [0, 0, 0, 0, 0]
    for score in pair_scores:
        counts[round(score * 2)] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def pentanomial_estimate(counts: Sequence[int]) -> EloEstimate:
    """From pairs of games (fastchess): a pair's score per game is 0, ¼, ½, ¾ or 1."""
    return _estimate((0.0, 0.25, 0.5, 0.75, 1.0), counts)


def wilson_interval(successes: float, n: int, z: float = _Z95) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """SPRT decision bounds (lower, upper) on the log-likelihood ratio."""
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def sprt_llr(
    outcomes: Sequence[float], weights: Sequence[float], elo0: float, elo1: float
) -> float:
    """Approximate log-likelihood ratio of H1 (elo1) over H0 (elo0) (fishtest's normal form).

    Pass pseudo-counts (e.g. +0.5 per bucket) when every result may be the same: with zero
    variance the normal approximation says nothing and this returns 0."""
    n = sum(weights)
    if n == 0:
        return 0.0
    score = sum(o * w for o, w in zip(outcomes, weights, strict=True)) / n
    variance = sum(w * (o - score) ** 2 for o, w in zip(outcomes, weights, strict=True)) / n
    if variance == 0:
        return 0.0
    s0, s1 = 1 / (1 + 10 ** (-elo0 / 400)), 1 / (1 + 10 ** (-elo1 / 400))
    return n * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)


def joint_ratings(
    names: Sequence[str], games: Iterable[tuple[str, str, float]], iterations: int = 500
) -> dict[str, float]:
    """Maximum-likelihood Elo ratings of several players, mean 0, from (a, b, a's score) games:
    a Bradley-Terry fit by minorization-maximization (the model Ordo and BayesElo fit). Each
    player gets one virtual draw against an average player, so unbeaten players stay finite."""
    index = {name: i for i, name in enumerate(names)}
    wins = [0.5] * len(names)
    meetings: list[dict[int, float]] = [{} for _ in names]
    for a, b, score in games:
        i, j = index[a], index[b]
        wins[i] += score
        wins[j] += 1 - score
        meetings[i][j] = meetings[i].get(j, 0.0) + 1
        meetings[j][i] = meetings[j].get(i, 0.0) + 1
    strength = [1.0] * len(names)
    for _ in range(iterations):
        updated = [
            wins[i]
            / (
                1 / (strength[i] + 1)
                + sum(n / (strength[i] + strength[j]) for j, n in meetings[i].items())
            )
            for i in range(len(names))
        ]
        mean = math.exp(sum(math.log(x) for x in updated) / len(updated))
        strength = [x / mean for x in updated]
    return {name: 400 * math.log10(strength[index[name]]) for name in names}
