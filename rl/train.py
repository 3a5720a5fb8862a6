"""Deep Monte-Carlo training (DouZero's recipe, four seats in two teams), on CPU processes or
a Ray cluster.

    python3 -m chaodipi.rl.train --preset classic --minutes 60 --out model/

One :class:`~chaodipi.rl.qnet.QNet` scores Q(observation, candidate) over the list form for
every seat (the observation says which side the seat is on). Actors play whole hands
in-process (:mod:`chaodipi.rl.selfplay`: ``--stage imitate``, ``versus`` or ``self``) and label
every decision with the hand's outcome for the acting seat's team. The learner regresses Q on
those outcomes (MSE) and, on the teacher's decisions, adds DQfD's large-margin loss (the
teacher's choice above every other candidate by ``--margin``), then hands its weights to the
actors. Every ``--eval-minutes`` it plays duplicate deals against the ``--against`` bots, writes
``OUT/model.pt`` (``--resume`` continues it, in any stage) and ``OUT/model.npz`` (the numpy
model :mod:`chaodipi.rl.policy` plays without torch), and logs one JSON line to stdout and
``OUT/log.jsonl``.

The command reads its options before anything imports torch: ``--help`` and a bad option need
none; the learner's functions import it (and :mod:`~chaodipi.rl.qnet`) when training runs, and a
run without it says what to install in one line.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import queue
import random
import signal
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from chaodipi.engine import PRESETS
from chaodipi.rl.policy import (
    DEFAULT_THRESHOLD,
    MAX_MODEL_BYTES,
    QPolicy,
    inflated_bytes,
    model_bytes,
)
from chaodipi.rl.selfplay import LIMIT, Decide, Hand, Stage, bot, duel, play_hand

if TYPE_CHECKING:
    import torch

    from chaodipi.rl.qnet import QNet

NEEDS_TORCH = (
    "it needs the rl extra and torch's CPU build: pip install torch --index-url "
    "https://download.pytorch.org/whl/cpu && pip install -e '.[rl]'"
)
"""What a run without torch is told (after the missing module's name)."""

__all__ = ["Progress", "elo", "load", "loss_of", "main", "train"]

Emit = Callable[[dict[str, Any]], None]


@dataclass
class Progress:
    hands: int = 0
    samples: int = 0
    steps: int = 0
    seconds: float = 0.0
    """Training time, over every run that continued this checkpoint."""


def loss_of(net: QNet, hands: list[Hand], margin: float,
            weight: float) -> tuple[torch.Tensor, float | None]:
    """MSE of Q on the chosen candidates against their hands' outcomes, plus ``weight`` times
    the large-margin loss on the teacher's decisions: max over the candidates of (Q + margin
    for every candidate but the teacher's) less Q of the teacher's. Beside it, the share of
    the teacher's decisions where the teacher's choice has the highest Q (None without any)."""
    import torch
    from torch import nn

    states = torch.from_numpy(np.concatenate([h.states for h in hands]))
    rows = torch.from_numpy(np.concatenate([h.rows for h in hands]).astype(np.float32))
    owner_parts, chosen_parts, first_decision, first_row = [], [], 0, 0
    for hand in hands:
        owner_parts.append(hand.owner + first_decision)
        chosen_parts.append(hand.chosen + first_row)
        first_decision += len(hand.states)
        first_row += len(hand.rows)
    owner = torch.from_numpy(np.concatenate(owner_parts))
    chosen = torch.from_numpy(np.concatenate(chosen_parts))
    targets = torch.from_numpy(np.concatenate([h.targets for h in hands]))
    q = net.rows(states, owner, rows)
    q_chosen = q[chosen]
    loss = nn.functional.mse_loss(q_chosen, targets)
    demo = torch.from_numpy(np.concatenate([h.demo for h in hands]))
    if not bool(demo.any()):
        return loss, None
    with torch.no_grad():
        best = torch.full((len(states),), -torch.inf).scatter_reduce(
            0, owner, q, reduce="amax")
        agreement = float((q_chosen >= best)[demo].float().mean())
    if weight > 0:
        raised = q + margin
        raised[chosen] = q_chosen
        top = torch.full((len(states),), -torch.inf).scatter_reduce(
            0, owner, raised, reduce="amax")
        loss = loss + weight * (top - q_chosen)[demo].mean()
    return loss, agreement


def _actor(index: int, shared: QNet, plan: tuple[Stage, str, str, float], seed: int,
           out: Any, stop: Any) -> None:
    import torch
    import torch.multiprocessing as mp

    from chaodipi.rl.qnet import QNet

    torch.set_num_threads(1)
    stage, teacher_name, preset, epsilon = plan
    net = QNet(shared.hidden)
    rng = random.Random(f"{seed}/{index}")
    teacher = bot(teacher_name)[1] if stage is not Stage.SELF else None
    learner = mp.parent_process()

    def wanted() -> bool:  # until the learner says stop, or is gone (killed)
        return not stop.is_set() and learner is not None and learner.is_alive()

    hand = 0
    while wanted():
        net.load_state_dict(shared.state_dict())
        sample = play_hand(net, stage, teacher, preset, f"train/{seed}/{index}/{hand}", rng,
                           epsilon)
        hand += 1
        while wanted():
            try:
                out.put(sample, timeout=0.5)
                break
            except queue.Full:
                continue
    out.cancel_join_thread()


class Processes:
    """``--actors`` spawned processes on this machine, reading the learner's weights from a
    shared-memory copy before each hand."""

    def __init__(self, net: QNet, args: argparse.Namespace, seed: int) -> None:
        import torch.multiprocessing as mp

        from chaodipi.rl.qnet import QNet

        self.shared = QNet(net.hidden)
        self.shared.load_state_dict(net.state_dict())
        self.shared.share_memory()
        ctx = mp.get_context("spawn")
        self.hands: Any = ctx.Queue(maxsize=64)
        self.stop = ctx.Event()
        plan = (args.stage, args.teacher, args.preset, args.epsilon)
        self.actors = [ctx.Process(target=_actor, daemon=True,
                                   args=(i, self.shared, plan, seed, self.hands, self.stop))
                       for i in range(args.actors)]
        for actor in self.actors:
            actor.start()

    def publish(self, net: QNet) -> None:
        self.shared.load_state_dict(net.state_dict())

    def collect(self, timeout: float) -> Iterator[Hand]:
        try:
            yield self.hands.get(timeout=timeout)
        except queue.Empty:
            return

    def close(self) -> None:
        self.stop.set()
        for actor in self.actors:
            actor.join(timeout=10)
            if actor.is_alive():
                actor.terminate()


def train(args: argparse.Namespace, emit: Emit) -> Progress:
    import torch
    from torch import nn

    from chaodipi.rl.qnet import HIDDEN, QNet

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out: Path = args.out
    checkpoint = out / "model.pt"
    net = QNet(HIDDEN if args.hidden is None else tuple(args.hidden))
    progress = Progress()
    saved: dict[str, Any] | None = None
    if args.resume:
        net, saved = load(checkpoint)
        net.train()
        progress = Progress(**saved["progress"])
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    if saved is not None and saved.get("stage") == args.stage.value:
        optimizer.load_state_dict(saved["optimizer"])
    seed = args.seed + progress.hands
    if args.ray is not None:
        from chaodipi.rl.ray_actors import RayActors

        actors: Processes | RayActors = RayActors(net, args, seed)
    else:
        actors = Processes(net, args, seed)
    pending: list[Hand] = []
    start = time.perf_counter()
    origin = start - progress.seconds  # the clock of the checkpoint's whole training
    deadline = start + 60 * args.minutes
    next_report = start + args.report_seconds
    next_eval = start + 60 * args.eval_minutes
    last_hands, last_time = progress.hands, start
    losses: list[float] = []
    agreements: list[float] = []
    stop_at = progress.hands + args.hands if args.hands is not None else None
    try:
        while time.perf_counter() < deadline and (stop_at is None or progress.hands < stop_at):
            for hand in actors.collect(timeout=1.0):
                pending.append(hand)
                progress.hands += 1
                progress.samples += len(hand.targets)
            if sum(len(h.targets) for h in pending) >= args.batch:
                loss, agreement = loss_of(net, pending, args.margin, args.imitation_weight)
                optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                optimizer.step()
                losses.append(loss.item())
                if agreement is not None:
                    agreements.append(agreement)
                progress.steps += 1
                pending = []
                actors.publish(net)
            now = time.perf_counter()
            if now >= next_report:
                emit({"minutes": round((now - origin) / 60, 2), "hands": progress.hands,
                      "hands_per_s": round((progress.hands - last_hands) / (now - last_time), 2),
                      "samples": progress.samples, "steps": progress.steps,
                      "loss": round(float(np.mean(losses)), 4) if losses else None,
                      "agreement": round(float(np.mean(agreements)), 3) if agreements else None})
                last_hands, last_time, losses, agreements = progress.hands, now, [], []
                next_report = now + args.report_seconds
            if now >= next_eval:
                _checkpoint(args, net, optimizer, progress, origin, emit, evaluate_too=True)
                next_eval = time.perf_counter() + 60 * args.eval_minutes
    finally:
        actors.close()
    _checkpoint(args, net, optimizer, progress, origin, emit,
                evaluate_too=args.eval_deals > 0)
    return progress


def evaluate(net: QNet, preset: str, deals: int, opponents: list[tuple[str, Decide]],
             teacher: Decide | None = None,
             threshold: float = DEFAULT_THRESHOLD) -> dict[str, float]:
    """Score % (hands won, half a tie) and mean hand target against each opponent, on ``deals``
    duplicate deals (each played twice, the network as each team), played as the dmc bot
    plays the model file: greedily, or with the teacher and its threshold
    (:class:`~chaodipi.rl.policy.QPolicy`)."""
    from chaodipi.rl.qnet import to_model

    figures: dict[str, float] = {}
    model = to_model(net, LIMIT)  # what the dmc bot plays of it

    def player() -> Decide:
        return QPolicy(model, random.Random(1), teacher=teacher, threshold=threshold).decide

    for name, other in opponents:
        values = duel(player, other, preset, deals)
        won = sum(v > 0 for v in values) + sum(v == 0 for v in values) / 2
        score = won / len(values)
        figures[f"score_vs_{name}"] = round(100 * score, 1)
        figures[f"elo_vs_{name}"] = elo(score)
        figures[f"margin_vs_{name}"] = round(float(np.mean(values)), 3)
    return figures


def elo(score: float) -> float:
    """The Elo difference a score (0 to 1) stands for, ±800 at a score of 0 or 1.

    >>> elo(0.5), elo(0.75), elo(0.0)
    (0.0, 190.8, -800.0)
    """
    if score <= 0 or score >= 1:
        return -800.0 if score <= 0 else 800.0
    return round(max(-800.0, min(800.0, 400 * math.log10(score / (1 - score)))), 1)


def _checkpoint(args: argparse.Namespace, net: QNet, optimizer: torch.optim.Optimizer,
                progress: Progress, origin: float, emit: Emit, evaluate_too: bool) -> None:
    import torch

    from chaodipi.rl.qnet import export

    progress.seconds = time.perf_counter() - origin
    path = args.out / "model.pt"
    tmp = path.with_suffix(".tmp")
    torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(),
                "hidden": list(net.hidden), "preset": args.preset, "stage": args.stage.value,
                "progress": vars(progress)}, tmp)
    tmp.replace(path)
    taught = {} if args.stage is Stage.SELF else {"teacher": args.teacher,
                                                   "threshold": args.threshold}
    export(net, args.out / "model.npz", {
        "preset": args.preset, "limit": LIMIT, "hands": progress.hands,
        "minutes": round(progress.seconds / 60, 1), "seed": args.seed,
        "stage": args.stage.value, "command": " ".join(["python3 -m chaodipi.rl.train",
                                                         *args.argv]), **taught})
    if evaluate_too:
        net.eval()
        teacher = None if args.stage is Stage.SELF else bot(args.teacher)[1]
        figures = evaluate(net, args.preset, args.eval_deals, args.opponents, teacher,
                           args.threshold)
        net.train()
        emit({"minutes": round(progress.seconds / 60, 2), "hands": progress.hands,
              "eval": figures})


