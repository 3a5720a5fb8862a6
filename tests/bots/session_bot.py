"""A test bot that holds a session with raw gRPC (not the SDK), records what it is offered and
can be told to hang in some games. Each offered seat is played by the SDK's one-seat
``run_bot`` in a thread (random legal moves), except seats numbered ``--hang-seat``, whose
stream it reads without ever answering.

    ARENA_TOKEN=T python3 tests/bots/session_bot.py --address A [--record DIR] [--hang-seat 2]

The session token comes from ``$ARENA_TOKEN``, as the arena hands it (never on the command
line). ``--record DIR``: one line per offer, ``pid table seat``, appended to ``DIR/offers.txt``.
"""

from __future__ import annotations

import argparse
import os
import random
import threading
from pathlib import Path

import grpc

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi.bot import run_bot


def hang(address: str, ticket: str) -> None:
    """Connect to the seat and read its messages until the match is over, never answering."""
    hello = pb.PlayRequest(hello=pb.Hello(ticket=ticket, protocol_version=2, bot_name="hang"))
    stop = threading.Event()

    def requests():  # type: ignore[no-untyped-def]
        yield hello
        stop.wait()

    with grpc.insecure_channel(address) as channel:
        for message in arena_pb2_grpc.ArenaServiceStub(channel).Play(requests()):
            if message.WhichOneof("response") == "match_over":
                break
    stop.set()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--hang-seat", type=int)
    args = parser.parse_args()
    rng = random.Random()
    lock = threading.Lock()
    threads = []
    token = os.environ.get("ARENA_TOKEN")
    if not token:
        parser.error("no session token: set ARENA_TOKEN")
    request = pb.EnterRequest(token=token, protocol_version=2, bot_name="test", capacity=4)
    with grpc.insecure_channel(args.address) as channel:
        for message in arena_pb2_grpc.ArenaServiceStub(channel).Enter(request):
            if message.WhichOneof("message") != "seat":
                continue
            offer = message.seat
            if args.record is not None:
                with lock, (args.record / "offers.txt").open("a") as out:
                    table = offer.ticket.split("/")[0]
                    out.write(f"{os.getpid()} {table} {offer.seat}\n")
            if offer.seat == args.hang_seat:
                target, call = hang, (args.address, offer.ticket)
            else:

                def target(address: str, ticket: str) -> None:
                    run_bot(
                        lambda view: view.legal.sample(rng),
                        address=address,
                        ticket=ticket,
                        name="test",
                    )

                call = (args.address, offer.ticket)
            thread = threading.Thread(target=target, args=call, daemon=True)
            thread.start()
            threads.append(thread)
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main()
