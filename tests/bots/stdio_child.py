"""A test bot for the stdio bridge (chaodipi.bot.stdio): JSON lines on stdin and stdout, with
nothing but the standard library, as a bot in another language would be. It plays random
legal moves; told to, it fails at its Nth decision:

    python3 -m chaodipi.bot.stdio -- python3 tests/bots/stdio_child.py [--fail HOW --at N]

``HOW``: ``crash`` (a line on stderr, exit 3), ``hang`` (reads on, never answers), ``garbage``
(a line that is not JSON), ``illegal`` (a pass where a play is due, once the play has begun).
``--env PATH`` writes the names of its ``ARENA_*`` environment variables to PATH; ``--seed N``
seeds its moves.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any


def choose(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A uniformly random choice among the bids and the pass, or a random card play."""
    phase, bids = legal.get("phase"), legal.get("bids", [])
    if phase in ("PHASE_DECLARE", "PHASE_FRY"):
        choices = [{"declare" if phase == "PHASE_DECLARE" else "fry": bid} for bid in bids]
        return rng.choice(choices + [{"passTurn": {}}] * bool(legal.get("canPass")))
    option = rng.choice(legal["cardOptions"])
    k = rng.randint(option.get("kMin", 0), option.get("kMax", 0))
    cards = option.get("forced", []) + rng.sample(option.get("pool", []), k)
    return {"bury" if phase == "PHASE_BURY" else "play": {"cards": cards}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail", choices=["crash", "hang", "garbage", "illegal"])
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--env", type=Path)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.env is not None:
        names = sorted(name for name in os.environ if name.startswith("ARENA_"))
        args.env.write_text(" ".join(names) + "\n", encoding="utf-8")
    rng = random.Random(args.seed)
    decisions = 0
    for line in sys.stdin:
        decision = json.loads(line).get("decision")
        if decision is None:
            continue
        decisions += 1
        legal = decision["legal"]
        action = choose(legal, rng)
        if args.fail is not None and decisions >= args.at:
            if args.fail == "crash":
                print("stdio_child: out of memory, say", file=sys.stderr, flush=True)
                sys.exit(3)
            if args.fail == "hang":
                time.sleep(3600)
            if args.fail == "garbage":
                print("I play the ace of spades", flush=True)
                continue
            if args.fail == "illegal" and legal.get("phase") == "PHASE_PLAY":
                action = {"passTurn": {}}
        print(json.dumps({"decisionId": decision["decisionId"], "action": action}), flush=True)


if __name__ == "__main__":
    main()