MAX_CHECKPOINT_BYTES = 4 * MAX_MODEL_BYTES
"""The most a checkpoint may inflate to: a network of at most :data:`MAX_MODEL_BYTES`, with
Adam's two moments beside it, and room."""


def load(path: Path) -> tuple[QNet, dict[str, Any]]:
    """A checkpoint's network and the whole saved dictionary; a ValueError, one line, names
    what is wrong with a file this trainer did not write (torch reads it as weights only, so
    it runs no code; one larger than :data:`MAX_CHECKPOINT_BYTES` is refused unread)."""
    import torch

    from chaodipi.rl.qnet import QNet

    where = f"{path}: not a checkpoint of this trainer"
    try:
        with zipfile.ZipFile(path) as archive:
            size = inflated_bytes(archive)
    except (OSError, zipfile.BadZipFile) as error:
        raise ValueError(f"{where} (a torch zip archive): {error}") from None
    if size > MAX_CHECKPOINT_BYTES:
        raise ValueError(f"{path}: it inflates to {size >> 20:,} MiB, larger than a checkpoint "
                         f"may be ({MAX_CHECKPOINT_BYTES >> 20:,} MiB)")
    try:
        saved = torch.load(path, weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError, OSError) as error:
        raise ValueError(f"{where}: {_first_line(error)}") from None
    hidden = saved.get("hidden") if isinstance(saved, dict) else None
    if not (isinstance(hidden, list) and hidden
            and all(isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in hidden)):
        raise ValueError(f"{where}: hidden {hidden!r} is not a list of positive widths")
    if model_bytes(hidden) > MAX_MODEL_BYTES:
        raise ValueError(f"{path}: hidden {hidden} is a network larger than a model may be "
                         f"({MAX_MODEL_BYTES >> 20:,} MiB)")
    progress = saved.get("progress")
    if not (isinstance(progress, dict) and set(progress) <= {f.name for f in fields(Progress)}):
        raise ValueError(f"{where}: progress {progress!r} is not the trainer's")
    net = QNet(tuple(hidden))
    try:
        net.load_state_dict(saved["model"])
        torch.optim.Adam(net.parameters()).load_state_dict(saved["optimizer"])
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"{where}: its weights do not fit hidden {hidden}: "
                         f"{_first_line(error)}") from None
    net.eval()
    return net, saved


