"""Baseline: random-play throughput of RLCard's pure-Python Dou Dizhu environment.

Plays complete games of ``rlcard.make("doudizhu")`` for a fixed wall time, every
player choosing uniformly among ``state["legal_actions"]`` (a dict of action id ->
feature array, as RLCard's own RandomAgent uses it), and counts env.step() calls
(actions) and finished games. The cost includes RLCard's per-step observation
encoding, since that is what its env always does. Prints one JSON line so the
engine benchmark can report a ratio measured in the same run, e.g.:

    taskset -c 0 ~/rlcard-venv/bin/python benchmarks/rlcard_doudizhu.py --seconds 5

rlcard is deliberately not a project dependency; run this with a separate venv.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from types import ModuleType

INSTALL_HINT = "python -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard"


def load_rlcard() -> ModuleType:
    try:
        return importlib.import_module("rlcard")
    except ImportError as exc:
        print(f"rlcard_doudizhu: cannot import rlcard ({exc}).", file=sys.stderr)
        print(f"Install it in a separate venv: {INSTALL_HINT}", file=sys.stderr)
        print("then run this script with /tmp/rl/bin/python.", file=sys.stderr)
        sys.exit(2)


def run(
    rlcard: ModuleType, seconds: float, seed: int, games_wanted: int | None = None
) -> dict[str, object]:
    """Play for ``seconds`` of wall time, or exactly ``games_wanted`` games when given."""
    env = rlcard.make("doudizhu", config={"seed": seed})
    rng = random.Random(seed)
    actions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while (
        games < games_wanted if games_wanted is not None else time.perf_counter() < deadline
    ):
        state, _player = env.reset()
        while not env.is_over():
            # Keys are action ids; sort them because RLCard builds them from a
            # set of strings, whose order depends on PYTHONHASHSEED.
            action = rng.choice(sorted(state["legal_actions"]))
            state, _player = env.step(action)
            actions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "bench": "rlcard_doudizhu",
        "actions_per_s": round(actions / elapsed, 1),
        "games_per_s": round(games / elapsed, 2),
        "actions": actions,
        "games": games,
        "seconds": round(elapsed, 3),
        "rlcard_version": getattr(rlcard, "__version__", "unknown"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time to play (s)")
    parser.add_argument("--seed", type=int, default=0, help="env and action-choice seed")
    parser.add_argument(
        "--games",
        type=int,
        help="play exactly this many games instead of for --seconds (a fixed workload, for "
        "counting instructions: benchmarks/engine_instructions.py --rlcard)",
    )
    args = parser.parse_args(argv)
    rlcard = load_rlcard()
    print(json.dumps(run(rlcard, args.seconds, args.seed, args.games)))


if __name__ == "__main__":
    main()
