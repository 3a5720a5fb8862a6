"""Server throughput and latency, with a bare grpc.aio echo as the physical limit, in one run.

    python3 benchmarks/server_bench.py [--seconds 5] [--hands 3] [--big 500]

1. echo: a bare grpc.aio bidi echo server (another process) and a ping-pong client sending a
   message the size of a real Decision: round trips/s and latency p50/p99, 1 and 16 streams;
   then the same echo with each message handed to a table-like task and back on the same
   loop (``Mailbox`` in, ``StreamPort`` out), as a bot's message reaches its table: the floor
   of the server's one-loop design;
2. arena: the real server (anyio tables on grpc.aio's loop) with random bots in another process (one
   grpc.aio task per seat): decisions/s with 1 table and with 100 tables, server-side latency
   per decision (Decision sent → legal answer in) p50/p99, the bots' mean think time, timeouts;
3. the big run: ``--big`` tables at once (2,000 streams for 500) with a 1 s deadline: timeouts;
4. Decision bytes per seat per classic hand (``decision_bytes.py``: v1 measured from git).

Prints one line per figure, a table of v2 beside v1 (v1's bytes measured from git history, its
server ratios as issue 13 quotes them), then a JSON line. Client and server share the
machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import json
import multiprocessing
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import grpc

from chaodipi.arena.logs import configure_logging
from chaodipi.arena.serving import (
    Mailbox,
    StreamPort,
    TableConfig,
    open_server,
    tune_garbage_collector,
)
from chaodipi.arena.v2 import convert
from chaodipi.engine import PRESETS, Match

HERE = Path(__file__).resolve().parent
ECHO = "/bench.Echo/Echo"
NO_PORT_SHARING = [("grpc.so_reuseport", 0)]
"""As the arena's server: a port another server holds is an error, never shared."""
V1_OVERHEAD = 3.1
"""v1's per-decision overhead ÷ echo p50 (issue 13, a quiet machine)."""
V1_THROUGHPUT = 0.25
"""v1's decisions/s at 100 tables ÷ echo round trips/s over 16 streams (issue 13)."""


def decision_size() -> int:
    """Bytes of a real mid-hand v2 Decision: the events since the seat's last decision (the
    four plays of a trick and its result), the legal actions, the clock."""
    rng = random.Random(1)
    match = Match(PRESETS["classic"], seed=1)
    while match.hand.phase.value != "play" or len(match.hand.play.tricks) < 8:  # type: ignore[union-attr]
        match.apply(match.to_play, match.legal_actions().sample(rng))
    seat = match.to_play
    news = [convert.event_message(e) for e in match.log.all_since(match.log.cursor - 5)]
    decision = convert.decision(
        1,
        events=news,
        legal=convert.legal_message(match.legal_actions(seat)),
        deadline_s=1.0,
        bank_s=0.0,
        strikes=0,
        cursor=match.log.cursor,
    )
    size: int = decision.ByteSize()
    return size


