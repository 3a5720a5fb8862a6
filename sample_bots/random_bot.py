"""The random bot: every move uniformly at random among the legal ones.

python3 -m sample_bots.random_bot --address 127.0.0.1:50051 --ticket TICKET
"""

from __future__ import annotations

import argparse
import random
import sys

from sample_bots.sdk import play, random_action, ticket_from_environment


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50051", help="the arena server")
    parser.add_argument("--ticket", help="this seat's ticket (default: $ARENA_TICKET)")
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible play")
    parser.add_argument("--name", default="random", help="name shown in logs and reports")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    ticket = args.ticket or ticket_from_environment()
    result = play(args.address, ticket, lambda turn: random_action(turn, rng), name=args.name)
    print(f"match over: winner team {result.winner}, {result.hands} hands", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
