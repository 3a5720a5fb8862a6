"""A test bot that looks for the other bots' secrets where any user of the machine could: the
command lines of the arena's other bot processes (``/proc/PID/cmdline`` is world-readable).
It plays random legal moves with the SDK, a session or one seat as the arena starts it.

    python3 tests/bots/snoop_bot.py --address A --record DIR     (ARENA_TOKEN or ARENA_TICKET set)

At start it appends its pid and the secret it was handed (``$ARENA_TOKEN`` or
``$ARENA_TICKET``) to ``DIR/secrets.txt``, ``pid secret``. At its first decision in each game (the table has started, so the
processes of all four seats are alive) it reads the command line of every other child of its
parent (the arena) and appends one JSON line per process, ``{"pid": …, "argv": […]}``, to
``DIR/cmdlines.jsonl``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
from pathlib import Path

from chaodipi.bot import bot_arguments, run_bot
from chaodipi.engine.actions import Action
from chaodipi.engine.view import SeatView

_LOCK = threading.Lock()


def siblings() -> list[dict[str, object]]:
    """The pid and argv of every process whose parent is ours, this one left out."""
    found = []
    arena_argv = [
        part.decode(errors="replace")
        for part in Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
        if part
    ]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            state, parent = stat.rpartition(")")[2].split()[:2]
            if int(parent) != os.getppid() or state == "Z":
                continue  # not the arena's, or exited and not reaped yet: no command line
            raw = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue  # it exited meanwhile
        argv = [part.decode(errors="replace") for part in raw.split(b"\0") if part]
        if not argv:
            continue  # it exited between the two reads (a zombie's command line is empty)
        if argv == arena_argv:
            continue  # forked by the arena, not yet the bot it execs: the arena's own line
        found.append({"pid": int(entry.name), "argv": argv})
    return found


class Game:
    def __init__(self, record: Path) -> None:
        self.record = record
        self.rng = random.Random()
        self.looked = False

    def __call__(self, view: SeatView) -> Action:
        if not self.looked:
            self.looked = True
            lines = "".join(json.dumps(seen) + "\n" for seen in siblings())
            with _LOCK, (self.record / "cmdlines.jsonl").open("a") as out:
                out.write(lines)
        assert view.legal is not None
        return view.legal.sample(self.rng)


def main() -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, required=True)
    parser.set_defaults(name="snoop")
    args = parser.parse_args()
    secret = os.environ.get("ARENA_TICKET") or os.environ.get("ARENA_TOKEN") or ""
    with (args.record / "secrets.txt").open("a") as out:
        out.write(f"{os.getpid()} {secret}\n")
    print(run_bot(new_game=lambda: Game(args.record), name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
