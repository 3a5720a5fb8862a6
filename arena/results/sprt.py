"""The SPRT a two-bot tournament stops by: Wald's sequential probability ratio test on the
exact pentanomial likelihood ratio of complete duplicate pairs (fishtest's ``LLR_logistic``),
checked after every pair. The tournament's recorder runs it as games come
(:mod:`chaodipi.arena.tournament.recorder`), each run's hypotheses are stored with it
(:class:`chaodipi.arena.results.rows.StoredRun`), and the report prints it
(:mod:`chaodipi.arena.report.summary`); docs/report.md explains it.

A pair of games on one deal scores 0, ½, 1, 1½ or 2 points for the tested bot: its
pentanomial counts (LL, LD, WL+DD, WD, WW).

>>> pentanomial([2.0, 1.5, 1.0, 1.0])
(0, 0, 2, 1, 1)
>>> print(sprt(SprtTest(0, 50, 0.05, 0.05), [0, 0, 0, 0, 23]))
H1 accepted (elo0 0, elo1 50, α 0.05, β 0.05): LLR 3.07 ≥ 2.94 after 23 pairs
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "EMPTY_BUCKET",
    "PAIR_SCORES",
    "SprtResult",
    "SprtTest",
    "logistic",
    "pentanomial",
    "pentanomial_llr",
    "pentanomial_with_score",
    "sprt",
    "sprt_bounds",
]

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's mean score per game in each pentanomial bucket: LL, LD, WL+DD, WD, WW."""
EMPTY_BUCKET = 1e-3
"""The count an empty pentanomial bucket gets in the SPRT (fishtest's regularisation)."""


def logistic(elo_difference: float) -> float:
    """The expected score of an Elo difference (the inverse of ``elo``)."""
    return 1 / (1 + 10 ** (-elo_difference / 400))


def pentanomial(pair_scores: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts of pairs scoring 0, ½, 1, 1½, 2 points (LL, LD, WL+DD, WD, WW)."""
    counts = [0, 0, 0, 0, 0]
    for score in pair_scores:
        counts[round(score * 2)] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """SPRT decision bounds (lower, upper) on the log-likelihood ratio (Wald's)."""
    return (math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def pentanomial_with_score(frequencies: Sequence[float], mean: float) -> list[float]:
    """The pentanomial distribution most likely to give ``frequencies`` (all positive, summing
    to 1) among those whose expected pair score per game is ``mean`` (Van den Bergh):
    ``qᵢ = pᵢ / (1 + x (aᵢ − mean))``, with the Lagrange multiplier ``x`` the root of
    ``Σ pᵢ (aᵢ − mean) / (1 + x (aᵢ − mean)) = 0``.

    That sum falls strictly in ``x`` between the poles ``−1/(1 − mean)`` and ``1/mean`` (every
    frequency is positive), so a bracketing root finder cannot miss the root."""
    shifts = [a - mean for a in PAIR_SCORES]

    def secular(x: float) -> float:
        return sum(p * d / (1 + x * d) for p, d in zip(frequencies, shifts, strict=True))

    low, high = -1 / max(shifts), -1 / min(shifts)
    margin = (high - low) * 1e-14
    from scipy.optimize import brentq  # imported here: scipy.optimize takes 0.3 s to load

    x = brentq(secular, low + margin, high - margin, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return [p / (1 + x * d) for p, d in zip(frequencies, shifts, strict=True)]


def pentanomial_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo ``elo1``) over H0 (``elo0``) of pentanomial pair
    counts (LL, LD, WL+DD, WD, WW): fishtest's ``LLR_logistic``. Each hypothesis is the
    maximum-likelihood pentanomial distribution whose expected score is the logistic score of
    its Elo; an empty bucket counts ``EMPTY_BUCKET`` pairs. No pairs give 0.

    >>> round(pentanomial_llr([0, 0, 0, 0, 23], 0, 50), 3)
    3.073
    """
    if len(counts) != len(PAIR_SCORES):
        raise ValueError(f"pentanomial counts have 5 buckets, not {len(counts)}")
    if sum(counts) == 0:
        return 0.0
    regular = [c if c > 0 else EMPTY_BUCKET for c in counts]
    total = sum(regular)
    frequencies = [c / total for c in regular]
    h0 = pentanomial_with_score(frequencies, logistic(elo0))
    h1 = pentanomial_with_score(frequencies, logistic(elo1))
    return sum(c * math.log(q1 / q0) for c, q0, q1 in zip(regular, h0, h1, strict=True))


@dataclass(frozen=True, slots=True)
class SprtTest:
    """A sequential probability ratio test: H0 Elo ``elo0``, H1 Elo ``elo1`` (elo0 < elo1),
    with false-H1 rate ``alpha`` under H0 and false-H0 rate ``beta`` under H1."""

    elo0: float
    elo1: float
    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1) or not self.elo0 < self.elo1:
            raise ValueError("an SPRT needs elo0 < elo1 and 0 < alpha, beta < 1")

    def describe(self) -> str:
        """``elo0 0, elo1 50, α 0.05, β 0.05``."""
        return (
            f"elo0 {_num(self.elo0)}, elo1 {_num(self.elo1)}, "
            f"α {_num(self.alpha)}, β {_num(self.beta)}"
        )


@dataclass(frozen=True, slots=True)
class SprtResult:
    """An SPRT's state after ``pairs`` complete pairs: the LLR, its bounds and the verdict
    ("H0", "H1", or None to go on playing)."""

    test: SprtTest
    llr: float
    lower: float
    upper: float
    pairs: int
    verdict: str | None

    def as_dict(self) -> dict[str, Any]:
        """Plain, strict-JSON-safe values (every number here is finite)."""
        return {
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "pairs": self.pairs,
            "verdict": self.verdict,
        }

    def __str__(self) -> str:
        hypotheses = self.test.describe()
        llr, low, up = (_num(x, ".2f") for x in (self.llr, self.lower, self.upper))
        after = f"after {self.pairs} pair{'' if self.pairs == 1 else 's'}"
        if self.verdict == "H1":
            return f"H1 accepted ({hypotheses}): LLR {llr} ≥ {up} {after}"
        if self.verdict == "H0":
            return f"H0 accepted ({hypotheses}): LLR {llr} ≤ {low} {after}"
        return f"continue ({hypotheses}): LLR {llr} in ({low}, {up}) {after}"


def _num(value: float, spec: str = "g") -> str:
    """A number with a real minus sign."""
    return format(value, spec).replace("-", "−")


def sprt(test: SprtTest, counts: Sequence[int]) -> SprtResult:
    """The SPRT on pentanomial pair counts (LL, LD, WL+DD, WD, WW): accept H1 once the LLR
    reaches the upper bound, H0 once it falls to the lower one. Check after every pair."""
    llr = pentanomial_llr(counts, test.elo0, test.elo1)
    lower, upper = sprt_bounds(test.alpha, test.beta)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtResult(test, llr, lower, upper, int(sum(counts)), verdict)
