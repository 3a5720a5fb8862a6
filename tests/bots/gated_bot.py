"""A test bot that plays random legal moves, but makes no move before the file ``--gate PATH``
exists: a test creates it once what must happen before the play (a spectator joining) has.

    ARENA_TOKEN=T python3 tests/bots/gated_bot.py --address A --gate PATH
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from chaodipi.bot import Action, SeatView, bot_arguments, run_bot


def main() -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--gate", type=Path, required=True, help="wait for this file (no default)")
    parser.set_defaults(name="gated")
    args = parser.parse_args()
    rng = random.Random(1)

    def decide(view: SeatView) -> Action:
        while not args.gate.exists():  # the test's event: a file made, not a time gone by
            time.sleep(0.01)
        assert view.legal is not None
        return view.legal.sample(rng)

    print(run_bot(decide, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
