"""The search bot: perfect-information Monte-Carlo search over sampled deals (PIMC), fixed budget
(:func:`chaodipi.search.search_move`).

Every decision with a choice to make is a small search: a few candidate moves, worlds drawn
among the deals consistent with everything the seat saw, each candidate played out to the end
of the hand in each world and scored in levels (the points as a tie-break); it plays the
candidate with the best mean, keeping the heuristic's move unless another beats it clearly.
Card play, burying and frying (where bids are shown) are searched; declaring, and frying
while bids are hidden, are the heuristic's (:mod:`chaodipi.search.pimc` says how).

The budget: ``--simulations N`` playouts per decision (one playout is one candidate played
out in one world, about 0.4–1.5 ms of CPU), the same search on any machine given ``--seed``;
``--budget-ms`` caps a decision's thinking time (by default well inside the arena's 1 s
deadline on a loaded machine; ``0``: no clock, for runs that must not depend on the machine's
load). ``--help`` gives the defaults.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.search_bot --address 127.0.0.1:50051 \
        [--simulations 120] [--budget-ms 500] [--seed 1]
"""

from __future__ import annotations

import random
import sys

from chaodipi.bot import bot_arguments, run_bot
from chaodipi.search import DEFAULT_CAP_MS, DEFAULT_SIMULATIONS, Budget, search_move

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--simulations",
        type=int,
        default=DEFAULT_SIMULATIONS,
        help=f"playouts per decision (default {DEFAULT_SIMULATIONS})",
    )
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=DEFAULT_CAP_MS,
        help=f"a decision's thinking time at most (default {DEFAULT_CAP_MS}; 0: no clock)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible sampling")
    parser.set_defaults(name="search", capacity=1)
    args = parser.parse_args(argv)
    if args.simulations < 1:
        parser.error(f"--simulations must be at least 1, not {args.simulations}")
    if args.budget_ms < 0:
        parser.error(f"--budget-ms must be 0 (no clock) or more, not {args.budget_ms}")
    rng = random.Random(args.seed)
    budget = Budget(args.simulations, args.budget_ms / 1000 if args.budget_ms else None)
    result = run_bot(
        lambda view: search_move(view, rng, budget),
        argv=argv,
        name=args.name,
        capacity=args.capacity,
    )
    print(result, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
