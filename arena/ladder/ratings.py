"""A version's rating on the ladder: the live rating, moved after every pair, and the refit,
order-free, over all pairs (docs/ladder.md).

**The live rating** is a Gaussian belief N(μ, σ²) about the version's strength, on the scale
of OpenSkill's Bradley–Terry models (μ 25, σ 25/3 and β 25/6 for a newcomer). Their
probability that a beats b is ``1 / (1 + exp(−(μa − μb) / c))`` with ``c = √(2β² + σa² +
σb²)``; as the σs go to 0, ``c → √2·β``, and Elo's ``1 / (1 + 10^(−ΔElo / 400))`` is the same
curve exactly when ``ΔElo · ln 10 / 400 = Δμ / (√2·β)``, that is

    ΔElo = Δμ · 400 / (√2 · β · ln 10) = Δμ · ELO_PER_MU  (29.48 Elo a unit of μ at β = 25/6).

A pair moves it by a Glicko-style update that takes the pair's score (0, ¼, ½, ¾ or 1)
itself: with ``c = √(2β² + σb²)`` (the opponent's uncertainty flattens the curve, as Glicko's
g(RD)) and ``p`` the expected score, ``1/σa'² = 1/σa² + p(1 − p)/c²`` and
``μa' = μa + σa'² (s − p)/c``. No τ: a version does not change, so σ only shrinks (OpenSkill's
``limit_sigma`` holds by construction). A pinned version (a rung) keeps its μ, set from its
bench Elo, and a small fixed σ (``PINNED_SIGMA``); its opponent moves.

Why not OpenSkill's ``model.rate`` (BradleyTerryFull, τ 0, ``limit_sigma``), which takes a
pair as won (score > ½), drawn or lost: that throws away the pair's ¼ and ¾ (a version that
scores 64 % a game wins 46 % of the arena's pairs, draws 42 % and loses 13 %), and its μs
settle slowly. Measured by ``benchmarks/ladder_ratings.py`` (8 versions 100 Elo apart, 3 of
them pinned rungs, pairs of the arena's pentanomial shape between random couples, 200
seeds), at 20 and 60 pairs a version:

===========================================  =====================  ======================
rating                                       all 8 in the right      RMS Elo error of the
                                             order (20 / 60 pairs)   5 unpinned (20 / 60)
===========================================  =====================  ======================
live, this update on the pair's score        47.5 % / 92.0 %         65 / 40
live, OpenSkill on the pair won/drawn/lost   37.5 % / 69.5 %         87 / 84
live, OpenSkill on the pair's two games      40.5 % / 77.0 %         96 / 70
refit                                        46.0 % / 90.5 %         70 / 43
===========================================  =====================  ======================

The live order is the refit's in 95 % of the seeds at 60 pairs a version, 99 % at 100.

Only μ and σ after a version's last pair make its live rating: the service stores them with
every pair and restores a version with ``LiveRating(mu, sigma)``, never by replaying pairs.

**The refit** is :func:`chaodipi.arena.report.anchored_ratings` on every pair: Bradley–Terry
by quasi-likelihood on pair scores, the rungs' Elo fixed, one virtual drawn pair against the
rungs' mean as the prior, and a 95 % interval from the spread the pairs show. A version is
``provisional`` while its interval's half-width is ``PROVISIONAL_WIDTH`` Elo or more.

>>> a, rung = LiveRating.newcomer(), LiveRating.pinned_at(100.0)
>>> a2, rung2 = rate_pair(a, rung, 0.75)
>>> rung2 == rung, round(a2.elo), round(a2.error)
(True, 92, 400)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from chaodipi.arena.report import Rating, anchored_ratings

__all__ = [
    "BETA",
    "ELO_PER_MU",
    "MU",
    "PINNED_SIGMA",
    "PROVISIONAL_WIDTH",
    "SIGMA",
    "LiveRating",
    "provisional",
    "rate_pair",
    "refit",
]

MU = 25.0
"""A newcomer's μ at Elo 0 (OpenSkill's default μ): ``elo = (μ − MU) · ELO_PER_MU``."""
SIGMA = 25.0 / 3.0
"""A newcomer's σ (OpenSkill's default): 246 Elo."""
BETA = 25.0 / 6.0
"""The spread of one pair's performance (OpenSkill's default β): it sets the scale."""
ELO_PER_MU = 400 / (math.sqrt(2) * BETA * math.log(10))
"""Elo points per unit of μ: the factor that makes the win probability Elo's at σ → 0."""
PINNED_SIGMA = 1.0
"""A pinned rung's fixed σ: 29 Elo, about a rung's bench error (README's strength ladder)."""
PROVISIONAL_WIDTH = 100.0
"""The half-width in Elo of the 95 % interval under which a version stops being provisional."""
_Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class LiveRating:
    """A version's live rating: μ and σ on OpenSkill's scale, and whether it is pinned.

    Restore a stored one with ``LiveRating(mu, sigma)``, a rung with ``pinned_at``.

    >>> LiveRating(MU + 2.0, 1.5).elo == 2 * ELO_PER_MU
    True
    """

    mu: float
    sigma: float
    pinned: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(
                f"a live rating needs a finite μ and σ > 0, not {self.mu}, {self.sigma}"
            )

    @classmethod
    def newcomer(cls, elo: float = 0.0) -> LiveRating:
        """A version with no pair yet: σ ``SIGMA``, centred on ``elo``."""
        return cls(MU + elo / ELO_PER_MU, SIGMA)

    @classmethod
    def pinned_at(cls, elo: float) -> LiveRating:
        """A rung: its μ at its bench ``elo``, σ ``PINNED_SIGMA``, never moved by a pair."""
        return cls(MU + elo / ELO_PER_MU, PINNED_SIGMA, pinned=True)

    @property
    def elo(self) -> float:
        """μ on the Elo scale."""
        return (self.mu - MU) * ELO_PER_MU

    @property
    def error(self) -> float:
        """The 95 % interval's half-width in Elo: 1.96 σ."""
        return _Z95 * self.sigma * ELO_PER_MU


