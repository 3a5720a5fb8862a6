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

``--rlcard PYTHON`` counts RLCard's Dou Dizhu random play the same way and prints its
instructions per action over ours, the yardstick of ``engine_bench.py --compare-rlcard``
without the machine's load in it (both are pure Python; the ratio of wall times also depends
on how fast each kind of work runs, so the two differ a little).

With ``--context-games 40`` the workload first records the positions ``engine_bench.py``
keeps in memory while it times whole hands; the plain run's ``gc_collections`` then shows how
often the garbage collector's full pass (which walks all of them) comes.

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
from collections.abc import Callable, Sequence
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

    from chaodipi.engine import CardRules

    return record_games(games, random.Random(seed), CardRules())


def play(preset_name: str, hands: int, seed: int) -> dict[str, object]:
    """Play ``hands`` whole hands of random players under the preset; count the actions."""
    from chaodipi.engine import PRESETS, Match

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


def callgrind(command: list[str]) -> tuple[int, int]:
    """Instructions and actions of one run of ``command`` (a Python workload that prints a
    JSON line with ``actions`` last) under callgrind."""
    with tempfile.TemporaryDirectory(prefix="engine-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        # A fixed hash seed: the same workload plays the same actions in both runs.
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"callgrind run failed ({done.returncode}): {done.stderr[-2000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        summary = re.search(r"^summary:\s*(\d+)", out.read_text(), re.MULTILINE)
        if summary is None:
            raise RuntimeError(f"no summary line in {out}")
        return int(summary.group(1)), int(figures["actions"])


def per_action(command: Callable[[int], list[str]], size: int) -> tuple[int, int]:
    """Instructions per action of the difference between a run of ``size`` and one of twice
    that (start-up and imports cancel out), and the actions it counts."""
    small, small_actions = callgrind(command(size))
    large, large_actions = callgrind(command(2 * size))
    actions = large_actions - small_actions
    return round((large - small) / actions), actions


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
    parser.add_argument(
        "--rlcard",
        metavar="PYTHON",
        help="with --callgrind: also count RLCard's Dou Dizhu random play (a python that can "
        "import rlcard runs benchmarks/rlcard_doudizhu.py --games) and print its instructions "
        "per action over ours: a ratio the machine's load does not move",
    )
    parser.add_argument(
        "--rlcard-games",
        type=int,
        default=40,
        help="RLCard games in the smaller run (default 40)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.hands < 1:
        print(f"--hands must be at least 1, not {args.hands}", file=sys.stderr)
        return 2
    from chaodipi.engine import PRESETS

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
    import chaodipi.engine

    print(f"engine from {os.path.dirname(chaodipi.engine.__file__)}", file=sys.stderr)
    script = str(Path(__file__).resolve())
    ours: dict[str, int] = {}
    for name in names:

        def command(hands: int, name: str = name) -> list[str]:
            return [
                sys.executable,
                script,
                *("--preset", name, "--hands", str(hands), "--seed", str(args.seed)),
                *("--context-games", str(args.context_games)),
            ]

        instructions, actions = per_action(command, args.hands)
        ours[name] = instructions
        figures = {"preset": name, "context_games": args.context_games, "actions": actions}
        print(json.dumps({**figures, "instructions_per_action": instructions}))
    if args.rlcard:
        rlcard_script = str(Path(__file__).resolve().parent / "rlcard_doudizhu.py")

        def rlcard_command(games: int) -> list[str]:
            return [args.rlcard, rlcard_script, "--games", str(games), "--seed", str(args.seed)]

        theirs, actions = per_action(rlcard_command, args.rlcard_games)
        slowest = max(ours, key=lambda name: ours[name])
        print(
            json.dumps(
                {
                    "rlcard_actions": actions,
                    "rlcard_instructions_per_action": theirs,
                    "ratio": {name: round(theirs / mine, 3) for name, mine in ours.items()},
                    "ratio_slowest_preset": round(theirs / ours[slowest], 3),
                    "slowest_preset": slowest,
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
