"""The DMC bot: plays a trained Q(s, a) model (chaodipi.rl.QPolicy), numpy only.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.dmc_bot --address 127.0.0.1:50051
    ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.dmc_bot --model PATH --address ...

Each decision encodes the seat's view as in training (:class:`~chaodipi.rl.ViewEncoder`),
lists the candidates (:func:`~chaodipi.rl.candidates`, the model's ``limit``) and scores them.
A model trained on a teacher's hands names its teacher (the shipped one: the heuristic bot):
the bot plays the teacher's choice unless a candidate's Q is higher than that choice's by more
than the model's ``threshold`` (``--teacher`` and ``--threshold`` change them; ``--teacher
none`` plays the candidate of highest Q). The model is a file :func:`~chaodipi.rl.save_model`
wrote (by default the one shipped beside this module, :data:`MODEL`). It needs numpy (the
``rl`` extra), not torch or PettingZoo. Each game gets its own encoders and its own generator
of candidates, drawn from ``--seed``. It runs numpy's BLAS on one thread (:func:`one_blas_thread`).

A model plays the preset it was trained on, no other. Without ``--model`` the bot holds every
model shipped beside this module (:func:`shipped`: ``models/dmc-PRESET.npz``, today classic's
alone) and plays each game with the one of its preset; a game of a preset it has no model for
ends the bot with one line naming the game's preset and the presets it has a model for (exit
status 1), at the game's first decision, before it plays anything.
"""

from __future__ import annotations

import math
import os
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from chaodipi.bot import Action, Decide, SeatView, bot_arguments, run_bot

if TYPE_CHECKING:
    from chaodipi.rl import QModel

__all__ = [
    "BLAS_THREADS", "MODEL", "MODELS", "Game", "Policy", "main", "one_blas_thread", "shipped",
]

MODELS = Path(__file__).resolve().parent / "models"
"""The shipped models (package data): ``dmc-PRESET.npz``, each trained on its preset."""
MODEL = MODELS / "dmc-classic.npz"
"""The shipped model of the classic preset."""
Policy = Callable[[SeatView], Action]
"""A policy: the action to play at a view."""
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set how many threads numpy's BLAS starts, read as numpy is imported."""


def one_blas_thread() -> None:
    """Make numpy's BLAS use one thread, unless the environment says otherwise; call it before
    numpy is imported. Q of a few dozen candidates is a small product: BLAS threads waiting
    for work spend over ten times its CPU (``benchmarks/dmc_cpu.py``), taken from the other
    bots of the machine."""
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")


def shipped() -> dict[str, Path]:
    """The shipped models by the preset each was trained on (its file's name says it; a test
    checks the name against the model's ``meta``)."""
    return {path.stem.removeprefix("dmc-"): path for path in sorted(MODELS.glob("dmc-*.npz"))}


class Game:
    """One game's player: at the game's first decision, the policy of the model for the
    game's preset; a preset with none raises :class:`~chaodipi.rl.PresetError`."""

    def __init__(self, policies: Mapping[str, Callable[[], Policy]], given: QModel | None) -> None:
        self.policies, self.given = policies, given
        self.decide: Policy | None = None

    def __call__(self, view: SeatView) -> Action:
        if self.decide is None:
            preset = view.preset.name
            if self.given is not None:
                self.given.check_preset(preset)
            make = self.policies.get(preset)
            if make is None:
                from chaodipi.rl import PresetError

                raise PresetError(
                    f"no model shipped for the {preset} preset (shipped: "
                    f"{', '.join(sorted(self.policies))}): give --model a model trained on it "
                    f"(python3 -m chaodipi.rl.train --preset {preset})"
                )
            self.decide = make()
        return self.decide(view)


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--model", type=Path, default=None,
        help="the model file (chaodipi.rl.save_model's .npz), played in games of the preset it"
        " was trained on only (default: the shipped model of each game's preset: "
        f"{', '.join(shipped()) or 'none in this install'})",
    )
    parser.add_argument(
        "--limit", type=int, default=None,
        help="candidates scored a decision (default: the model's, as it was trained)",
    )
    parser.add_argument(
        "--teacher", default=None, metavar="BOT",
        help="the bot whose choices the model improves on: a module with decide(view), random,"
        " or none to play the highest Q alone (default: the model's teacher; the shipped"
        " model's is chaodipi.sample_bots.heuristic_bot)",
    )
    parser.add_argument(
        "--threshold", type=float, default=None,
        help="how much higher than the teacher's choice a candidate's Q must be to be played"
        " instead, in levels a hand (default: the model's; the shipped model's is 0.3)",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the candidates drawn")
    parser.set_defaults(name="dmc")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit must be at least 1, not {args.limit}")
    if args.threshold is not None and not (math.isfinite(args.threshold) and args.threshold >= 0):
        parser.error(f"--threshold must be a number ≥ 0, not {args.threshold}")
    one_blas_thread()
    try:
        from chaodipi.rl import PresetError, QPolicy, load_model, resolve_bot
    except ImportError as error:
        parser.error(f"needs the rl extra (pip install 'chaodipi-arena[rl]'): {error}")
    paths = shipped() if args.model is None else {"": args.model}
    if not paths:
        parser.error(f"no model shipped in {MODELS} (the shipped models are not in this "
                     "install): give --model")
    models: dict[str, QModel] = {}
    for path in paths.values():
        if not path.is_file():
            parser.error(f"--model {path}: no such file")
        try:
            model = load_model(path)
        except ValueError as error:
            parser.error(f"--model: {error}")
        models[model.preset] = model
    policies: dict[str, Callable[[], Policy]] = {}
    seeds = random.Random(args.seed)
    for preset, model in models.items():
        name = model.teacher if args.teacher is None else args.teacher
        teacher: Policy | None = None
        if name is not None and name != "none":
            try:
                teacher = resolve_bot(name)
            except ValueError as error:
                parser.error(f"--teacher: {error}")
        if teacher is None and args.threshold is not None:
            parser.error("--threshold is the teacher's: this model names none (give --teacher)"
                         if name is None else
                         "--threshold is the teacher's: not with --teacher none")
        threshold = model.threshold if args.threshold is None else args.threshold

        def policy(model: QModel = model, teacher: Policy | None = teacher,
                   threshold: float = threshold) -> Policy:
            rng = random.Random(seeds.getrandbits(64))
            return QPolicy(model, rng, args.limit, teacher=teacher, threshold=threshold).decide

        policies[preset] = policy
    given = None if args.model is None else next(iter(models.values()))

    def new_game() -> Decide:
        return Game(policies, given)

    try:
        result = run_bot(new_game=new_game, argv=argv, name=args.name)
    except PresetError as error:
        raise SystemExit(f"{parser.prog}: {error}") from None
    print(result, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
