"""Deep Monte-Carlo self-play training (DouZero's recipe, four seats in two teams), on CPU.

    python3 -m chaodipi.rl.dmc --preset classic --minutes 15 --out DIR [--actors N] [--resume]

One torch MLP scores Q(observation, candidate) over the list form (:mod:`chaodipi.rl.encoding`
for the seat's view, :mod:`chaodipi.rl.candidates` for each action); the observation says
which side the seat is on, so one network serves dealer side and defenders. Actor processes
play whole self-play hands in-process (:class:`~chaodipi.engine.Match` and
:func:`~chaodipi.engine.observe`), ε-greedy over the candidates, and label every decision with
the hand's outcome for the acting seat's team (:func:`hand_target`). The learner regresses Q
on those labels (MSE, Adam) and copies its weights into a shared-memory model the actors read
before each hand. Every ``--eval-minutes`` it plays duplicate deals against the bots named by
``--against`` (by default the random bot and ``chaodipi.sample_bots.heuristic_bot``, named as a
module: rl imports nothing above engine and records), and it writes ``DIR/model.pt``
(``--resume`` starts from it) and one JSON line per report to ``DIR/log.jsonl``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import queue
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
import torch.multiprocessing as mp
from torch import nn

from chaodipi.engine import PRESETS, Action, HandRecord, Match, SeatView, observe, team_of
from chaodipi.rl.candidates import FEATURES, candidates
from chaodipi.rl.encoding import OBSERVATION_SIZE, ViewEncoder

__all__ = ["DmcPolicy", "QNet", "hand_target", "load", "main", "play_hand", "train"]

Array = npt.NDArray[np.float32]
LIMIT = 32
"""Candidates scored per decision (a bury or a long lead lists 32 of its many)."""
POINTS_PER_LEVEL = 80
"""The points that weigh as much as one level in a target (the tie-break)."""
Sample = tuple[Array, Array, Array]
"""One hand's decisions: observations, chosen actions' features, targets."""


class QNet(nn.Module):
    """Q(s, a): an MLP over the observation and one candidate's features."""

    def __init__(self, hidden: tuple[int, ...] = (512, 256, 256)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = OBSERVATION_SIZE + FEATURES
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 1))
        self.hidden = hidden
        self.body = nn.Sequential(*layers)

    def forward(self, states: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(torch.cat([states, actions], dim=1)).squeeze(1)
        return out


def hand_target(record: HandRecord, seat: int) -> float:
    """A finished hand for ``seat``'s team: its progress change less the other team's, plus
    the defenders' points (theirs to gain, the dealer side's to lose) over 80 as a tie-break."""
    team = team_of(seat)
    change = [after - before for before, after in
              zip(record.progress_before, record.progress_after, strict=True)]
    defending = team != team_of(record.dealer)
    points = record.total if defending else -record.total
    return change[team] - change[1 - team] + points / POINTS_PER_LEVEL


class DmcPolicy:
    """Plays a :class:`QNet` from seat views: argmax Q over the candidates, or with
    probability ``epsilon`` a uniform one. Keep one per match (an encoder per seat)."""

    def __init__(self, net: QNet, rng: random.Random, epsilon: float = 0.0) -> None:
        self.net, self.rng, self.epsilon = net, rng, epsilon
        self.encoders = [ViewEncoder(seat) for seat in range(4)]

    def choose(self, view: SeatView) -> tuple[Action, Array | None, Array | None]:
        """The action, and (when there was a choice) the observation and its features."""
        assert view.legal is not None, "a view to decide from has its legal actions"
        actions, features = candidates(view.legal, self.rng, LIMIT)
        state = self.encoders[view.seat].encode(view)
        if len(actions) == 1:
            return actions[0], None, None
        if self.rng.random() < self.epsilon:
            index = self.rng.randrange(len(actions))
        else:
            with torch.no_grad():
                rows = torch.from_numpy(features.astype(np.float32))
                states = torch.from_numpy(state).expand(len(actions), -1)
                index = int(torch.argmax(self.net(states, rows)))
        return actions[index], state, features[index].astype(np.float32)

    def decide(self, view: SeatView) -> Action:
        return self.choose(view)[0]


def play_hand(policy: DmcPolicy, preset: str, seed: int | str) -> Sample:
    """One self-play hand, every seat played by ``policy``: its decisions, labelled."""
    match = Match(PRESETS[preset], seed=seed, max_hands=1)
    taken: list[tuple[int, Array, Array]] = []
    while not match.over:
        seat = match.to_play
        action, state, row = policy.choose(observe(match, seat))
        if state is not None and row is not None:
            taken.append((seat, state, row))
        match.apply(seat, action)
    record = match.records[-1]
    targets = np.array([hand_target(record, seat) for seat, _, _ in taken], np.float32)
    states = np.stack([s for _, s, _ in taken]) if taken else np.zeros((0, OBSERVATION_SIZE),
                                                                        np.float32)
    rows = np.stack([r for _, _, r in taken]) if taken else np.zeros((0, FEATURES), np.float32)
    return states, rows, targets


def _actor(index: int, shared: QNet, preset: str, epsilon: float, seed: int,
           out: Any, stop: Any) -> None:
    torch.set_num_threads(1)
    net = QNet(shared.hidden)
    policy = DmcPolicy(net, random.Random(f"{seed}/{index}"), epsilon)
    hand = 0
    while not stop.is_set():
        net.load_state_dict(shared.state_dict())
        sample = play_hand(policy, preset, f"dmc/{seed}/{index}/{hand}")
        hand += 1
        while not stop.is_set():
            try:
                out.put(sample, timeout=0.5)
                break
            except queue.Full:
                continue
    out.cancel_join_thread()


Decide = Callable[[SeatView], Action]


def duel(agent: Decide, other: Decide, preset: str, deals: int) -> list[float]:
    """Each deal played twice, the agent as team 0 then as team 1: its :func:`hand_target`."""
    values = []
    for deal in range(deals):
        for team in (0, 1):
            match = Match(PRESETS[preset], seed=f"dmc-eval/{deal}", max_hands=1)
            while not match.over:
                seat = match.to_play
                bot = agent if team_of(seat) == team else other
                match.apply(seat, bot(observe(match, seat)))
            values.append(hand_target(match.records[-1], team))
    return values


def opponent(name: str) -> tuple[str, Decide]:
    """An evaluation opponent: ``random`` (uniform over the legal actions), or the dotted name
    of a module with a ``decide(view)`` function (``chaodipi.sample_bots.heuristic_bot``)."""
    if name == "random":
        rng = random.Random(0)

        def random_bot(view: SeatView) -> Action:
            assert view.legal is not None
            return view.legal.sample(rng)

        return "random", random_bot
    decide = getattr(importlib.import_module(name), "decide", None)
    if not callable(decide):
        raise ValueError(f"--against {name}: the module has no decide(view) function")
    return name.rsplit(".", 1)[-1].removesuffix("_bot"), decide


def evaluate(net: QNet, preset: str, deals: int,
             opponents: list[tuple[str, Decide]]) -> dict[str, float]:
    """Score % (hands won, half a tie) and mean :func:`hand_target` against each opponent."""
    figures: dict[str, float] = {}
    for name, bot in opponents:
        policy = DmcPolicy(net, random.Random(1))
        values = duel(policy.decide, bot, preset, deals)
        won = sum(v > 0 for v in values) + sum(v == 0 for v in values) / 2
        figures[f"score_vs_{name}"] = round(100 * won / len(values), 1)
        figures[f"margin_vs_{name}"] = round(float(np.mean(values)), 3)
    return figures


@dataclass
class Progress:
    hands: int = 0
    samples: int = 0
    steps: int = 0
    seconds: float = 0.0
    """Training time, over every run that continued this checkpoint."""


def save(path: Path, net: QNet, optimizer: torch.optim.Optimizer, progress: Progress,
         preset: str) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(),
                "hidden": list(net.hidden), "preset": preset,
                "progress": vars(progress)}, tmp)
    tmp.replace(path)


