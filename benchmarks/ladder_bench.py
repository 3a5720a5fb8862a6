"""A standing ladder's figures (docs/ladder.md, "Figures"): what it plays in a given time on this
machine, how long a bot that could play waits, its memory as it runs, its pages under many
live readers, how long it takes to play again after SIGKILL, and how many pairs it needs to
order the reference rungs as ``arena bench`` does.

``python3 benchmarks/ladder_bench.py run --minutes 60 [--config examples/ladder.toml]``
    The config's ladder (by default the example's four rungs and two sample bots), in this
    process, on a fresh database: pairs played and pairs an hour; each version's share of the
    time it was idle while a pairing with it was possible (a table free, and another version
    of another bot free); the process's memory (VmRSS) every 5 minutes; at the end, the
    leaderboard's response time (median and 95th percentile of 200 requests) with 50 pages
    open on its live events.
``python3 benchmarks/ladder_bench.py restart --config examples/ladder.toml``
    ``arena ladder serve`` as a process: after 10 pairs, SIGKILL, start it again, and the time
    from the kill to its first new pair's start (and to its first new pair's end).
``python3 benchmarks/ladder_bench.py converge [--rungs R1 R2 ...] [--max-pairs 400]``
    The rungs as hosted bots, none pinned: pairs until the ladder's live order of them, and its
    refit's, are ``arena bench``'s from then on (checked after every pair), and the refit's
    Elo of each against its bench Elo (both with the heuristic bot at 0).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx

from chaodipi.arena.ladder import Ladder, LadderConfig, Store, database_url, load_ladder
from chaodipi.arena.tournament import RUNGS

ROOT = Path(__file__).resolve().parent.parent


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _fresh(config: LadderConfig, folder: Path, **changes: Any) -> LadderConfig:
    """The config on a new database in ``folder``, every port free."""
    return dataclasses.replace(
        config,
        storage=str(folder / "ladder.sqlite"),
        address="127.0.0.1:0",
        web="127.0.0.1:0",
        **changes,
    )


async def _idle_sampler(ladder: Ladder, idle: Counter[str], seen: Counter[str]) -> None:
    """Every 0.2 s: for each version that could start a pair now, whether it waited while a
    table was free and another bot's version could too (a pairing possible, not made)."""
    while True:
        await anyio.sleep(0.2)
        entries = ladder._schedulable()
        free = [e for e in entries if ladder._room(e)]
        slot = ladder._slots_free() > 0
        for entry in entries:
            seen[entry.version.name] += 1
            others = {e.bot.id for e in free if e.bot.id != entry.bot.id}
            if slot and entry in free and others:
                idle[entry.version.name] += 1


async def _page_times(web: str, readers: int, requests: int) -> tuple[float, float]:
    """The leaderboard's response time (median, 95th percentile, ms) with ``readers`` pages
    open on the live events."""
    async with httpx.AsyncClient(timeout=30) as client, anyio.create_task_group() as tasks:
        opened = anyio.Event()
        count = 0

        async def reader() -> None:
            nonlocal count
            async with client.stream("GET", f"http://{web}/events") as stream:
                count += 1
                if count == readers:
                    opened.set()
                async for _ in stream.aiter_lines():
                    pass

        for _ in range(readers):
            tasks.start_soon(reader)
        await opened.wait()
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            answer = await client.get(f"http://{web}/")
            times.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200
        tasks.cancel_scope.cancel()
    times.sort()
    return statistics.median(times), times[int(0.95 * len(times)) - 1]


def run(args: argparse.Namespace) -> None:
    config = load_ladder(args.config)
    folder = Path(tempfile.mkdtemp(prefix="ladder-bench-"))
    config = _fresh(config, folder)
    store = Store.open(database_url(config.storage, config.folder))
    ladder = Ladder(config, store, folder / "logs")
    idle: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    memory: list[tuple[float, float]] = []
    web = ""
    started = time.monotonic()

    async def main() -> tuple[float, float]:
        nonlocal web
        ready = anyio.Event()

        def listening(_: str, pages: str) -> None:
            nonlocal web
            web = pages
            ready.set()

        ladder.on_ready = listening
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ladder.run)
            await ready.wait()
            tasks.start_soon(_idle_sampler, ladder, idle, seen)
            end = started + args.minutes * 60
            next_mark = started
            while time.monotonic() < end:
                if time.monotonic() >= next_mark:
                    memory.append(((time.monotonic() - started) / 60, _rss_mb()))
                    print(
                        f"{memory[-1][0]:5.1f} min: {memory[-1][1]:.1f} MB, "
                        f"{len(store.pairs())} pairs",
                        file=sys.stderr,
                        flush=True,
                    )
                    next_mark += 300
                await anyio.sleep(1)
            memory.append(((time.monotonic() - started) / 60, _rss_mb()))
            times = await _page_times(web, 50, 200)
            tasks.cancel_scope.cancel()
        return times

    load = os.getloadavg()
    median, p95 = anyio.run(main, backend="asyncio")
    hours = (time.monotonic() - started) / 3600
    pairs = store.pairs()
    print(
        json.dumps(
            {
                "minutes": args.minutes,
                "load_average_at_start": load,
                "pairs": len(pairs),
                "pairs_per_hour": round(len(pairs) / hours, 1),
                "idle_while_a_pairing_was_possible": {
                    v: round(idle[v] / seen[v], 4) for v in sorted(seen) if seen[v]
                },
                "rss_mb_by_minute": [(round(m, 1), round(r, 1)) for m, r in memory],
                "leaderboard_ms_with_50_live_pages": {
                    "median": round(median, 1),
                    "p95": round(p95, 1),
                },
            },
            indent=2,
        )
    )
    store.close()
    shutil.rmtree(folder, ignore_errors=True)


