"""The random bot: every move uniformly at random among the legal ones.

ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.random_bot --address 127.0.0.1:50051 [--seed N]
ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.random_bot --address 127.0.0.1:50051 [--seed N]

(the arena sets ARENA_TOKEN or ARENA_TICKET itself when it starts the bot).
"""

from __future__ import annotations

import random
import sys

from chaodipi.bot import Action, SeatView, bot_arguments, run_bot


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible play")
    parser.set_defaults(name="random")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    def decide(view: SeatView) -> Action:
        assert view.legal is not None  # always set when decide is asked
        return view.legal.sample(rng)

    print(run_bot(decide, argv=argv, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
