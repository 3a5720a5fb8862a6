"""Hidden-hand sampling speed (chaodipi.engine.sampling), in every preset, early and mid-hand.

    python3 benchmarks/sampling_bench.py [--seeds 10] [--draws 500]

For each preset and seed (and the kangqi preset's 扛旗 hand), a hand is played with random
legal actions to two points: *early* (the card play has just begun: the kitty is buried, no
trick played) and *mid* (12 tricks played); there, the seat to play builds a
:class:`~chaodipi.engine.sampling.DealSampler` (the counting, once per decision), draws ``--draws``
deals, then builds an engine position from each (``card_play``). Random play shows more voids
than good play does, so the counting works harder than in a real game. Prints, per preset and
point, the median and largest build time, deals a second, deals a second with a position
each, and how many deals with positions fit in 100 ms counting the build.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from chaodipi.engine import PRESETS, DealSampler, Match, Phase, SeatView, observe

KANGQI_HAND = "kangqi/扛旗"
"""The kangqi preset's 扛旗 hand (27 cards a seat, no kitty), reached by starting there."""


def view_at(preset: str, seed: int, tricks: int) -> SeatView:
    if preset == KANGQI_HAND:
        match = Match(PRESETS["kangqi"], seed=seed, max_hands=1, progress=[13, 0], dealer=0)
    else:
        match = Match(PRESETS[preset], seed=seed, max_hands=1)
    rng = random.Random(seed)
    while match.hand.phase is not Phase.PLAY or (
        match.hand.play is not None and len(match.hand.play.tricks) < tricks
    ):
        match.apply(match.to_play, match.legal_actions().sample(rng))
    return observe(match, match.to_play)


def measure(view: SeatView, draws: int) -> tuple[float, float, float]:
    """(build seconds, seconds a deal, seconds a deal with its position)."""
    started = time.perf_counter()
    sampler = DealSampler(view)
    built = time.perf_counter() - started
    rng = random.Random(0)
    started = time.perf_counter()
    deals = sampler.samples(rng, draws)
    drawn = (time.perf_counter() - started) / draws
    started = time.perf_counter()
    for deal in deals:
        sampler.card_play(deal)
    placed = (time.perf_counter() - started) / draws
    return built, drawn, drawn + placed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--draws", type=int, default=500)
    args = parser.parse_args()
    print(
        f"{'preset':11} {'point':5} {'build ms':>9} {'max ms':>7} {'deals/s':>8} "
        f"{'+position/s':>11} {'in 100 ms':>9}"
    )
    for preset in [*sorted(PRESETS), KANGQI_HAND]:
        for point, tricks in (("early", 0), ("mid", 12)):
            runs = [measure(view_at(preset, s, tricks), args.draws) for s in range(args.seeds)]
            build = statistics.median(r[0] for r in runs)
            worst = max(r[0] for r in runs)
            deal = statistics.median(r[1] for r in runs)
            full = statistics.median(r[2] for r in runs)
            fit = int(max(0.0, 0.1 - build) / full)
            print(
                f"{preset:11} {point:5} {build * 1e3:9.2f} {worst * 1e3:7.2f} {1 / deal:8.0f} "
                f"{1 / full:11.0f} {fit:9d}"
            )


if __name__ == "__main__":
    main()
