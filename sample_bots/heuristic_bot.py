"""The heuristic bot: plays like a sensible 升级 player (:func:`chaodipi.search.heuristic_move`).

* bids and fries on hands long in a would-be trump (a little more carefully when bids are
  hidden and a failed fry costs 80);
* buries low side cards from short suits, never trumps or points when it can help it;
* leads what cannot be beaten (a throw only when no unseen card could stop it), else low cards
  from long side suits;
* follows: wins the trick cheaply when it can and it matters, feeds points to a partner who is
  winning, and otherwise sheds its least valuable cards; it remembers who showed a void.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.heuristic_bot --address 127.0.0.1:50051
    ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.heuristic_bot --address 127.0.0.1:50051
"""

from __future__ import annotations

import sys

from chaodipi.bot import bot_arguments, run_bot
from chaodipi.search import heuristic_move

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.set_defaults(name="heuristic")
    args = parser.parse_args(argv)
    print(run_bot(heuristic_move, argv=argv, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
