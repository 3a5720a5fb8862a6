"""A test bot that plays random legal moves in its first ``--clean-games`` games (per process)
and answers every decision of later games with an action that is not legal (the arena refuses
it and the SDK plays a safe one instead: an illegal answer and a fallback each time); with
``--crash``, it raises at its first decision instead (its process dies: a crash).

    ARENA_TOKEN=T python3 tests/bots/faulty_bot.py --address A --clean-games 1
    python3 tests/bots/faulty_bot.py --address A --token-file F --bot-version v2 --crash
"""

from __future__ import annotations

import itertools
import random
import sys

from chaodipi.bot import Action, Pass, SeatView, bot_arguments, run_bot


def main() -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--clean-games", type=int, default=1, help="games played cleanly")
    parser.add_argument("--crash", action="store_true", help="raise at the first decision")
    parser.set_defaults(name="faulty")
    args = parser.parse_args()
    games = itertools.count(1)

    def new_game():  # type: ignore[no-untyped-def]
        game = next(games)
        rng = random.Random(game)

        def decide(view: SeatView) -> Action:
            assert view.legal is not None
            if args.crash:
                raise RuntimeError("this version cannot play: its model file is missing")
            if game <= args.clean_games:
                return view.legal.sample(rng)
            wrong = [a for a in (Pass(),) if a not in view.legal]
            return wrong[0] if wrong else view.legal.sample(rng)

        return decide

    print(run_bot(new_game=new_game, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
