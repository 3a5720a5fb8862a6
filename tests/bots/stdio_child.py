"""A test bot for the stdio bridge (chaodipi.bot.stdio): JSON lines on stdin and stdout, with
nothing but the standard library, as a bot in another language would be. It plays random
legal moves; told to, it fails at its Nth decision:

    python3 -m chaodipi.bot.stdio -- python3 tests/bots/stdio_child.py [--fail HOW --at N]

``HOW``: ``crash`` (a line on stderr, exit 3), ``hang`` (reads on, never answers), ``garbage``
(a line that is not JSON), ``illegal`` (a pass where a play is due, once the play has begun),
``wrong`` (an action its phase never takes: a pass where a play or a bury is due, a play in the
bidding), ``note`` (a legal action with a note of 300 bytes, past the 256 allowed).
``--env PATH`` writes the names of its ``ARENA_*`` environment variables to PATH; ``--seed N``
seeds its moves. ``--spawn DIR`` starts a process that sleeps for an hour (its stdout the
child's, as a bot's helper process would have), then writes its own pid and the sleeper's to
the file DIR/PID.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
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
    parser.add_argument("--fail", choices=["crash", "hang", "garbage", "illegal", "wrong", "note"])
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--env", type=Path)
    parser.add_argument("--spawn", type=Path)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.spawn is not None:
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        ready = args.spawn / f".{os.getpid()}"
        ready.write_text(f"{os.getpid()} {sleeper.pid}\n", encoding="utf-8")
        ready.rename(args.spawn / str(os.getpid()))  # whole, or not there
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
            if args.fail == "wrong":
                bidding = legal.get("phase") in ("PHASE_DECLARE", "PHASE_FRY")
                action = {"play": {"cards": ["CARD_CLUBS_3"]}} if bidding else {"passTurn": {}}
        answer = {"decisionId": decision["decisionId"], "action": action}
        if args.fail == "note" and decisions >= args.at:
            answer["note"] = "n" * 300
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