def load(path: Path) -> tuple[QNet, dict[str, Any]]:
    """A checkpoint's network (for :class:`DmcPolicy`) and the whole saved dictionary."""
    saved: dict[str, Any] = torch.load(path, weights_only=True)
    net = QNet(tuple(saved["hidden"]))
    net.load_state_dict(saved["model"])
    net.eval()
    return net, saved


def train(args: argparse.Namespace, emit: Callable[[dict[str, Any]], None]) -> Progress:
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = out / "model.pt"
    net = QNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    progress = Progress()
    if args.resume:
        net, saved = load(checkpoint)
        net.train()
        optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
        optimizer.load_state_dict(saved["optimizer"])
        progress = Progress(**saved["progress"])
    shared = QNet(net.hidden)
    shared.load_state_dict(net.state_dict())
    shared.share_memory()
    ctx = mp.get_context("spawn")
    samples: Any = ctx.Queue(maxsize=64)
    stop = ctx.Event()
    actors = [ctx.Process(target=_actor, daemon=True,
                          args=(i, shared, args.preset, args.epsilon,
                                args.seed + progress.hands, samples, stop))
              for i in range(args.actors)]
    for actor in actors:
        actor.start()

    buffer: list[Sample] = []
    buffered = 0
    start = time.perf_counter()
    origin = start - progress.seconds  # the clock of the checkpoint's whole training
    deadline = start + 60 * args.minutes
    next_report = start + args.report_seconds
    next_eval = start + 60 * args.eval_minutes
    last_hands, last_time, losses = progress.hands, start, []
    try:
        while time.perf_counter() < deadline:
            try:
                sample = samples.get(timeout=1.0)
            except queue.Empty:
                continue
            buffer.append(sample)
            buffered += len(sample[2])
            progress.hands += 1
            progress.samples += len(sample[2])
            if buffered >= args.batch:  # each sample learnt from once, as DouZero does
                states, rows, targets = (np.concatenate(part) for part in zip(*buffer, strict=True))
                whole = len(targets) - len(targets) % args.batch
                buffer = [(states[whole:], rows[whole:], targets[whole:])]
                buffered = len(targets) - whole
                for first in range(0, whole, args.batch):
                    batch = slice(first, first + args.batch)
                    loss = nn.functional.mse_loss(
                        net(torch.from_numpy(states[batch]), torch.from_numpy(rows[batch])),
                        torch.from_numpy(targets[batch]))
                    optimizer.zero_grad()
                    loss.backward()  # type: ignore[no-untyped-call]
                    nn.utils.clip_grad_norm_(net.parameters(), 40.0)
                    optimizer.step()
                    losses.append(loss.item())
                    progress.steps += 1
                shared.load_state_dict(net.state_dict())
            now = time.perf_counter()
            if now >= next_report:
                emit({"minutes": round((now - start) / 60, 2), "hands": progress.hands,
                      "hands_per_s": round((progress.hands - last_hands) / (now - last_time), 2),
                      "samples": progress.samples, "steps": progress.steps,
                      "loss": round(float(np.mean(losses)), 4) if losses else None})
                last_hands, last_time, losses = progress.hands, now, []
                next_report = now + args.report_seconds
            if now >= next_eval:
                _checkpoint(args, net, optimizer, progress, origin, checkpoint, emit,
                            evaluate_too=True)
                next_eval = time.perf_counter() + 60 * args.eval_minutes
    finally:
        stop.set()
        for actor in actors:
            actor.join(timeout=10)
            if actor.is_alive():
                actor.terminate()
    _checkpoint(args, net, optimizer, progress, origin, checkpoint, emit,
                evaluate_too=args.eval_deals > 0)
    return progress


