"""A sample bot that also thinks: each decision spends ``$BENCH_THINK_US`` µs of CPU more.

    BENCH_THINK_US=1000 python3 benchmarks/thinking_bot.py heuristic --address ADDRESS

Stands in for a bot whose ``decide`` costs about a millisecond (a rule bot with search, an RL
policy): the random or heuristic sample bot's choice, then a busy loop on the thread's CPU
clock. ``cpu_per_decision.py --think-us`` plays it through ``arena run`` and, through
:func:`thinking`, in-process, so the ratio of the two is measured for such a bot;
``in_process_ratio.py --think-us`` plays its in-process forms too (:class:`Random`,
:class:`Heuristic`: ``py:thinking_bot:Random`` with this folder on the module path).
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

THINK_US = "BENCH_THINK_US"
"""The environment variable that says how many µs of CPU each decision spends more."""

View = TypeVar("View")
Choice = TypeVar("Choice")


def think_us() -> int:
    """The µs of CPU each decision spends more (``$BENCH_THINK_US``, 0 when unset)."""
    return int(os.environ.get(THINK_US, "0"))


def thinking(decide: Callable[[View], Choice], us: int) -> Callable[[View], Choice]:
    """``decide``, then ``us`` µs of CPU spent in a busy loop (``decide`` itself when 0)."""
    if us <= 0:
        return decide
    spend = us / 1e6

    def slower(view: View) -> Choice:
        choice = decide(view)
        until = time.thread_time() + spend
        while time.thread_time() < until:
            pass
        return choice

    return slower


def main() -> int:
    from chaodipi.bot import SeatView, bot_arguments, run_bot
    from chaodipi.engine import Action
    from chaodipi.search import heuristic_move

    name, argv = sys.argv[1], sys.argv[2:]
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.set_defaults(name=name)
    args = parser.parse_args(argv)
    rng = random.Random()

    def random_decide(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.sample(rng)

    chosen = {"random": random_decide, "heuristic": heuristic_move}[name]
    print(run_bot(thinking(chosen, think_us()), argv=argv, name=args.name), file=sys.stderr)
    return 0


class Random:
    """The random rung's in-process form (:mod:`chaodipi.sample_bots.rungs`), then
    ``$BENCH_THINK_US`` µs of CPU."""

    def __init__(self) -> None:
        from chaodipi.sample_bots.rungs import Random as Rung

        self.decide: Callable[[Any], Any] = thinking(Rung(), think_us())

    def __call__(self, view: Any) -> Any:
        return self.decide(view)


class Heuristic(Random):
    """The heuristic rung's in-process form, then ``$BENCH_THINK_US`` µs of CPU."""

    def __init__(self) -> None:
        from chaodipi.sample_bots.rungs import Heuristic as Rung

        self.decide = thinking(Rung(), think_us())


if __name__ == "__main__":
    sys.exit(main())
