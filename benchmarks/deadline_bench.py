"""What a deadline heap could save: the CPU of a decision's wait on the table's inbox, with the
deadline the tables use (``anyio.move_on_after`` per decision) and with the cheaper ones a heap
would use, on the one-loop server's event loop (anyio on asyncio).

    python3 benchmarks/deadline_bench.py [--decisions 20000] [--rounds 7]

A table task hands a number to a bot task through a ``Mailbox`` and waits for it back through
another, as a decision and its answer go (without the gRPC streams): the thread's CPU time per
round trip, for each way of bounding the wait:

- ``cancel scope``: ``anyio.move_on_after`` around the wait (what the tables do);
- ``no deadline``: the wait alone, the lower bound of any deadline structure;
- ``loop timer``: one ``loop.call_at`` per decision, cancelled when the answer comes (a heap
  entry in asyncio's own timer heap);
- ``heap entry``: a ``heapq`` push and its removal, with no timer (one server-wide timer that
  wakes only when a deadline is due).

The least and the median of the rounds are printed (rounds interleave the variants), then a
JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import statistics
import time

import anyio

from chaodipi.arena.serving import Mailbox

VARIANTS = ("cancel scope", "no deadline", "loop timer", "heap entry")
DEADLINE_S = 30.0  # never reached: only the cost of setting it up and taking it down


async def _bot(inbox: Mailbox[int | None], outbox: Mailbox[int]) -> None:
    while (item := await inbox.receive()) is not None:
        outbox.send_nowait(item)


async def _one(variant: str, decisions: int) -> float:
    """µs of the thread's CPU per decision."""
    to_bot: Mailbox[int | None] = Mailbox(4)
    to_table: Mailbox[int] = Mailbox(4)
    loop = asyncio.get_running_loop()
    heap: list[tuple[float, int]] = []
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_bot, to_bot, to_table)
        await anyio.sleep(0)
        started = time.thread_time()
        for n in range(decisions):
            to_bot.send_nowait(n)
            if variant == "cancel scope":
                with anyio.move_on_after(DEADLINE_S):
                    await to_table.receive()
            elif variant == "no deadline":
                await to_table.receive()
            elif variant == "loop timer":
                timer = loop.call_at(loop.time() + DEADLINE_S, lambda: None)
                await to_table.receive()
                timer.cancel()
            else:
                heapq.heappush(heap, (loop.time() + DEADLINE_S, n))
                await to_table.receive()
                heapq.heappop(heap)
        seconds = time.thread_time() - started
        to_bot.send_nowait(None)
    return seconds / decisions * 1e6


async def _main(decisions: int, rounds: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    for _ in range(rounds):
        for variant in VARIANTS:
            figures[variant].append(await _one(variant, decisions))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    figures = anyio.run(_main, args.decisions, args.rounds, backend="asyncio")
    summary = {}
    for variant, runs in figures.items():
        least, median = min(runs), statistics.median(runs)
        summary[variant] = {"least_us": round(least, 2), "median_us": round(median, 2)}
        print(f"{variant:13s} least {least:6.2f} µs, median {median:6.2f} µs per decision")
    print(json.dumps({"bench": "deadline", "decisions": args.decisions, **summary}))


if __name__ == "__main__":
    main()
