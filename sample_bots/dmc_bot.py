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
"""

from __future__ import annotations

import math
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path

from chaodipi.bot import Action, Decide, SeatView, bot_arguments, run_bot

__all__ = ["BLAS_THREADS", "MODEL", "main", "one_blas_thread"]

MODEL = Path(__file__).resolve().parent / "models" / "dmc-classic.npz"
"""The shipped model (package data)."""
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set how many threads numpy's BLAS starts, read as numpy is imported."""


def one_blas_thread() -> None:
    """Make numpy's BLAS use one thread, unless the environment says otherwise; call it before
    numpy is imported. Q of a few dozen candidates is a small product: BLAS threads waiting
    for work spend over ten times its CPU (``benchmarks/dmc_cpu.py``), taken from the other
    bots of the machine."""
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--model", type=Path, default=MODEL,
        help="the model file (chaodipi.rl.save_model's .npz; default: the shipped one)",
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
        from chaodipi.rl import QPolicy, load_model, resolve_bot
    except ImportError as error:
        parser.error(f"needs the rl extra (pip install 'chaodipi-arena[rl]'): {error}")
    if not args.model.is_file():
        shipped = " (the shipped model is not in this install)" if args.model == MODEL else ""
        parser.error(f"--model {args.model}: no such file{shipped}")
    try:
        model = load_model(args.model)
    except ValueError as error:
        parser.error(f"--model: {error}")
    name = model.teacher if args.teacher is None else args.teacher
    teacher: Callable[[SeatView], Action] | None = None
    if name is not None and name != "none":
        try:
            teacher = resolve_bot(name)
        except ValueError as error:
            parser.error(f"--teacher: {error}")
    if teacher is None and args.threshold is not None:
        parser.error("--threshold is the teacher's: this model names none (give --teacher)"
                     if name is None else "--threshold is the teacher's: not with --teacher none")
    threshold = model.threshold if args.threshold is None else args.threshold
    seeds = random.Random(args.seed)

    def new_game() -> Decide:
        rng = random.Random(seeds.getrandbits(64))
        return QPolicy(model, rng, args.limit, teacher=teacher, threshold=threshold).decide

    print(run_bot(new_game=new_game, argv=argv, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
