"""The engine's cost per action in CPU instructions: a figure a loaded machine does not move.

Plays a fixed workload, the same one ``benchmarks/engine_bench.py`` times as "whole hands":
random players (``legal_actions(seat).sample(rng)`` then ``push``) in matches of at most 20
hands, from fixed seeds, until ``--hands`` hands of one preset are done. Run plainly, it
prints one JSON line: the actions and hands played and the time taken::

    python benchmarks/engine_instructions.py --preset classic --hands 20

With ``--callgrind`` it runs itself twice under ``valgrind --tool=callgrind`` (``--hands`` and
twice as many) and prints the instructions per action of the difference, so start-up and
imports cancel out::

    python benchmarks/engine_instructions.py --callgrind --hands 10

The workload uses only ``Match(preset, seed=..., max_hands=...)``, ``to_play``,
``legal_actions``, ``push``, ``over`` and ``records``, so the script runs unchanged against
older commits of the engine (put their checkout first on ``PYTHONPATH``) for before/after
comparisons. Instruction counts differ between machines and Python builds; compare only
counts taken on one machine with one interpreter.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

MATCH_HANDS = 20


def bench_context(games: int, seed: int) -> object:
    """What ``engine_bench.py`` holds in memory while it times whole hands: the positions and
    tricks of ``games`` recorded random games. A process holding much (a server's tables, a
    bot's search tree) makes every full pass of the garbage collector dear, so the engine's
    figure depends on how many objects it keeps alive long enough to reach the oldest
    generation."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from engine_bench import record_games

    from engine.rules import CardRules

    return record_games(games, random.Random(seed), CardRules())


def play(preset_name: str, hands: int, seed: int) -> dict[str, object]:
    """Play ``hands`` whole hands of random players under the preset; count the actions."""
    from engine.match import Match
    from engine.presets import PRESETS

    preset = PRESETS[preset_name]
    gc.collect()
    collections_before = [generation["collections"] for generation in gc.get_stats()]
    rng = random.Random(seed)
    actions = done = number = 0
    start = time.process_time()
    while done < hands:
        match = Match(preset, seed=f"bench/{seed}/{number}", max_hands=MATCH_HANDS)
        number += 1
        while not match.over and done < hands:
            before = len(match.records)
            seat = match.to_play
            match.push(seat, match.legal_actions(seat).sample(rng))
            actions += 1
            done += len(match.records) - before
    cpu = time.process_time() - start
    collections = [
        generation["collections"] - before
        for generation, before in zip(gc.get_stats(), collections_before, strict=True)
    ]
    return {
        "preset": preset_name,
        "hands": done,
        "actions": actions,
        "cpu_s": round(cpu, 4),
        "gc_collections": collections,
    }


def callgrind(preset_name: str, hands: int, seed: int, context: int) -> tuple[int, int]:
    """Instructions and actions of one run of the workload under callgrind."""
    with tempfile.TemporaryDirectory(prefix="engine-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(Path(__file__).resolve()),
            "--preset",
            preset_name,
            "--hands",
            str(hands),
            "--seed",
            str(seed),
            "--context-games",
            str(context),
        ]
        # A fixed hash seed: the same workload plays the same actions in both runs.
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"callgrind run failed ({done.returncode}): {done.stderr[-2000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        summary = re.search(r"^summary:\s*(\d+)", out.read_text(), re.MULTILINE)
        if summary is None:
            raise RuntimeError(f"no summary line in {out}")
        return int(summary.group(1)), int(figures["actions"])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--preset",
        action="append",
        help="a preset to play (repeatable; default: every preset)",
    )
    parser.add_argument("--hands", type=int, default=20, help="hands per preset (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the workload (default 0)")
    parser.add_argument(
        "--context-games",
        type=int,
        default=0,
        help="first record this many games as engine_bench.py does (40 there) and keep them in "
        "memory while playing (default 0: play in an empty process)",
    )
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="count instructions per action under valgrind (runs --hands and 2 × --hands)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.hands < 1:
        print(f"--hands must be at least 1, not {args.hands}", file=sys.stderr)
        return 2
    from engine.presets import PRESETS

    names: list[str] = args.preset or sorted(PRESETS)
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        choices = ", ".join(sorted(PRESETS))
        print(f"no preset {unknown[0]!r}; choose from {choices}", file=sys.stderr)
        return 2
    if not args.callgrind:
        context = bench_context(args.context_games, args.seed) if args.context_games else None
        for name in names:
            print(json.dumps(play(name, args.hands, args.seed)))
        del context
        return 0
    import engine

    print(f"engine from {os.path.dirname(engine.__file__)}", file=sys.stderr)
    for name in names:
        small, small_actions = callgrind(name, args.hands, args.seed, args.context_games)
        large, large_actions = callgrind(name, 2 * args.hands, args.seed, args.context_games)
        per_action = (large - small) / (large_actions - small_actions)
        print(
            json.dumps(
                {
                    "preset": name,
                    "context_games": args.context_games,
                    "actions": large_actions - small_actions,
                    "instructions": large - small,
                    "instructions_per_action": round(per_action),
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