def restart(args: argparse.Namespace) -> None:
    source = load_ladder(args.config)
    folder = Path(tempfile.mkdtemp(prefix="ladder-restart-"))
    config_path = folder / "ladder.toml"
    text = args.config.read_text(encoding="utf-8")
    lines = [
        line
        for line in text.splitlines()
        if line.split("=")[0].strip() not in ("storage", "address", "web")
    ]
    lines = [
        f'storage = "{folder / "ladder.sqlite"}"',
        'address = "127.0.0.1:0"',
        'web = ""',
        *lines,
    ]
    config_path.write_text(
        "\n".join(lines).replace(
            'command = "python3 highest_card_bot.py"',
            f'command = "python3 {source.folder / "highest_card_bot.py"}"',
        )
        + "\n",
        encoding="utf-8",
    )

    def serve() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chaodipi.arena",
                "ladder",
                "serve",
                str(config_path),
                "--log-level",
                "info",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )

    def until(process: subprocess.Popen[str], event: str, count: int = 1) -> float:
        assert process.stderr is not None
        seen = 0
        for line in process.stderr:
            if f'"{event}"' in line:
                seen += 1
                if seen == count:
                    return time.monotonic()
        raise SystemExit(f"the ladder ended before its {event}")

    first = serve()
    until(first, "pair_over", 10)
    killed = time.monotonic()
    first.send_signal(signal.SIGKILL)
    first.wait()
    second = serve()
    playing = until(second, "pair_started") - killed
    over = until(second, "pair_over") - killed
    second.send_signal(signal.SIGTERM)
    second.wait()
    print(
        json.dumps(
            {
                "seconds_from_sigkill_to_a_pair_started": round(playing, 2),
                "seconds_from_sigkill_to_a_pair_over": round(over, 2),
            },
            indent=2,
        )
    )
    shutil.rmtree(folder, ignore_errors=True)


def converge(args: argparse.Namespace) -> None:
    from chaodipi.arena.ladder import parse_ladder

    bench = {r.name: r for r in RUNGS}
    folder = Path(tempfile.mkdtemp(prefix="ladder-converge-"))
    data = {
        "name": "converge",
        "address": "127.0.0.1:0",
        "web": "",
        "hands": 1,
        "concurrency": args.concurrency,
        "storage": str(folder / "ladder.sqlite"),
        "refit_minutes": 1000,
        "rematch_minutes": 0,
        "bots": {name: {"command": bench[name].command} for name in args.rungs},
    }
    config = parse_ladder(data, ROOT / "examples")
    store = Store.open(database_url(config.storage, config.folder))
    ladder = Ladder(config, store, folder / "logs")
    truth = sorted(args.rungs, key=lambda n: (bench[n].elo is not None, bench[n].elo or 0.0))
    history: list[tuple[int, bool, bool]] = []

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ladder.run)
            async with ladder.live.subscribe() as events:
                async for event in events:
                    if event.kind != "pair_finished":
                        continue
                    pairs = len(store.pairs())
                    live = sorted(ladder._entries.values(), key=lambda e: e.rating.elo)
                    live_ok = [e.bot.name for e in live] == truth
                    await ladder.refit()
                    latest = store.latest_refit()
                    names = {v.id: v.bot for v in store.versions()}
                    fitted = sorted(latest[2].values(), key=lambda r: r.elo) if latest else []
                    refit_ok = [names[r.version] for r in fitted] == truth
                    history.append((pairs, live_ok, refit_ok))
                    print(
                        f"{pairs} pairs: live {'ok' if live_ok else '--'}, refit "
                        f"{'ok' if refit_ok else '--'}",
                        file=sys.stderr,
                        flush=True,
                    )
                    if pairs >= args.max_pairs:
                        break
            tasks.cancel_scope.cancel()

    anyio.run(main, backend="asyncio")

    def settled(column: int) -> int | None:
        for index, row in enumerate(history):
            if all(later[column] for later in history[index:]):
                return row[0]
        return None

    latest = store.latest_refit()
    names = {v.id: v.bot for v in store.versions()}
    assert latest is not None
    fitted = {names[r.version]: r for r in latest[2].values()}
    offset = fitted["heuristic"].elo if "heuristic" in fitted else 0.0
    print(
        json.dumps(
            {
                "rungs": args.rungs,
                "pairs": history[-1][0] if history else 0,
                "pairs_until_the_live_order_is_benchs_for_good": settled(1),
                "pairs_until_the_refit_order_is_benchs_for_good": settled(2),
                "refit_elo_heuristic_at_0_vs_bench": {
                    n: {
                        "ladder": round(fitted[n].elo - offset, 1),
                        "interval": [
                            round(fitted[n].low - offset, 1),
                            round(fitted[n].high - offset, 1),
                        ],
                        "bench": bench[n].elo,
                    }
                    for n in args.rungs
                },
            },
            indent=2,
        )
    )
    store.close()
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    jobs = parser.add_subparsers(dest="job", required=True)
    first = jobs.add_parser("run")
    first.add_argument("--minutes", type=float, default=60)
    first.add_argument("--config", type=Path, default=ROOT / "examples" / "ladder.toml")
    first.set_defaults(job_run=run)
    again = jobs.add_parser("restart")
    again.add_argument("--config", type=Path, default=ROOT / "examples" / "ladder.toml")
    again.set_defaults(job_run=restart)
    order = jobs.add_parser("converge")
    order.add_argument("--rungs", nargs="+", default=["random", "heuristic", "search40"])
    order.add_argument("--max-pairs", type=int, default=400)
    order.add_argument("--concurrency", type=int, default=2)
    order.set_defaults(job_run=converge)
    args = parser.parse_args()
    args.job_run(args)


if __name__ == "__main__":
    main()
