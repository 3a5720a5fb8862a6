"""Train a Stable-Baselines3 agent against a bot: sb3-contrib's MaskablePPO on the single-seat
environment (chaodipi.rl.single.SingleSeatEnv, docs/rl-environment.md).

    python3 examples/rl_sb3.py --steps 20000 --against heuristic

The learner plays one team (a seat and its partner share the policy) against the bot named by
``--against`` (``random``, ``heuristic``, or the dotted name of a module with a
``decide(view)`` function) on whole hands of a preset, choosing among the list form's
candidates with the mask applied. Then it plays duplicate deals against the same bot (each deal
twice, the learner's team dealt first one side's cards, then the other's) and prints its
score: hands won (a tie counts half) and its level margin a hand.

Needs the ``rl-examples`` extra and torch (docs/rl-environment.md says how to install torch's
CPU build first).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

import torch
from sb3_contrib import MaskablePPO

from chaodipi.rl import SingleSeatEnv
from chaodipi.search import heuristic_move as heuristic

BOTS: dict[str, Any] = {"random": "random", "heuristic": heuristic}


def bot_named(name: str) -> Any:
    """``random``, ``heuristic``, or a module name (SingleSeatEnv reads it)."""
    return BOTS.get(name, name)


def evaluate(model: MaskablePPO, against: Any, preset: str, limit: int,
             deals: int) -> list[float]:
    """Each deal twice, the learner's team at seats 0 and 2, then 1 and 3: its level margin
    each hand (its climb less the other team's)."""
    margins = []
    for seat in (0, 1):
        env = SingleSeatEnv(preset, seat=seat, team=True, opponent=against, limit=limit,
                            zero_sum=True)
        for deal in range(deals):
            observation, _ = env.reset(seed=10_000 + deal)
            total, over = 0.0, False
            while not over:
                action, _ = model.predict(observation, action_masks=env.action_masks(),
                                          deterministic=True)
                observation, reward, over, _, _ = env.step(int(action))
                total += reward
            margins.append(total)
    return margins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=20_000, help="training steps (decisions)")
    parser.add_argument("--against", default="random",
                        help="the bot: random, heuristic, or a module with decide(view)")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--limit", type=int, default=32, help="candidates listed at most")
    parser.add_argument("--deals", type=int, default=50,
                        help="evaluation deals (each played twice)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.deals < 1:
        parser.error("--steps and --deals: at least 1")
    torch.set_num_threads(1)
    against = bot_named(args.against)
    env = SingleSeatEnv(args.preset, team=True, opponent=against, limit=args.limit,
                        zero_sum=True)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=min(256, max(args.steps, 64)),
                        batch_size=64, seed=args.seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    trained = time.perf_counter() - start
    margins = evaluate(model, against, args.preset, args.limit, args.deals)
    won = sum(m > 0 for m in margins)
    lost = sum(m < 0 for m in margins)
    tied = len(margins) - won - lost
    score = 100 * (won + tied / 2) / len(margins)
    print(f"trained MaskablePPO for {model.num_timesteps} steps in {trained:.0f} s")
    print(f"vs {args.against}: {len(margins)} hands ({args.deals} deals x 2), won {won}, "
          f"lost {lost}, tied {tied}: score {score:.1f} %, "
          f"level margin {statistics.fmean(margins):+.2f} a hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
