"""Tournament statistics: score, Elo difference with its 95 % error, LOS, pentanomial pairs,
a joint maximum-likelihood rating and its anchored form for a ladder (the SPRT is the results' own,
:mod:`chaodipi.arena.results.sprt`).

The score formulas are cutechess-cli's and fastchess's (docs/report.md derives each one):
with ``s`` the mean score per game (or per pair), ``σ²`` its variance and ``N`` the games
(pairs), ``Elo(s) = −400 log10(1/s − 1)``, the error is half the width of
``[Elo(s − 1.96σ/√N), Elo(s + 1.96σ/√N)]``, and ``LOS = Φ((s − ½)/(σ/√N))``. docs/report.md
explains every number with a worked example.

A score of 0 or 1 has no finite Elo: ``elo`` returns ``-inf`` or ``inf`` there, never a
made-up number, and an error that cannot be measured (no spread) is ``inf``.

>>> e = elo_estimate(wins=60, losses=40, draws=0)
>>> round(e.elo, 1), round(e.error, 1), round(e.los, 4)
(70.4, 70.6, 0.9772)
>>> elo(1.0)
inf
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from chaodipi.arena.results import PAIR_SCORES

__all__ = [
    "MIN_PAIRS",
    "EloEstimate",
    "Rating",
    "anchored_ratings",
    "elo",
    "elo_estimate",
    "joint_ratings",
    "pentanomial_estimate",
    "wilson_interval",
]

_Z95 = NormalDist().inv_cdf(0.975)
_ELO_PER_NATURAL = 400 / math.log(10)
"""Elo points per unit of natural-log strength (Bradley–Terry's θ)."""
MIN_PAIRS = 10
"""The complete pairs a pairing needs before the report gives its Elo, LOS, score interval and
variance removed. They use the normal quantile 1.96 with the variance the pairs show; below 10
pairs Student's t quantile for N − 1 degrees of freedom is far from it (12.7 at 2 pairs, 3.18
at 4, 2.26 at 10), so the printed 95 % interval would truly cover 70 % at 2 pairs, 86 % at 4 and
92 % at 10, and a handful of pairs often shows no spread at all (LOS 100 % from 4 pairs won).
docs/report.md says so beside the numbers."""


def elo(score: float) -> float:
    """Elo difference of a mean score: ``−inf`` at 0 and below, ``inf`` at 1 and above."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference, its 95 % error, the likelihood of superiority and the sample.

    With no games, ``elo``, ``los`` and ``score`` are NaN; ``elo`` is ±inf when every result
    went one way; ``error`` is inf when it cannot be measured (no spread, or the interval
    reaches a score of 0 or 1)."""

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
        return EloEstimate(math.nan, math.inf, math.nan, math.nan, 0)
    score = sum(o * w for o, w in zip(outcomes, weights, strict=True)) / n
    variance = sum(w * (o - score) ** 2 for o, w in zip(outcomes, weights, strict=True)) / n
    spread = math.sqrt(variance / n)
    if spread == 0:  # every result alike: the sample says nothing about its own spread
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
        return EloEstimate(elo(score), math.inf, los, score, n, wilson_interval(score * n, n))
    low, high = max(0.0, score - _Z95 * spread), min(1.0, score + _Z95 * spread)
    los = NormalDist().cdf((score - 0.5) / spread)
    error = (elo(high) - elo(low)) / 2
    return EloEstimate(elo(score), error, los, score, n, (low, high))


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """From single games: W/L/D counts, with cutechess's LOS
    ``½ + ½ erf((W − L) / √(2(W + L)))``."""
    estimate = _estimate((1.0, 0.0, 0.5), (wins, losses, draws))
    decisive = wins + losses
    if wins + losses + draws == 0:
        return estimate
    los = 0.5 if decisive == 0 else 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2 * decisive))
    return replace(estimate, los=los)


def pentanomial_estimate(counts: Sequence[int]) -> EloEstimate:
    """From pairs of games (fastchess): a pair's score per game is 0, ¼, ½, ¾ or 1."""
    return _estimate(PAIR_SCORES, counts)


def wilson_interval(successes: float, n: int, z: float = _Z95) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


