"""The ladder's live rating against OpenSkill's, and both against the refit, on simulated pairs.

    python3 benchmarks/ladder_ratings.py [--seeds 200] [--gap 100] [--pairs 10,20,40,60]
                                         [--shape 11,19,73,24,23]

Eight versions ``--gap`` Elo apart, three of them pinned rungs (the 2nd, 5th and 7th weakest),
play pairs between couples drawn at random. Each pair's score is drawn from a pentanomial
distribution of the shape ``--shape`` (the montecarlo vs heuristic ladder's pairs, as
benchmarks/sprt_errors.py) tilted to the logistic score of the two versions' Elo difference.
The other versions start at the rungs' mean Elo. After each number of ``--pairs`` a version,
for each way of rating: how often the order of all eight is the truth's, the mean Kendall τ
with the truth, and the root-mean-square error of the five unpinned versions' Elo; and how
often the live order is the refit's.

The ways: the ladder's live update on the pair's score (``rate_pair``); OpenSkill 6.2's
BradleyTerryFull (τ 0, ``limit_sigma``) on the pair as won, drawn or lost; the same on the
pair's two games as two updates (a pair scoring ½ taken as a win and a loss or two draws,
even odds: the pentanomial does not tell them apart); and the refit over all pairs so far.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
from openskill.models import BradleyTerryFull, BradleyTerryFullRating
from scipy.stats import kendalltau

from chaodipi.arena.ladder import LiveRating, rate_pair, refit
from chaodipi.arena.results import PAIR_SCORES, logistic, pentanomial_with_score

PINNED = (1, 4, 6)
MODEL = BradleyTerryFull(tau=0.0, limit_sigma=True)
WAYS = ("pair score", "OpenSkill pair W/D/L", "OpenSkill two games", "refit")


def _openskill(
    a: LiveRating, b: LiveRating, outcomes: list[float]
) -> tuple[LiveRating, LiveRating]:
    """OpenSkill's update for each game score in ``outcomes``; a pinned side stays put."""
    for outcome in outcomes:
        ranks = [0.0, 1.0] if outcome == 1 else [1.0, 0.0] if outcome == 0 else [0.0, 0.0]
        teams: list[list[BradleyTerryFullRating]] = [
            [MODEL.rating(mu=a.mu, sigma=a.sigma)],
            [MODEL.rating(mu=b.mu, sigma=b.sigma)],
        ]
        [[x], [y]] = MODEL.rate(teams, ranks=ranks)
        a = a if a.pinned else LiveRating(x.mu, x.sigma)
        b = b if b.pinned else LiveRating(y.mu, y.sigma)
    return a, b


def one_run(
    seed: int, truth: list[float], shape: list[float], checkpoints: list[int]
) -> dict[tuple[str, int], list[float]]:
    """Every way's Elo of each version at each checkpoint of one seeded run."""
    rng = np.random.default_rng(seed)
    names = [str(i) for i in range(len(truth))]
    pinned = {names[i]: truth[i] for i in PINNED}
    centre = float(np.mean(list(pinned.values())))
    start = [
        LiveRating.pinned_at(truth[i]) if names[i] in pinned else LiveRating.newcomer(centre)
        for i in range(len(truth))
    ]
    live = {way: list(start) for way in WAYS[:3]}
    couples = list(itertools.combinations(range(len(truth)), 2))
    odds = {
        (i, j): pentanomial_with_score(shape, logistic(truth[i] - truth[j])) for i, j in couples
    }
    pairs: list[tuple[str, str, float]] = []
    out: dict[tuple[str, int], list[float]] = {}
    for played in range(1, max(checkpoints) * len(truth) // 2 + 1):
        i, j = couples[rng.integers(len(couples))]
        score = PAIR_SCORES[rng.choice(5, p=odds[i, j])]
        pairs.append((names[i], names[j], score))
        games = {0.0: [0.0, 0.0], 0.25: [0.0, 0.5], 0.75: [1.0, 0.5], 1.0: [1.0, 1.0]}.get(
            score, [1.0, 0.0] if rng.random() < 0.5 else [0.5, 0.5]
        )
        for way, outcomes in (
            ("pair score", None),
            ("OpenSkill pair W/D/L", [1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5]),
            ("OpenSkill two games", games),
        ):
            a, b = live[way][i], live[way][j]
            live[way][i], live[way][j] = (
                rate_pair(a, b, score) if outcomes is None else _openskill(a, b, outcomes)
            )
        per_version = 2 * played // len(truth)
        if 2 * played % len(truth) == 0 and per_version in checkpoints:
            for way in WAYS[:3]:
                out[way, per_version] = [r.elo for r in live[way]]
            fitted = refit(names, pairs, pinned)
            out["refit", per_version] = [fitted[name].elo for name in names]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--gap", type=float, default=100.0)
    parser.add_argument("--pairs", default="10,20,40,60")
    parser.add_argument("--shape", default="11,19,73,24,23")
    args = parser.parse_args()
    checkpoints = [int(x) for x in args.pairs.split(",")]
    counts = [float(x) for x in args.shape.split(",")]
    shape = [c / sum(counts) for c in counts]
    truth = [args.gap * (i - 3) for i in range(8)]
    free = [i for i in range(len(truth)) if i not in PINNED]
    right = list(range(len(truth)))
    tally: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    agree: dict[int, list[bool]] = {}
    started = time.perf_counter()
    for seed in range(args.seeds):
        out = one_run(seed, truth, shape, checkpoints)
        for (way, n), elos in out.items():
            exact = float(list(np.argsort(elos)) == right)
            tau = float(kendalltau(truth, elos).statistic)
            rms = math.sqrt(sum((elos[i] - truth[i]) ** 2 for i in free) / len(free))
            tally.setdefault((way, n), []).append((exact, tau, rms))
        for n in checkpoints:
            agree.setdefault(n, []).append(
                list(np.argsort(out["pair score", n])) == list(np.argsort(out["refit", n]))
            )
    print(f"{args.seeds} seeds, 8 versions {args.gap:g} Elo apart, 3 pinned ", end="")
    print(f"({time.perf_counter() - started:.0f} s)")
    print(f"{'way':22} {'pairs':>5} {'order right':>11} {'Kendall τ':>9} {'RMS Elo':>8}")
    for n in checkpoints:
        for way in WAYS:
            rows = np.array(tally[way, n])
            exact, tau, rms = rows.mean(axis=0)
            print(f"{way:22} {n:5d} {exact:11.1%} {tau:9.3f} {rms:8.1f}")
        print(f"{'live order = refit':22} {n:5d} {np.mean(agree[n]):11.1%}")


if __name__ == "__main__":
    main()