def _checkpoint(args: argparse.Namespace, net: QNet, optimizer: torch.optim.Optimizer,
                progress: Progress, origin: float, path: Path,
                emit: Callable[[dict[str, Any]], None], evaluate_too: bool) -> None:
    progress.seconds = time.perf_counter() - origin
    save(path, net, optimizer, progress, args.preset)
    if evaluate_too:
        net.eval()
        figures = evaluate(net, args.preset, args.eval_deals, args.opponents)
        net.train()
        emit({"minutes": round(progress.seconds / 60, 2), "hands": progress.hands,
              "eval": figures})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--minutes", type=float, default=15.0, help="training time")
    parser.add_argument("--out", type=Path, required=True, help="folder for model.pt, log.jsonl")
    parser.add_argument("--resume", action="store_true", help="start from OUT/model.pt")
    parser.add_argument("--actors", type=int, default=1, help="self-play processes")
    parser.add_argument("--epsilon", type=float, default=0.05, help="exploration rate")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--eval-minutes", type=float, default=3.0)
    parser.add_argument("--eval-deals", type=int, default=25, help="duplicate deals (× 2)")
    parser.add_argument("--report-seconds", type=float, default=30.0)
    parser.add_argument("--against", action="append", metavar="BOT",
                        help="evaluation opponent: random, or a module with decide(view)"
                        " (repeatable; default: random and chaodipi.sample_bots.heuristic_bot)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        args.opponents = [opponent(name) for name in
                          args.against or ["random", "chaodipi.sample_bots.heuristic_bot"]]
    except ImportError as error:
        parser.error(f"--against: {error}")
    except ValueError as error:
        parser.error(str(error))
    if args.actors < 1:
        parser.error(f"--actors {args.actors}: at least one actor")
    if args.resume and not (args.out / "model.pt").is_file():
        parser.error(f"--resume: no checkpoint at {args.out / 'model.pt'}")
    log = args.out / "log.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)

    def emit(entry: dict[str, Any]) -> None:
        line = json.dumps(entry)
        print(line, flush=True)
        with log.open("a") as file:
            file.write(line + "\n")

    progress = train(args, emit)
    emit({"done": vars(progress)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