# --- joint rating ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's joint rating in Elo and its 95 % error.

    ``elo`` is finite; ``inf`` / ``-inf`` when the maximum-likelihood rating is unbounded
    (the bot, or its group, took every point from the bots below it, or lost every point to
    those above: no finite rating fits better than a larger one); NaN when its games do not
    place it at all (no games, or none that link it to the anchoring group). ``error`` is inf
    when unknown."""

    elo: float
    error: float

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.elo)


def _tally(
    names: Sequence[str], games: Iterable[tuple[str, str, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """Games played ``n[i, j]`` and points ``s[i, j]`` bot i took from bot j."""
    index = {name: i for i, name in enumerate(names)}
    n = np.zeros((len(names), len(names)))
    s = np.zeros((len(names), len(names)))
    for a, b, score in games:
        for name in (a, b):
            if name not in index:
                raise ValueError(f"{name} played but is not among the bots rated")
        i, j = index[a], index[b]
        if i == j:
            raise ValueError(f"{a} cannot play itself")
        if not 0 <= score <= 1:
            raise ValueError(f"{a}'s score against {b} is {score}, not between 0 and 1")
        n[i, j] += 1
        n[j, i] += 1
        s[i, j] += score
        s[j, i] += 1 - score
    return n, s


def _reach(took: np.ndarray) -> list[set[int]]:
    """For each bot, the bots it reaches by "took points from" steps (itself included)."""
    out: list[set[int]] = []
    for start in range(len(took)):
        seen, todo = {start}, [start]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(took[i]):
                if int(j) not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        out.append(seen)
    return out


def _anchor(groups: list[list[int]], reach: list[set[int]], played: np.ndarray) -> int | None:
    """The group whose mean is 0: the largest group that has played; among equally large
    ones the one with as many bots above it as below; None if that still ties."""
    candidates = [k for k, g in enumerate(groups) if played[g].sum() > 0]
    if not candidates:
        return None
    largest = max(len(groups[k]) for k in candidates)
    candidates = [k for k in candidates if len(groups[k]) == largest]

    def imbalance(k: int) -> int:
        member = groups[k][0]
        below = len(reach[member]) - largest
        above = sum(1 for i in range(len(reach)) if member in reach[i]) - largest
        return abs(below - above)

    best = min(imbalance(k) for k in candidates)
    chosen = [k for k in candidates if imbalance(k) == best]
    return chosen[0] if len(chosen) == 1 else None


def _fit_group(n: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bradley–Terry maximum likelihood within a strongly connected group (draws count half):
    θ in natural-log units with mean 0, and each θ's standard error (Fisher information)."""
    k = len(n)
    if k == 1:
        return np.zeros(1), np.full(1, math.inf)

    def full(free: np.ndarray) -> np.ndarray:
        return np.concatenate(([0.0], free))

    def negative_log_likelihood(free: np.ndarray) -> float:
        theta = full(free)
        diff = theta[:, None] - theta[None, :]
        return float((s * np.logaddexp(0.0, -diff)).sum())  # −Σ s_ij log σ(θi − θj)

    def gradient(free: np.ndarray) -> np.ndarray:
        return -_score_equations(full(free), n, s)[1:]

    def hessian(free: np.ndarray) -> np.ndarray:
        return _information(full(free), n)[1:, 1:]

    from scipy.optimize import minimize  # imported here: scipy.optimize takes 0.3 s to load

    fit = minimize(
        negative_log_likelihood,
        np.zeros(k - 1),
        jac=gradient,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-10},
    )
    theta = full(fit.x)
    theta -= theta.mean()
    covariance = np.linalg.pinv(_information(theta, n))  # the mean-0 constraint's covariance
    return theta, np.sqrt(np.clip(np.diag(covariance), 0.0, None))


