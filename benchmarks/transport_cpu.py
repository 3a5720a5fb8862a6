"""CPU per decision of each candidate transport between the arena and a bot process it starts,
arena side and bot side: a prototype of each carrying the contract's real messages.

    python3 benchmarks/transport_cpu.py [--short 2000] [--long 10000] [--streams 4] [--rounds 3]

Each candidate is one arena process (asyncio, as the server) and one bot process, with
``--streams`` seat streams at once (``arena run``'s concurrency 4 holds about that many per bot
process). A round trip is one Decision out (a mid-game classic Decision with its events and
legal set, the same bytes for every candidate) and one Answer back, each parsed on arrival and
serialized on the way out by the transport as the real code would. The candidates:

- ``grpc-tcp``: grpc.aio on both sides over TCP loopback (the arena today);
- ``grpc-unix``: the same over a Unix socket;
- ``frames``: length-prefixed protobuf frames (:mod:`chaodipi.arena.v2.frames`) over a Unix
  socket pair, the bot's end inherited as a file descriptor, asyncio protocols on both sides;
- ``stdio-json``: the arena writing the stdio bridge's JSON lines (proto3 JSON, as
  ``chaodipi.bot.child.message_line`` writes them) to the bot and reading its Answer lines (as
  ``answer_from_line`` parses them) itself, one pipe per seat, a bot that parses
  each line with ``json.loads``.

CPU is ``getrusage`` of each process (every thread), never wall time: the machine is shared.
Each process counts from its first message; per decision = (long run − short run) ÷ (the
difference in round trips), so start-up cancels out; the least of ``--rounds`` is the figure
(interference only adds). Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CANDIDATES = ("grpc-tcp", "grpc-unix", "frames", "stdio-json")
METHOD = "/bench.Echo/Play"


FIRST: list[float] = []
"""The process's CPU when its first message arrived (start-up is not counted)."""


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def first() -> None:
    if not FIRST:
        FIRST.append(cpu_s())


def used_s() -> float:
    """CPU seconds since the first message."""
    return cpu_s() - FIRST[0]


def sample_decision() -> Any:
    """A Decision from the middle of a classic hand, with the events since the seat's last."""
    from chaodipi.arena.v2 import convert
    from chaodipi.engine import PRESETS, Match

    match = Match(PRESETS["classic"], 7, 1)
    rng = random.Random(7)
    for _ in range(60):
        seat = match.to_play
        match.apply(seat, rng.choice(list(match.legal_actions(seat))))
    seat = match.to_play
    events = [convert.event_message(e) for e in match.events_since(match.log.cursor - 12, seat)]
    legal = convert.legal_message(match.legal_actions(seat))
    return convert.decision(
        5, events=events, legal=legal, deadline_s=1.0, bank_s=30.0, strikes=0, cursor=60
    )


def sample_answer() -> Any:
    from chaodipi.arena.v2 import convert
    from chaodipi.engine import Pass

    return convert.answer(5, Pass())


# -- the arena's side ---------------------------------------------------------------------------


async def arena_grpc(address: str, bot: list[str], trips: int) -> float:
    import grpc

    from chaodipi.arena.v2 import arena_pb2 as pb

    decision = sample_decision()

    async def play(_: Any, context: Any) -> None:
        while (request := await context.read()) is not grpc.aio.EOF:
            first()
            assert request.WhichOneof("request") is not None
            await context.write(decision)

    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(
        play,
        request_deserializer=pb.PlayRequest.FromString,
        response_serializer=pb.PlayResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("bench.Echo", {"Play": handler}),)
    )
    port = server.add_insecure_port(address)
    await server.start()
    target = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    child = await asyncio.create_subprocess_exec(*bot, target, str(trips))
    await child.wait()
    await server.stop(None)
    return used_s()