def _first_line(error: BaseException) -> str:
    said = str(error).strip()
    return said.splitlines()[0] if said else type(error).__name__


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="python3 -m chaodipi.rl.train",
        description="Train a Q(observation, action) network by Deep Monte-Carlo on CPU "
        "(docs/rl-environment.md, \"Training a bot\").")
    add = parse.add_argument
    add("--preset", default="classic", choices=sorted(PRESETS), help="(default: classic)")
    add("--minutes", type=float, default=15.0, help="training time (default: 15)")
    add("--hands", type=int, default=None,
        help="stop after this many more hands, or at --minutes (default: at --minutes)")
    add("--out", type=Path, required=True,
        help="folder for model.pt (torch checkpoint), model.npz (numpy model), log.jsonl")
    add("--resume", action="store_true",
        help="continue OUT/model.pt (its weights, hands and time; any stage)")
    add("--stage", type=Stage, default=Stage.SELF, choices=list(Stage),
        metavar="{imitate,versus,self}",
        help="who plays the hands learnt from: every seat the teacher (imitate), the network"
        " against the teacher (versus), or the network everywhere (self) (default: self)")
    add("--teacher", default="heuristic", metavar="BOT",
        help="the teacher of the imitate and versus stages: heuristic (chaodipi.search's"
        " heuristic policy), random, or a module with decide(view) (default: heuristic)")
    add("--threshold", type=float, default=DEFAULT_THRESHOLD,
        help="after the imitate and versus stages the model plays its teacher's choice unless"
        " a candidate's Q is higher by more than this (levels a hand); written in model.npz"
        f" and played by the evaluations (default: {DEFAULT_THRESHOLD})")
    add("--actors", type=int, default=1, help="self-play processes (default: 1)")
    add("--ray", metavar="ADDRESS", default=None,
        help="run the actors as Ray actors on a cluster (auto, local: one started here, or"
        " HOST:PORT of the head); the learner"
        " stays in this process (default: processes on this machine)")
    add("--epsilon", type=float, default=0.05,
        help="exploration: a uniformly drawn candidate instead (default: 0.05)")
    add("--margin", type=float, default=0.2,
        help="the large-margin loss's margin on the teacher's decisions (default: 0.2)")
    add("--imitation-weight", type=float, default=1.0,
        help="the large-margin loss's weight; 0 turns it off (default: 1)")
    add("--lr", type=float, default=3e-4, help="Adam's learning rate (default: 0.0003)")
    add("--batch", type=int, default=512,
        help="decisions per learner step, whole hands (default: 512)")
    add("--hidden", type=int, nargs="+", default=None,
        help="hidden layer sizes of a new network (default: the network's, 512 256 256)")
    add("--eval-minutes", type=float, default=5.0,
        help="minutes between evaluations and checkpoints (default: 5)")
    add("--eval-deals", type=int, default=50,
        help="duplicate deals per evaluation, each played twice; 0: none at the end"
        " (default: 50)")
    add("--report-seconds", type=float, default=30.0,
        help="seconds between log lines (default: 30)")
    add("--against", action="append", metavar="BOT",
        help="evaluation opponent: random, heuristic, or a module with decide(view)"
        " (repeatable; default: random and heuristic)")
    add("--seed", type=int, default=0, help="seeds deals and exploration (default: 0)")
    return parse


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parse = parser()
    args = parse.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args.opponents = [bot(name) for name in
                          args.against or ["random", "heuristic"]]
        if args.stage is not Stage.SELF:
            bot(args.teacher)
    except ValueError as error:
        parse.error(str(error))
    if args.actors < 1:
        parse.error(f"--actors {args.actors}: at least one actor")
    if not (math.isfinite(args.threshold) and args.threshold >= 0):
        parse.error(f"--threshold {args.threshold}: give a number ≥ 0")
    try:
        import torch  # noqa: F401  (the learner's: imported once the options are read)
    except ModuleNotFoundError as missing:
        sys.exit(f"{parse.prog}: {missing}: {NEEDS_TORCH}")
    if args.resume and not (args.out / "model.pt").is_file():
        parse.error(f"--resume: no checkpoint at {args.out / 'model.pt'}")
    if args.resume:
        try:
            load(args.out / "model.pt")
        except ValueError as error:
            parse.error(f"--resume: {error}")
    if args.ray is not None:
        from chaodipi.rl.ray_actors import check_ray

        check_ray(parse, args.ray)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "log.jsonl"

    def emit(entry: dict[str, Any]) -> None:
        line = json.dumps(entry)
        print(line, flush=True)
        with log.open("a") as file:
            file.write(line + "\n")

    signal.signal(signal.SIGTERM, _terminate)  # ends the actors, as Ctrl-C does
    progress = train(args, emit)
    emit({"done": vars(progress)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
