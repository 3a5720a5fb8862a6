"""Card-play agreement with the search: how often a model, and the heuristic policy, choose
what the search bot chooses, on deals no trainer plays; and each one's CPU a decision.

    python3 benchmarks/search_agreement.py [--model PATH] [--deals 10] [--preset classic]

The first figure a rung above ``search`` distilled from it needs (a network that plays the
search's card-play choices could play out the search's worlds in its place): every seat plays
the search policy at the search40 budget (``"search"``, :class:`chaodipi.rl.bots.SearchBot`: 40
playouts a decision, no clock) on deals seeded ``agreement/N`` (the trainer's hands are
``train/…``, its evaluations' ``dmc-eval/…``); at each card-play decision with more than one
legal play, from the same view, the model chooses as the dmc bot plays it (over its teacher
with its threshold), and greedily (the highest Q alone), and the heuristic policy chooses. It
prints one JSON line: the decisions, each one's share of the search's choices, and the CPU
milliseconds a decision of the search, the model (as the dmc bot) and the heuristic. A model
trained on the heuristic (the shipped one) measures where such a distillation starts. Needs
numpy (the rl extra).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

from chaodipi.sample_bots.dmc_bot import MODEL, one_blas_thread

one_blas_thread()  # as the dmc bot plays: BLAS threads waiting on small products cost CPU

from chaodipi.engine import PRESETS, Action, Match, Phase, SeatView, observe  # noqa: E402
from chaodipi.rl import QPolicy, load_model, resolve_bot  # noqa: E402
from chaodipi.search import heuristic_move  # noqa: E402


def timed(decide: Callable[[SeatView], Action], view: SeatView, cpu: dict[str, float],
          name: str) -> Action:
    start = time.process_time()
    action = decide(view)
    cpu[name] = cpu.get(name, 0.0) + time.process_time() - start
    return action


def main() -> None:
    parse = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parse.add_argument("--model", default=str(MODEL), help="(default: the shipped classic one)")
    parse.add_argument("--deals", type=int, default=10, help="deals played (default: 10)")
    parse.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    args = parse.parse_args()
    model = load_model(args.model)
    model.check_preset(args.preset)
    teacher = None if model.teacher is None else resolve_bot(model.teacher)
    agree = {"dmc": 0, "greedy": 0, "heuristic": 0}
    cpu: dict[str, float] = {}
    decisions = searched = 0
    for deal in range(args.deals):
        match = Match(PRESETS[args.preset], seed=f"agreement/{deal}", max_hands=1)
        search = resolve_bot("search")  # the search at search40's budget, no clock
        search.seed(deal)  # type: ignore[attr-defined]
        dmc = QPolicy(model, random.Random(deal), threshold=model.threshold, teacher=teacher)
        greedy = QPolicy(model, random.Random(deal))
        while not match.over:
            view = observe(match, match.to_play)
            assert view.legal is not None
            chosen = timed(search, view, cpu, "search")
            searched += 1
            if view.legal.phase is Phase.PLAY and view.legal.count() > 1:
                decisions += 1
                for name, decide in (("dmc", dmc.decide), ("greedy", greedy.decide),
                                     ("heuristic", heuristic_move)):
                    agree[name] += timed(decide, view, cpu, name) == chosen
            match.apply(match.to_play, chosen)
    print(json.dumps({
        "model": args.model, "preset": args.preset, "deals": args.deals,
        "card_play_decisions": decisions,
        **{f"agreement_{name}": round(count / max(decisions, 1), 3)
           for name, count in agree.items()},
        **{f"cpu_ms_{name}": round(1000 * seconds / max(decisions, 1), 2)
           for name, seconds in cpu.items() if name != "search"},
        "searched_decisions": searched,
        "cpu_ms_search": round(1000 * cpu["search"] / max(searched, 1), 2),
    }))


if __name__ == "__main__":
    main()