def _decision_bytes() -> dict[str, float | None]:
    """benchmarks/decision_bytes.py's figures (v1 from git history)."""
    spec = importlib.util.spec_from_file_location("decision_bytes", HERE / "decision_bytes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures: dict[str, float | None] = module.measure(5, None)
    return figures


def _echo_server(port_queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    async def serve() -> None:
        async def echo(requests, context):  # type: ignore[no-untyped-def]
            async for request in requests:
                yield request

        server = grpc.aio.server(options=NO_PORT_SHARING)
        handler = grpc.method_handlers_generic_handler(
            "bench.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
        )
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        port_queue.put(port)
        await server.wait_for_termination()

    asyncio.run(serve())


def _hopped_echo_server(port_queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """The same echo, but every message takes the path a bot's answer takes to its table and
    the table's reply to the bot, on the server's one loop: the reader hands it to a
    table-like task through a :class:`Mailbox`, which waits under a deadline and puts the
    reply into the stream's outbox (a :class:`StreamPort`), which the handler writes: the floor
    of the arena's design with no table work."""

    async def serve() -> None:
        async with anyio.create_task_group() as tables:

            async def echo(_requests, context):  # type: ignore[no-untyped-def]
                connection = StreamPort(asyncio.Queue(256))
                inbox: Mailbox[bytes] = Mailbox(16)

                scope = anyio.CancelScope()  # the table's: ended with the stream

                async def table() -> None:
                    with scope:
                        while True:
                            with anyio.move_on_after(60):  # a decision's deadline
                                connection.send(await inbox.receive())

                async def read() -> None:
                    while (message := await context.read()) is not grpc.aio.EOF:
                        inbox.send_nowait(message)

                tables.start_soon(table)  # the table lives in the server's task group
                reader = asyncio.ensure_future(read())
                try:
                    while True:
                        await context.write(await connection.outbox.get())
                finally:
                    reader.cancel()
                    scope.cancel()

            server = grpc.aio.server(options=NO_PORT_SHARING)
            handler = grpc.method_handlers_generic_handler(
                "bench.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
            )
            server.add_generic_rpc_handlers((handler,))
            port_queue.put(server.add_insecure_port("127.0.0.1:0"))
            await server.start()
            await server.wait_for_termination()

    anyio.run(serve, backend="asyncio")


async def _echo_client(
    address: str, size: int, streams: int, seconds: float
) -> tuple[float, list[float]]:
    payload = b"x" * size
    latencies: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        method = channel.stream_stream(ECHO)
        deadline = time.perf_counter() + seconds

        async def one() -> None:
            call = method()
            while time.perf_counter() < deadline:
                sent = time.perf_counter()
                await call.write(payload)
                await call.read()
                latencies.append(time.perf_counter() - sent)
            await call.done_writing()

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(streams)))
        elapsed = time.perf_counter() - started
    return len(latencies) / elapsed, latencies


def bench_echo(size: int, seconds: float) -> dict[str, dict[str, float]]:
    figures = {}
    for name, target in (("echo", _echo_server), ("hopped", _hopped_echo_server)):
        ports: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
        server = multiprocessing.Process(target=target, args=(ports,), daemon=True)
        server.start()
        address = f"127.0.0.1:{ports.get(timeout=30)}"
        time.sleep(0.2)
        for streams in (1, 16) if name == "echo" else (1,):
            rate, latencies = asyncio.run(_echo_client(address, size, streams, seconds))
            key = f"{streams}_streams" if name == "echo" else "hopped_1_stream"
            figures[key] = _summary(rate, latencies)
            label = f"echo, {streams:2d} streams:" if name == "echo" else "echo via a table:"
            print(
                f"{label}   {rate:9,.0f} round trips/s, "
                f"p50 {_ms(latencies, 50)} ms, p99 {_ms(latencies, 99)} ms"
            )
        server.terminate()
    return figures


def _pct(values: list[float], p: int) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def _ms(values: list[float], p: int) -> str:
    return f"{_pct(values, p) * 1000:.3f}"


def _summary(rate: float, latencies: list[float]) -> dict[str, float]:
    return {
        "per_s": round(rate, 1),
        "p50_ms": round(_pct(latencies, 50) * 1000, 3),
        "p99_ms": round(_pct(latencies, 99) * 1000, 3),
    }


class GcPauses:
    """The garbage collector's pauses in this process while in use (all generations)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self.collected = 0
        self._began = 0.0

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._began)
            self.collected += _info["collected"]


def bench_arena(tables: int, hands: int, decision_ms: int) -> dict[str, float]:
    async def main() -> dict[str, float]:
        async with open_server("127.0.0.1:0") as server:
            configs = [
                TableConfig(
                    PRESETS["classic"],
                    seed=i,
                    max_hands=hands,
                    decision_ms=decision_ms,
                    bank_ms=0,
                    connect_timeout_s=120,
                )
                for i in range(tables)
            ]
            start = anyio.Event()
            opened = [server.start_table(c, start=start) for c in configs]
            with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
                for table in opened:
                    for seat in range(4):
                        out.write(json.dumps({"ticket": table.ticket(seat)}) + "\n")
            swarm = await anyio.open_process(
                [sys.executable, str(HERE / "bot_swarm.py"), server.address, out.name],
                stdout=subprocess.PIPE,
                cwd=HERE.parent,
            )
            connecting = time.perf_counter()
            for table in opened:  # every table begins at once, when all bots are in
                await table.connected.wait()
            started = time.perf_counter()
            start.set()
            with GcPauses() as gc_pauses:
                results = [await server.wait(t) for t in opened]
            elapsed = time.perf_counter() - started
            assert swarm.stdout is not None
            out_text = b""
            with contextlib.suppress(anyio.EndOfStream):
                while True:
                    out_text += await swarm.stdout.receive()
            report = json.loads(out_text.decode() or "{}")
            await swarm.wait()
            latencies = [x for t in opened for x in t.latencies]
            strikes = sum(s.strikes for r in results for s in r.seats)
            return {
                "tables": tables,
                "decisions": len(latencies),
                "decisions_per_s": round(len(latencies) / elapsed, 1),
                "p50_ms": round(_pct(latencies, 50) * 1000, 3),
                "p99_ms": round(_pct(latencies, 99) * 1000, 3),
                "bot_think_ms": round(float(report.get("mean_think_s", 0.0)) * 1000, 3),
                "timeouts": strikes,
                "finished": sum(r.outcome.reason == "played to the end" for r in results),
                "bot_errors": int(report.get("errors", 0)),
                "first_bot_errors": report.get("first_errors", []),
                "gc_pause_s": round(sum(gc_pauses.pauses), 3),
                "gc_max_pause_ms": round(max(gc_pauses.pauses, default=0.0) * 1000, 1),
                "gc_collections": len(gc_pauses.pauses),
                "gc_collected": gc_pauses.collected,
                "connect_s": round(started - connecting, 2),
                "seconds": round(elapsed, 2),
            }

    return anyio.run(main, backend="asyncio")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="echo measurement time")
    parser.add_argument("--hands", type=int, default=3, help="hands per match in the arena runs")
    parser.add_argument("--big", type=int, default=500, help="tables in the big run (0: skip)")
    parser.add_argument(
        "--default-gc", action="store_true", help="keep Python's collector settings (to compare)"
    )
    parser.add_argument(
        "--big-only", action="store_true", help="only the big run (no echo, 1 or 100 tables)"
    )
    args = parser.parse_args()
    configure_logging("error", json=True)
    if not args.default_gc:
        tune_garbage_collector()  # as `arena serve` does
    size = decision_size()
    print(f"a mid-hand Decision message is {size} bytes")
    figures: dict[str, object] = {"bench": "server", "decision_bytes": size}
    if args.big_only:
        return big_run(args.big, figures)
    figures["echo"] = bench_echo(size, args.seconds)
    for tables in (1, 100):
        run = bench_arena(tables, args.hands, 1000)
        figures[f"arena_{tables}"] = run
        print(
            f"arena, {tables:3d} table(s): {run['decisions_per_s']:9,.0f} decisions/s, "
            f"server-side p50 {run['p50_ms']} ms, p99 {run['p99_ms']} ms, bot think "
            f"{run['bot_think_ms']} ms, timeouts {run['timeouts']}"
        )
    echo1 = figures["echo"]["1_streams"]["p50_ms"]  # type: ignore[index]
    one = figures["arena_1"]
    overhead = (one["p50_ms"] - one["bot_think_ms"]) / echo1  # type: ignore[index]
    figures["overhead_vs_echo_p50"] = round(overhead, 2)
    print(f"per-decision overhead (p50 minus bot think) / echo p50 round trip = {overhead:.2f}")
    hopped = figures["echo"]["hopped_1_stream"]["p50_ms"] / echo1  # type: ignore[index]
    figures["hopped_echo_vs_echo_p50"] = round(hopped, 2)
    print(f"the same echo via a table-like task (no table work) / echo p50 = {hopped:.2f}")
    hundred = figures["arena_100"]
    echo16 = figures["echo"]["16_streams"]["per_s"]  # type: ignore[index]
    throughput = hundred["decisions_per_s"] / echo16  # type: ignore[index]
    figures["throughput_vs_echo_16"] = round(throughput, 3)
    sizes = _decision_bytes()
    figures["decision_bytes_per_seat_hand"] = sizes
    code = big_run(args.big, figures, print_json=False)
    v1_bytes = sizes["v1_bytes_per_seat_hand"]
    print("\n| figure | v1 | v2 (this run) | target |\n| --- | --- | --- | --- |")
    print(
        f"| Decision bytes per seat per classic hand | {v1_bytes or 'n/a'} "
        f"| {sizes['v2_bytes_per_seat_hand']} ({sizes['v2_over_v1'] or 0:.1%}) | ≤ 10 % of v1 |"
    )
    print(f"| overhead at 1 table ÷ echo p50 | {V1_OVERHEAD} | {overhead:.2f} | ≤ 2.0 |")
    print(
        f"| decisions/s at 100 tables ÷ echo 16 streams | {V1_THROUGHPUT} | {throughput:.3f} "
        "| ≥ 0.4 |"
    )
    if args.big:
        big = figures[f"arena_{args.big}"]
        print(
            f"| {args.big} tables, 1 s deadline: timeouts | 0 | {big['timeouts']} "  # type: ignore[index]
            "| 0 |"
        )
    print(json.dumps(figures))
    return code


def big_run(tables: int, figures: dict[str, object], *, print_json: bool = True) -> int:
    if tables:
        big = bench_arena(tables, 1, 1000)
        figures[f"arena_{tables}"] = big
        print(
            f"arena, {tables} tables ({4 * tables} streams), 1 s deadline: "
            f"{big['finished']} finished, {big['timeouts']} timeouts, "
            f"{big['decisions_per_s']:,.0f} decisions/s, p50 {big['p50_ms']} ms, "
            f"p99 {big['p99_ms']} ms, GC pauses {big['gc_pause_s']} s (longest "
            f"{big['gc_max_pause_ms']} ms)"
        )
    if print_json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
