"""What a review costs: decisions judged per CPU-second at a budget, and the wall time to
review a whole 1-hand game with every core.

    python3 benchmarks/review_bench.py [--games 3] [--simulations 120] [--workers 2]

Each game is a 1-hand classic game of four heuristic bots (seeds 1, 2, …), reviewed for all
four seats: once in this process (its CPU time, ``time.process_time``, over the decisions
judged: the CPU figure, which a loaded machine does not move much), then with ``--workers``
processes (the wall time of the whole game's review). Prints one JSON line per game and the
medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from chaodipi.engine import PRESETS, Match, observe
from chaodipi.records import record_lines
from chaodipi.review import review_game
from chaodipi.search import heuristic_move


def _game(seed: int) -> list[dict[str, object]]:
    match = Match(PRESETS["classic"], seed=seed, max_hands=1)
    while not match.over:
        seat = match.to_play
        match.apply(seat, heuristic_move(observe(match, seat)))
    return list(record_lines(match))  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=120)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rates, walls = [], []
    for seed in range(1, args.games + 1):
        lines = _game(seed)
        cpu = time.process_time()
        one = review_game(lines, simulations=args.simulations, seed=1, workers=1)
        cpu = time.process_time() - cpu
        wall = time.perf_counter()
        review_game(lines, simulations=args.simulations, seed=1, workers=args.workers)
        wall = time.perf_counter() - wall
        judged = len(one.judged)
        rates.append(judged / cpu)
        walls.append(wall)
        print(json.dumps({
            "seed": seed, "decisions": len(one.decisions), "judged": judged,
            "cpu_s": round(cpu, 2), "judged_per_cpu_s": round(judged / cpu, 2),
            f"wall_s_{args.workers}_workers": round(wall, 2),
        }))  # fmt: skip
    print(json.dumps({
        "simulations": args.simulations,
        "median_judged_per_cpu_s": round(statistics.median(rates), 2),
        f"median_game_wall_s_{args.workers}_workers": round(statistics.median(walls), 2),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
