"""The SPRT's error rates, measured: simulated matches at elo0 and at elo1, checked every pair.

    python3 benchmarks/sprt_errors.py [--runs 4000] [--elo0 0] [--elo1 50] [--alpha 0.05]
                                      [--beta 0.05] [--shape 11,19,73,24,23] [--seed 1]

Each run draws pairs from a pentanomial distribution whose expected score is the logistic
score of elo0 (then of elo1), applies ``chaodipi.arena.results.sprt.sprt`` after every pair exactly
as a tournament does, and stops at the first verdict (or at ``--max-pairs``, counted as no
verdict). The distributions have the shape of ``--shape`` (by default the montecarlo vs
heuristic ladder's pairs, README), tilted to the wanted score the way the SPRT's own
hypotheses are (``pentanomial_with_score``). Prints the false-H1 rate at elo0 and the false-H0
rate at elo1, each with a 95 % Wilson interval, against the nominal α and β, and the mean
number of pairs to a verdict.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

from chaodipi.arena.report import wilson_interval
from chaodipi.arena.results import SprtTest, logistic, pentanomial_with_score, sprt


@dataclass(frozen=True, slots=True)
class Tally:
    """Verdicts of the runs at one true Elo, and the pairs each run took."""

    h0: int
    h1: int
    undecided: int
    pairs: list[int]


def one_run(
    test: SprtTest, probabilities: list[float], rng: random.Random, cap: int
) -> tuple[str | None, int]:
    """Play pairs until the SPRT decides; the verdict and the pairs it took."""
    counts = [0, 0, 0, 0, 0]
    for played in range(1, cap + 1):
        counts[rng.choices(range(5), probabilities)[0]] += 1
        verdict = sprt(test, counts).verdict
        if verdict is not None:
            return verdict, played
    return None, cap


def simulate(test: SprtTest, probabilities: list[float], runs: int, seed: int, cap: int) -> Tally:
    rng = random.Random(seed)
    h0 = h1 = undecided = 0
    pairs = []
    for _ in range(runs):
        verdict, played = one_run(test, probabilities, rng, cap)
        pairs.append(played)
        if verdict == "H0":
            h0 += 1
        elif verdict == "H1":
            h1 += 1
        else:
            undecided += 1
    return Tally(h0, h1, undecided, pairs)


def _rate(errors: int, runs: int) -> str:
    low, high = wilson_interval(errors, runs)
    return f"{errors / runs:.2%} [{low:.2%}, {high:.2%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="runs per hypothesis")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--shape", default="11,19,73,24,23", help="pentanomial counts LL..WW")
    parser.add_argument("--max-pairs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    test = SprtTest(args.elo0, args.elo1, args.alpha, args.beta)
    shape = [float(x) for x in args.shape.split(",")]
    frequencies = [c / sum(shape) for c in shape]
    print(f"SPRT {test.describe()}; {args.runs} runs per hypothesis, checked after every pair")
    for name, true_elo in (("elo0", test.elo0), ("elo1", test.elo1)):
        probabilities = pentanomial_with_score(frequencies, logistic(true_elo))
        started = time.perf_counter()
        tally = simulate(test, probabilities, args.runs, args.seed, args.max_pairs)
        seconds = time.perf_counter() - started
        wrong, nominal = (tally.h1, test.alpha) if name == "elo0" else (tally.h0, test.beta)
        label = "false H1" if name == "elo0" else "false H0"
        shown = ", ".join(f"{p:.3f}" for p in probabilities)
        print(
            f"at {name} = {true_elo:g} (pentanomial {shown}): "
            f"{label} {_rate(wrong, args.runs)} (nominal {nominal:.0%}); "
            f"pairs to a verdict: mean {statistics.fmean(tally.pairs):.0f}, "
            f"median {statistics.median(tally.pairs):.0f}, max {max(tally.pairs)}; "
            f"undecided {tally.undecided}; {seconds:.0f} s"
        )


if __name__ == "__main__":
    main()