def _score_equations(theta: np.ndarray, n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The log-likelihood's gradient: each bot's points minus its expected points."""
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    result: np.ndarray = (s - n * p).sum(axis=1)
    return result


def _information(theta: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The Fisher information (minus the log-likelihood's Hessian): a weighted Laplacian."""
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    weights = n * p * (1 - p)
    result: np.ndarray = np.diag(weights.sum(axis=1)) - weights
    return result


def joint_ratings(
    names: Sequence[str], games: Iterable[tuple[str, str, float]]
) -> dict[str, Rating]:
    """Maximum-likelihood Elo ratings of several bots from (a, b, a's score) games: the
    Bradley–Terry model Ordo and BayesElo fit, a draw counting half a win.

    The likelihood has a finite maximum only among bots linked both ways ("a took points
    from b" chains lead from each to each): such a group is fitted alone, the others are
    infinitely far from it. The largest group (``_anchor``) has mean 0; a group that took
    every point from it is ``inf``, one that lost every point to it ``-inf``, one its games
    do not link to it NaN. Errors: 95 %, from the fit's Fisher information (games taken as
    independent)."""
    n, s = _tally(names, games)
    reach = _reach(s > 0)
    groups: list[list[int]] = []
    for i in range(len(names)):
        if not any(i in g for g in groups):
            groups.append([j for j in sorted(reach[i]) if i in reach[j]])
    anchor = _anchor(groups, reach, n)
    ratings: dict[str, Rating] = {}
    for k, group in enumerate(groups):
        if k == anchor:
            theta, se = _fit_group(n[np.ix_(group, group)], s[np.ix_(group, group)])
            for i, t, e in zip(group, theta, se, strict=True):
                ratings[names[i]] = Rating(
                    float(_ELO_PER_NATURAL * t), float(_Z95 * _ELO_PER_NATURAL * e)
                )
            continue
        side = _side(group, None if anchor is None else groups[anchor], reach)
        for i in group:
            ratings[names[i]] = Rating(side, math.inf)
    return {name: ratings[name] for name in names}


def _side(group: list[int], anchor: list[int] | None, reach: list[set[int]]) -> float:
    """``inf`` above the anchor group, ``-inf`` below it, NaN if unlinked. With no anchor
    group (equally large groups tie): above if more bots lie below the group than above."""
    member = group[0]
    if anchor is not None:
        if anchor[0] in reach[member]:
            return math.inf
        if member in reach[anchor[0]]:
            return -math.inf
        return math.nan
    below = len(reach[member]) - len(group)
    above = sum(1 for r in reach if member in r) - len(group)
    if below == above:
        return math.nan
    return math.inf if below > above else -math.inf


# --- anchored rating (a ladder's refit) ----------------------------------------------------

_DISPERSION_GUESS = 0.5
"""The dispersion a pair score is taken to have before the pairs show theirs: the variance of
the mean of two independent games without draws, p(1 − p) / 2, over a game's p(1 − p). Draws
and the duplicate deal make the pairs' true dispersion smaller (about 0.25 to 0.35 in the
arena's ladder rows), so the guess errs wide."""
_DISPERSION_GUESS_DF = 10
"""The residual degrees of freedom the guess counts as, like ``MIN_PAIRS``: with 10 pairs over
the fitted ratings the pairs' own spread has as much say as the guess, with 100 ten times
more."""


def anchored_ratings(
    names: Sequence[str],
    pairs: Iterable[tuple[str, str, float]],
    pinned: Mapping[str, float] | None = None,
    *,
    prior_pairs: float = 1.0,
) -> dict[str, Rating]:
    """Elo ratings of several bots from (a, b, a's pair score) pairs, the ``pinned`` bots'
    Elo fixed: Bradley–Terry fitted by quasi-likelihood, a pair's score (0, ¼, ½, ¾ or 1)
    its outcome, the spread the pairs show setting the error. Order-free: the pairs' order
    changes nothing.

    - **Anchors.** A pinned bot keeps its Elo and an error of 0; with no pinned bot the
      ratings have mean 0.
    - **Prior.** Each other bot plays ``prior_pairs`` virtual pairs drawn (score ½) against
      a virtual bot at the pinned bots' mean Elo (0 with none), as MIT Pokerbots' two
      virtual draws: a bot that won every pair gets a finite rating and a wide error, a bot
      with no pairs the anchors' mean.
    - **Error.** 95 %, from the information the pairs (and the virtual ones) give, times the
      dispersion φ: Pearson's X² of the pairs over their residual degrees of freedom, pooled
      with a guess of ½ worth 10 degrees of freedom (``_DISPERSION_GUESS``). A pair score
      the mean of two independent games without draws has φ = ½; draws and the duplicate
      deal make it smaller.

    >>> pairs = [("a", "r", 0.75), ("a", "r", 0.5), ("b", "r", 0.25), ("a", "b", 1.0)]
    >>> ratings = anchored_ratings(["a", "b", "r"], pairs, {"r": 100.0})
    >>> ratings["r"]
    Rating(elo=100.0, error=0.0)
    >>> round(ratings["a"].elo), round(ratings["b"].elo), ratings["a"].error > 200
    (203, -60, True)
    """
    pinned = dict(pinned or {})
    for name in pinned:
        if name not in names:
            raise ValueError(f"{name} is pinned but is not among the bots rated")
    played = list(pairs)
    n, s = _tally(names, played)
    k = len(names)
    fixed = np.array([pinned.get(name, 0.0) / _ELO_PER_NATURAL for name in names])
    free = [i for i, name in enumerate(names) if name not in pinned]
    centre = float(np.mean([fixed[i] for i, name in enumerate(names) if name in pinned] or [0]))
    prior = np.zeros(k)
    prior[free] = prior_pairs
    basis = _free_basis(k, free, centred=not pinned)

    def theta(u: np.ndarray) -> np.ndarray:
        result: np.ndarray = fixed + basis @ u
        return result

    def negative_log_likelihood(u: np.ndarray) -> float:
        t = theta(u)
        diff = t[:, None] - t[None, :]
        virtual = prior * (np.logaddexp(0.0, centre - t) + np.logaddexp(0.0, t - centre)) / 2
        return float((s * np.logaddexp(0.0, -diff)).sum() + virtual.sum())

    def gradient(u: np.ndarray) -> np.ndarray:
        t = theta(u)
        virtual = prior * (0.5 - 1 / (1 + np.exp(centre - t)))
        result: np.ndarray = -basis.T @ (_score_equations(t, n, s) + virtual)
        return result

    def hessian(u: np.ndarray) -> np.ndarray:
        result: np.ndarray = basis.T @ _information_with_prior(theta(u), n, prior, centre) @ basis
        return result

    if basis.shape[1] == 0:
        t = fixed
        covariance = np.zeros((k, k))
    else:
        from scipy.optimize import minimize  # imported here: scipy.optimize takes 0.3 s to load

        fit = minimize(
            negative_log_likelihood,
            np.zeros(basis.shape[1]),
            jac=gradient,
            hess=hessian,
            method="trust-exact",
            options={"gtol": 1e-10},
        )
        t = theta(fit.x)
        index = {name: i for i, name in enumerate(names)}
        outcomes = [(index[a], index[b], score) for a, b, score in played]
        dispersion = _dispersion(t, outcomes, basis.shape[1])
        covariance = dispersion * basis @ np.linalg.inv(hessian(fit.x)) @ basis.T
    errors = _Z95 * _ELO_PER_NATURAL * np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    return {
        name: Rating(pinned[name], 0.0)
        if name in pinned
        else Rating(float(_ELO_PER_NATURAL * t[i]), float(errors[i]))
        for i, name in enumerate(names)
    }


def _free_basis(k: int, free: list[int], *, centred: bool) -> np.ndarray:
    """The directions the free ratings move in: one per free bot; with ``centred`` (no bot
    pinned) an orthonormal basis of the ratings with sum 0 instead."""
    basis = np.zeros((k, len(free)))
    basis[free, range(len(free))] = 1.0
    if not centred or k < 2:
        return basis
    # the complement of the all-ones vector: QR of [1 | I] without its first column
    q, _ = np.linalg.qr(np.column_stack([np.ones(k), np.eye(k)[:, : k - 1]]))
    result: np.ndarray = q[:, 1:]
    return result


def _information_with_prior(
    theta: np.ndarray, n: np.ndarray, prior: np.ndarray, centre: float
) -> np.ndarray:
    """``_information`` plus the virtual pairs' against a bot at ``centre``."""
    p = 1 / (1 + np.exp(centre - theta))
    result: np.ndarray = _information(theta, n) + np.diag(prior * p * (1 - p))
    return result


def _dispersion(theta: np.ndarray, pairs: list[tuple[int, int, float]], fitted: int) -> float:
    """Pearson's X² of the pairs over their residual degrees of freedom, pooled with
    ``_DISPERSION_GUESS``."""
    x2 = 0.0
    for i, j, score in pairs:
        p = 1 / (1 + math.exp(theta[j] - theta[i]))
        x2 += (score - p) ** 2 / (p * (1 - p))
    df = max(len(pairs) - fitted, 0)
    return (x2 + _DISPERSION_GUESS * _DISPERSION_GUESS_DF) / (df + _DISPERSION_GUESS_DF)