def rate_pair(a: LiveRating, b: LiveRating, score: float) -> tuple[LiveRating, LiveRating]:
    """Both versions' live ratings after a pair in which ``a`` scored ``score`` (0 … 1, the
    mean of its two games); a pinned one comes back unchanged.

    >>> a, b = LiveRating.newcomer(), LiveRating.newcomer()
    >>> a2, b2 = rate_pair(a, b, 0.5)
    >>> a2.mu == b2.mu == MU, a2.sigma < SIGMA
    (True, True)
    """
    if not 0 <= score <= 1:
        raise ValueError(f"a pair's score is between 0 and 1, not {score}")
    return _moved(a, b, score), _moved(b, a, 1 - score)


def _moved(own: LiveRating, opponent: LiveRating, score: float) -> LiveRating:
    if own.pinned:
        return own
    c = math.sqrt(2 * BETA**2 + opponent.sigma**2)
    expected = 1 / (1 + math.exp((opponent.mu - own.mu) / c))
    variance = 1 / (1 / own.sigma**2 + expected * (1 - expected) / c**2)
    return LiveRating(own.mu + variance * (score - expected) / c, math.sqrt(variance))


def refit(
    versions: Sequence[str],
    pairs: Iterable[tuple[str, str, float]],
    pinned: Mapping[str, float],
) -> dict[str, Rating]:
    """Every version's Elo and 95 % error from all ``pairs`` (version a, version b, a's pair
    score), the ``pinned`` rungs' Elo fixed (mean 0 with none), each other version given one
    virtual drawn pair against the rungs' mean. The pairs' order changes nothing.

    >>> pairs = [("new", "rung", 1.0)] * 3
    >>> ratings = refit(["new", "rung"], pairs, {"rung": 0.0})
    >>> ratings["rung"], round(ratings["new"].elo), provisional(ratings["new"])
    (Rating(elo=0.0, error=0.0), 338, True)
    """
    return anchored_ratings(versions, pairs, pinned, prior_pairs=1.0)


def provisional(rating: Rating | LiveRating, width: float = PROVISIONAL_WIDTH) -> bool:
    """Whether a rating is still provisional: its 95 % interval's half-width is ``width`` Elo
    or more. A pinned rung's refit rating (error 0) never is.

    >>> provisional(Rating(120.0, 99.0)), provisional(LiveRating.newcomer())
    (False, True)
    """
    return not rating.error < width
