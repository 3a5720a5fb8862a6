"""The Monte-Carlo bot: samples the hidden hands, plays candidates out with the engine, keeps
the best on average (:func:`chaodipi.search.monte_carlo_move`).

For each of a handful of candidate plays (the heuristic's), it draws deals of the cards it has
not seen, uniformly among those consistent with everything it saw, plays the hand on for a few
tricks with a fast policy and keeps the candidate with the best mean when it beats the
heuristic's choice clearly. Bidding, burying and frying are the heuristic's.

Its budget is thinking time, which games played at once would share (one core, under the
GIL): in a session it asks for one game at a time unless given ``--capacity``. With
``--samples N`` it judges every candidate on exactly ``N`` sampled worlds instead (the same
search on any machine, for fixed-budget ladders), ``--budget-ms`` then being a cap only.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.mc_bot --address 127.0.0.1:50051 \
        [--budget-ms 300]
    ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.mc_bot --address 127.0.0.1:50051 \
        [--budget-ms 300] [--samples 60]
"""

from __future__ import annotations

import random
import sys

from chaodipi.bot import bot_arguments, run_bot
from chaodipi.search import monte_carlo_move

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=None,
        help="thinking time per play (default 300; with --samples, a cap, 0: none)",
    )
    parser.add_argument(
        "--samples", type=int, default=None, help="sampled worlds per play (fixed budget)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible sampling")
    parser.set_defaults(name="montecarlo", capacity=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.samples is not None and args.samples < 1:
        parser.error(f"--samples must be at least 1, not {args.samples}")
    budget_ms = args.budget_ms if args.budget_ms is not None else 0 if args.samples else 300
    if budget_ms < 0 or (budget_ms == 0 and args.samples is None):
        parser.error(f"--budget-ms must be positive without --samples, not {budget_ms}")
    budget = budget_ms / 1000 if budget_ms else None
    samples = args.samples
    result = run_bot(
        lambda view: monte_carlo_move(view, rng, budget, samples),
        argv=argv,
        name=args.name,
        capacity=args.capacity,
    )
    print(result, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
