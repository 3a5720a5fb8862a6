"""The arena's own side of a decision, with nothing else: CPU µs a decision of tables alone.

    python3 benchmarks/table_cpu.py [--tree NAME=PATH ...] [--games 200] [--rounds 3]

``--games`` one-hand classic matches, ``--concurrency`` at a time, each a real
:class:`~chaodipi.arena.serving.table.Table` on anyio's asyncio backend (the server's loop),
whose four ports answer each Decision at once: the Decision's legal set, read back
(``convert.legal_from_message``), gives its default action, and the answer reaches
``Table.receive`` from a callback of the loop, as a local link's read does. No socket, no
other process: what is measured is the table (the rules, its clocks and deadline scopes, its
mailbox and task, the events and Decision built and serialized by the contract), warm, the
floor under the arena process's figure in ``cpu_per_decision.py``. The ports' own work is timed
(``thread_time``) and taken off. Each ``--tree`` (a checkout; default: this one) runs in a
process of its own, one after the other, ``--rounds`` times; prints the least and median per
tree, and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from cpu_per_decision import tree_path  # noqa: E402


def child(games: int, concurrency: int) -> dict[str, float]:
    """Play the games here; the table's CPU µs a decision and the ports'."""
    import asyncio

    import anyio

    from chaodipi.arena.logs import configure_logging
    from chaodipi.arena.serving import Table, TableConfig
    from chaodipi.arena.v2 import convert
    from chaodipi.engine import PRESETS

    configure_logging("error")
    spent = [0.0]
    decisions = [0]

    class Port:
        peer = "bench"

        def __init__(self, table: Table, seat: int) -> None:
            self.table, self.seat = table, seat

        def send(self, message: Any) -> None:
            started = time.thread_time()
            if message.WhichOneof("response") == "decision":
                decision = message.decision
                decisions[0] += 1
                action = convert.legal_from_message(decision.legal).default()
                answer = convert.answer(decision.decision_id, action)
                loop = asyncio.get_running_loop()
                loop.call_soon(self.table.receive, self.seat, self, answer)
            spent[0] += time.thread_time() - started

        def close(self, *_: Any) -> None:
            pass

    async def main() -> None:
        slots = anyio.Semaphore(concurrency)

        async def one(seed: int) -> None:
            async with slots:
                config = TableConfig(
                    PRESETS["classic"], seed=seed, max_hands=1, decision_ms=3000, bank_ms=5000
                )
                table = Table(f"t{seed}", config)
                for seat in range(4):
                    table.attach(seat, Port(table, seat), "bench")
                await table.run()

        async with anyio.create_task_group() as group:
            for seed in range(games):
                group.start_soon(one, seed)

    started = time.thread_time()
    anyio.run(main, backend="asyncio")
    cpu = time.thread_time() - started
    return {
        "decisions": decisions[0],
        "table_us": (cpu - spent[0]) / decisions[0] * 1e6,
        "ports_us": spent[0] / decisions[0] * 1e6,
    }


def run_tree(tree: Path, games: int, concurrency: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": tree_path(tree)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(games), str(concurrency)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the run on {tree} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(int(sys.argv[2]), int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a checkout to measure (repeat; default: this one, as `this`)",
    )
    parser.add_argument("--games", type=int, default=200, help="matches a round (default 200)")
    parser.add_argument(
        "--concurrency", type=int, default=4, help="matches at once (default 4)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every tree (default 3)")
    args = parser.parse_args()
    trees: list[tuple[str, Path]] = []
    for spec in args.tree or [f"this={ROOT}"]:
        name, sep, path = spec.partition("=")
        if not sep or not Path(path).is_dir():
            parser.error(f"--tree {spec!r}: give NAME=PATH, PATH a checkout's folder")
        trees.append((name, Path(path).resolve()))
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    for round_number in range(1, args.rounds + 1):
        for name, tree in trees:
            figures = run_tree(tree, args.games, args.concurrency)
            results[name].append(figures)
            print(
                f"round {round_number}, {name}: table {figures['table_us']:.1f} µs a decision "
                f"({figures['decisions']:.0f} decisions; the ports' answers "
                f"{figures['ports_us']:.1f} µs, taken off)"
            )
    print("\n| tree | the table's CPU µs a decision, least (median) |\n| --- | --- |")
    summary: dict[str, Any] = {"bench": "table_cpu", "games": args.games, "load": os.getloadavg()}
    for name, rounds in results.items():
        values = [r["table_us"] for r in rounds]
        least, median = min(values), statistics.median(values)
        print(f"| {name} | {least:.1f} ({median:.1f}) |")
        summary[name] = {"least_us": round(least, 1), "median_us": round(median, 1)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
