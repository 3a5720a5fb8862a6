"""A test bot whose play depends only on what it sees: random legal moves from a generator
seeded, per game, by the first hand it is dealt. The same deal and seat give the same game,
whichever process or machine plays it (runs on Ray are compared with local ones).

    ARENA_TOKEN=T python3 tests/bots/steady_bot.py --address A [--delay-ms 5]

``--delay-ms``: sleep this long before each decision, so a run lasts a while on any machine.
"""

from __future__ import annotations

import random
import sys
import time

from chaodipi.bot import bot_arguments, run_bot
from chaodipi.engine.actions import Action
from chaodipi.engine.view import SeatView


class Game:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.rng: random.Random | None = None

    def __call__(self, view: SeatView) -> Action:
        if self.rng is None:
            self.rng = random.Random(" ".join(str(int(card)) for card in sorted(view.hand)))
        if self.delay_s:
            time.sleep(self.delay_s)
        return view.legal.sample(self.rng)


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.set_defaults(name="steady")
    args = parser.parse_args(argv)
    result = run_bot(new_game=lambda: Game(args.delay_ms / 1000), argv=argv, name=args.name)
    print(result, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
