"""Many random bots in one process on grpc.aio, for server benchmarks: one task per seat.

    python3 benchmarks/bot_swarm.py ADDRESS TICKETS_FILE

Reads JSON lines with a "ticket" field, plays every seat with uniformly random legal moves
until each match is over, then prints one JSON line: seats, decisions answered, seconds.
Every four seats (a table's, in the order given) share one connection.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from typing import Any

import grpc

from chaodipi.arena.v2 import arena_pb2_grpc, convert

THINK: list[float] = []
SEATS_PER_CHANNEL = 4
ERRORS: list[str] = []
STARTED = time.perf_counter()


async def seat(stub: Any, ticket: str, rng: random.Random) -> int:
    try:
        return await _seat(stub, ticket, rng)
    except grpc.aio.AioRpcError as err:
        ERRORS.append(f"{time.perf_counter() - STARTED:.1f}s {err.code().name}: {err.details()}")
        return 0


async def _seat(stub: Any, ticket: str, rng: random.Random) -> int:
    call = stub.Play()
    await call.write(convert.hello(ticket, "swarm"))
    answered = 0
    async for message in call:
        kind = message.WhichOneof("response")
        if kind == "decision":
            decision = message.decision
            thinking = time.perf_counter()
            action = convert.legal_from_message(decision.legal).sample(rng)
            THINK.append(time.perf_counter() - thinking)
            await call.write(convert.answer(decision.decision_id, action))
            answered += 1
        elif kind == "match_over":
            await call.done_writing()
            break
    return answered


async def main(address: str, tickets_file: str) -> None:
    with open(tickets_file, encoding="utf-8") as lines:
        tickets = [json.loads(line)["ticket"] for line in lines if line.strip()]
    started = time.perf_counter()
    # one connection per table, as four bots of a table would have at least: thousands of
    # streams on one HTTP/2 connection is not what a server meets, and grpc's client fails it
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(0, len(tickets), SEATS_PER_CHANNEL)
    ]
    try:
        counts = await asyncio.gather(
            *(
                seat(
                    arena_pb2_grpc.ArenaServiceStub(channels[i // SEATS_PER_CHANNEL]),
                    t,
                    random.Random(i),
                )
                for i, t in enumerate(tickets)
            )
        )
    finally:
        for channel in channels:
            await channel.close()
    think = sum(THINK) / len(THINK) if THINK else 0.0
    print(
        json.dumps(
            {
                "seats": len(tickets),
                "decisions": sum(counts),
                "seconds": time.perf_counter() - started,
                "mean_think_s": think,
                "errors": len(ERRORS),
                "first_errors": ERRORS[:3],
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
