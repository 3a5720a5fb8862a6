"""Many random bots in one process on grpc.aio, for server benchmarks: one task per seat.

    python3 benchmarks/bot_swarm.py ADDRESS TICKETS_FILE

Reads JSON lines with a "ticket" field, plays every seat with uniformly random legal moves
until each match is over, then prints one JSON line: seats, decisions answered, seconds.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from typing import Any

import grpc

from arena.protocol import PROTOCOL_VERSION, arena_stub
from arena.v1 import arena_pb2 as pb
from sample_bots.sdk import Turn, random_action

THINK: list[float] = []


async def seat(stub: Any, ticket: str, rng: random.Random) -> int:
    call = stub.Play()
    await call.write(
        pb.BotMessage(
            hello=pb.Hello(ticket=ticket, protocol_version=PROTOCOL_VERSION, bot_name="swarm")
        )
    )
    answered = 0
    turn: Turn | None = None
    async for message in call:
        kind = message.WhichOneof("message")
        if kind == "decision":
            turn = Turn(message.decision)
            thinking = time.perf_counter()
            action = random_action(turn, rng)
            THINK.append(time.perf_counter() - thinking)
            await call.write(pb.BotMessage(action=action))
            answered += 1
        elif kind == "refused" and turn is not None:
            turn.refusals.append(message.refused)
            await call.write(pb.BotMessage(action=random_action(turn, rng)))
        elif kind == "match_over":
            await call.done_writing()
            break
    return answered


async def main(address: str, tickets_file: str) -> None:
    with open(tickets_file, encoding="utf-8") as lines:
        tickets = [json.loads(line)["ticket"] for line in lines if line.strip()]
    started = time.perf_counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = arena_stub(channel)
        counts = await asyncio.gather(
            *(seat(stub, t, random.Random(i)) for i, t in enumerate(tickets))
        )
    think = sum(THINK) / len(THINK) if THINK else 0.0
    print(
        json.dumps(
            {
                "seats": len(tickets),
                "decisions": sum(counts),
                "seconds": time.perf_counter() - started,
                "mean_think_s": think,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
