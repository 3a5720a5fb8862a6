"""The agent examples/rl_train.py trained, as an arena bot: the SDK gives it a ``SeatView``, it
encodes it as in training (``chaodipi.rl.encoding``) and plays the candidate it scores best.

    python3 examples/rl_train.py                       # writes examples/results/rl_agent.npz
    python3 -m chaodipi.arena run examples/rl_vs_random.toml

(the arena starts it as ``python3 examples/rl_bot.py --weights examples/results/rl_agent.npz``
and sets ARENA_TOKEN or ARENA_TICKET itself). Needs numpy (the ``rl`` extra), not PettingZoo.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from rl_train import Model  # beside this file: the same model and encoding as in training

from chaodipi.bot import Action, SeatView, bot_arguments, run_bot


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, default=Path("examples/results/rl_agent.npz"),
                        help="the weights examples/rl_train.py saved")
    parser.add_argument("--seed", type=int, default=0, help="seed of the candidates drawn")
    parser.set_defaults(name="rl-agent")
    args = parser.parse_args(argv)
    if not args.weights.is_file():
        print(f"rl_bot: no weights at {args.weights}: run examples/rl_train.py first",
              file=sys.stderr)
        return 2
    model = Model.load(args.weights)
    rng = random.Random(args.seed)

    def decide(view: SeatView) -> Action:
        return model.choose(view, rng)

    print(run_bot(decide, argv=argv, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