async def arena_frames(bot: list[str], trips: int) -> float:
    from chaodipi.arena.v2 import arena_pb2 as pb
    from chaodipi.arena.v2.frames import FrameReader, Kind, encode

    decision = sample_decision()
    mine, theirs = socket.socketpair()
    done = asyncio.get_running_loop().create_future()

    class Link(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport = transport
            self.reader = FrameReader()

        def data_received(self, data: bytes) -> None:
            first()
            for kind, stream, payload in self.reader.feed(data):
                if kind is Kind.PLAY or kind is Kind.MESSAGE:
                    request = pb.PlayRequest.FromString(payload)
                    assert request.WhichOneof("request") is not None
                    self.transport.write(encode(Kind.MESSAGE, stream, decision.SerializeToString()))

        def connection_lost(self, exc: Exception | None) -> None:
            done.set_result(None)

    await asyncio.get_running_loop().connect_accepted_socket(Link, mine)
    child = await asyncio.create_subprocess_exec(
        *bot, f"fd:{theirs.fileno()}", str(trips), pass_fds=(theirs.fileno(),)
    )
    theirs.close()
    await child.wait()
    await done
    return used_s()


async def arena_json(bot: list[str], trips: int, streams: int) -> float:
    from google.protobuf import json_format

    def message_line(message: Any) -> str:  # as the stdio bridge writes a line
        data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    answer = sample_answer().answer  # an Answer from the builders, parsed into line by line

    def answer_from_line(line: str) -> None:  # as the bridge reads one
        answer.Clear()
        json_format.Parse(line, answer)

    decision = sample_decision()
    pairs = [socket.socketpair() for _ in range(streams)]
    loop = asyncio.get_running_loop()
    ends: list[asyncio.Future[None]] = []

    class Seat(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport = transport
            self.buffer = b""
            self.end = loop.create_future()
            ends.append(self.end)

        def data_received(self, data: bytes) -> None:
            first()
            *lines, self.buffer = (self.buffer + data).split(b"\n")
            for line in lines:
                answer_from_line(line.decode())
                self.transport.write(message_line(decision).encode() + b"\n")

        def connection_lost(self, exc: Exception | None) -> None:
            self.end.set_result(None)

    for mine, _ in pairs:
        await loop.connect_accepted_socket(Seat, mine)
    fds = [theirs.fileno() for _, theirs in pairs]
    child = await asyncio.create_subprocess_exec(
        *bot, ",".join(map(str, fds)), str(trips), pass_fds=fds
    )
    for _, theirs in pairs:
        theirs.close()
    await child.wait()
    await asyncio.gather(*ends)
    return used_s()


# -- the bot's side -----------------------------------------------------------------------------


async def bot_grpc(target: str, trips: int, streams: int) -> float:
    import grpc

    from chaodipi.arena.v2 import arena_pb2 as pb

    answer = sample_answer()
    async with grpc.aio.insecure_channel(target) as channel:
        play = channel.stream_stream(
            METHOD,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )

        async def seat(count: int) -> None:
            call = play()
            for _ in range(count):
                await call.write(answer)
                message = await call.read()
                first()
                assert message.WhichOneof("response") == "decision"
            await call.done_writing()
            await call.read()

        await asyncio.gather(*(seat(trips // streams) for _ in range(streams)))
    return used_s()


async def bot_frames(fd: int, trips: int, streams: int) -> float:
    from chaodipi.arena.v2 import arena_pb2 as pb
    from chaodipi.arena.v2.frames import FrameReader, Kind, encode

    payload = sample_answer().SerializeToString()
    loop = asyncio.get_running_loop()
    left = dict.fromkeys(range(1, 2 * streams, 2), trips // streams)
    finished = loop.create_future()

    class Link(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport = transport
            self.reader = FrameReader()
            for stream in left:
                transport.write(encode(Kind.PLAY, stream, payload))

        def data_received(self, data: bytes) -> None:
            first()
            for _, stream, body in self.reader.feed(data):
                message = pb.PlayResponse.FromString(body)
                assert message.WhichOneof("response") == "decision"
                left[stream] -= 1
                if left[stream]:
                    self.transport.write(encode(Kind.MESSAGE, stream, payload))
                elif not any(left.values()):
                    finished.set_result(None)

    sock = socket.socket(fileno=fd)
    transport, _ = await loop.connect_accepted_socket(Link, sock)
    await finished
    transport.close()
    return used_s()


async def bot_json(fds: list[int], trips: int) -> float:
    line = b'{"decisionId":5,"action":{"passTurn":{}}}\n'
    loop = asyncio.get_running_loop()
    ends: list[asyncio.Future[None]] = []
    count = trips // len(fds)

    class Seat(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.transport = transport
            self.buffer = b""
            self.left = count
            self.end = loop.create_future()
            ends.append(self.end)
            transport.write(line)

        def data_received(self, data: bytes) -> None:
            first()
            *lines, self.buffer = (self.buffer + data).split(b"\n")
            for text in lines:
                assert "decision" in json.loads(text)
                self.left -= 1
                if self.left:
                    self.transport.write(line)
                else:
                    self.transport.close()
                    self.end.set_result(None)

    for fd in fds:
        await loop.connect_accepted_socket(Seat, socket.socket(fileno=fd))
    await asyncio.gather(*ends)
    return used_s()


# -- the runs -----------------------------------------------------------------------------------


def run(candidate: str, trips: int, streams: int) -> dict[str, float]:
    """One run: the arena process (a child of this one) and its bot; their CPU seconds."""
    with tempfile.TemporaryDirectory(prefix="transport-") as folder:
        out = Path(folder) / "out.json"
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--arena",
                candidate,
                str(trips),
                str(streams),
                folder,
                str(out),
            ],
            check=False,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"{candidate} failed:\n{done.stderr[-3000:]}")
        figures: dict[str, float] = json.loads(out.read_text())
        return figures


def arena_main(candidate: str, trips: int, streams: int, folder: str, out: str) -> None:
    bot = [sys.executable, __file__, "--bot", candidate, str(streams), out + ".bot"]
    if candidate == "grpc-tcp":
        arena = asyncio.run(arena_grpc("127.0.0.1:0", bot, trips))
    elif candidate == "grpc-unix":
        arena = asyncio.run(arena_grpc(f"unix:{folder}/arena.sock", bot, trips))
    elif candidate == "frames":
        arena = asyncio.run(arena_frames(bot, trips))
    else:
        arena = asyncio.run(arena_json(bot, trips, streams))
    bot_cpu = float(Path(out + ".bot").read_text())
    Path(out).write_text(json.dumps({"arena": arena, "bot": bot_cpu}))


def bot_main(candidate: str, streams: int, out: str, target: str, trips: int) -> None:
    if candidate.startswith("grpc"):
        used = asyncio.run(bot_grpc(target, trips, streams))
    elif candidate == "frames":
        used = asyncio.run(bot_frames(int(target.removeprefix("fd:")), trips, streams))
    else:
        used = asyncio.run(bot_json([int(fd) for fd in target.split(",")], trips))
    Path(out).write_text(str(used))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=2000, help="round trips, short run")
    parser.add_argument("--long", type=int, default=10000, help="round trips, long run")
    parser.add_argument("--streams", type=int, default=4, help="seat streams at once")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=CANDIDATES, default=list(CANDIDATES))
    parser.add_argument("--arena", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--bot", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.arena:
        candidate, trips, streams, folder, out = args.arena
        arena_main(candidate, int(trips), int(streams), folder, out)
        return 0
    if args.bot:
        candidate, streams, out, target, trips = args.bot
        bot_main(candidate, int(streams), out, target, int(trips))
        return 0
    results: dict[str, list[dict[str, float]]] = {c: [] for c in args.only}
    for number in range(args.rounds):
        for candidate in args.only:
            short = run(candidate, args.short, args.streams)
            long = run(candidate, args.long, args.streams)
            trips = args.long - args.short
            figures = {
                side: round((long[side] - short[side]) / trips * 1e6, 1)
                for side in ("arena", "bot")
            }
            results[candidate].append(figures)
            print(f"round {number + 1}, {candidate}: {figures}", flush=True)
    print("\n| transport | arena µs/decision (least) | bot µs/decision (least) |")
    print("| --- | --- | --- |")
    summary = {}
    for candidate, rounds in results.items():
        arena = min(r["arena"] for r in rounds)
        bot = min(r["bot"] for r in rounds)
        summary[candidate] = {"arena_us": arena, "bot_us": bot, "rounds": rounds}
        print(f"| {candidate} | {arena:g} | {bot:g} |")
    print(json.dumps({"bench": "transport_cpu", "streams": args.streams, **summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
