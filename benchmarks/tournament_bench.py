"""Games/s of a round-robin of random bots at concurrency 1, 4 and 16.

    python3 benchmarks/tournament_bench.py [--seeds 8] [--hands 1]

Two random bots (each a real process per seat, over gRPC on localhost), duplicate deals; each
run uses a fresh database in a temporary folder. Prints one line per concurrency and a JSON
line. Most of a short game's time is the four bot processes starting (Python and grpc imports).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import trio

from arena.config import parse_config
from arena.logs import configure_logging
from arena.tournament import run_tournament


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8, help="deal seeds (games = 2 × seeds)")
    parser.add_argument("--hands", type=int, default=1, help="hands per game")
    args = parser.parse_args()
    configure_logging("error", json=True)
    bot = f"{sys.executable} -m sample_bots.random_bot"
    figures: dict[str, float] = {}
    for concurrency in (1, 4, 16):
        with tempfile.TemporaryDirectory() as folder:
            config = parse_config(
                {
                    "preset": "classic",
                    "hands": args.hands,
                    "seeds": args.seeds,
                    "concurrency": concurrency,
                    "database": "bench.sqlite",
                    "bots": {"a": {"command": bot}, "b": {"command": bot + " --name b"}},
                },
                Path(folder),
            )
            started = time.perf_counter()
            outcome = trio.run(run_tournament, config)
            elapsed = time.perf_counter() - started
        rate = outcome.played / elapsed
        figures[f"concurrency_{concurrency}"] = round(rate, 3)
        print(
            f"concurrency {concurrency:2d}: {outcome.played} games in {elapsed:.1f} s = "
            f"{rate:.2f} games/s",
            flush=True,
        )
    print(json.dumps({"bench": "tournament", "hands": args.hands, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
