"""The hands the trainer learns from, and the duels it is evaluated by (in-process, no gRPC).

A hand is played in one of three stages (:class:`Stage`):

* ``imitate``: every seat plays the teacher bot (a ``decide(view)`` bot, the heuristic by
  default), each decision with probability ε a uniformly drawn candidate instead;
* ``versus``: one team (alternating hand by hand) plays the network ε-greedy, the other the
  teacher;
* ``self``: every seat plays the network ε-greedy (DouZero's self-play).

Every decision with more than one candidate is kept: the seat's observation, up to
:data:`KEPT` candidates' features (the chosen one and others drawn at random: the network's
among the :data:`LIMIT` it scored, the teacher's and a drawn one's among :data:`KEPT` drawn
with it), which one was chosen, whether the teacher chose it (a demonstration), and the
hand's outcome for the acting seat's team (:func:`hand_target`).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from chaodipi.engine import PRESETS, Action, HandRecord, Match, observe, team_of
from chaodipi.rl.bots import Decide, bot_name, per_game, resolve_bot
from chaodipi.rl.candidates import FEATURES, candidates
from chaodipi.rl.encoding import OBSERVATION_SIZE, ViewEncoder

if TYPE_CHECKING:
    from chaodipi.rl.qnet import QNet

__all__ = [
    "KEPT", "LIMIT", "Decide", "Hand", "Stage", "bot", "duel", "hand_target", "play_hand",
    "play_hands", "q_values",
]

LIMIT = 32
"""Candidates the network chooses among in training (a bury or a long lead lists 32 of its
many)."""
KEPT = 8
"""Candidates kept per decision for learning: the chosen one and up to seven others (a
teacher's choice, or an exploring draw, is made among this many, drawn with it)."""
POINTS_PER_LEVEL = 80
"""The points that weigh as much as one level in a target (the tie-break)."""

F32 = npt.NDArray[np.float32]


class Stage(enum.Enum):
    IMITATE = "imitate"
    VERSUS = "versus"
    SELF = "self"


def hand_target(record: HandRecord, seat: int) -> float:
    """A finished hand for ``seat``'s team: its progress change less the other team's, plus
    the defenders' points (theirs to gain, the dealer side's to lose) over 80 as a tie-break."""
    team = team_of(seat)
    change = [after - before for before, after in
              zip(record.progress_before, record.progress_after, strict=True)]
    defending = team != team_of(record.dealer)
    points = record.total if defending else -record.total
    return change[team] - change[1 - team] + points / POINTS_PER_LEVEL


@dataclass
class Hand:
    """One hand's kept decisions, as arrays (``n`` decisions, ``m`` candidate rows)."""

    states: F32
    """(n, OBSERVATION_SIZE) observations."""
    rows: npt.NDArray[np.int8]
    """(m, FEATURES) candidates' features, each decision's rows together."""
    owner: npt.NDArray[np.int64]
    """(m,) the decision each row belongs to."""
    chosen: npt.NDArray[np.int64]
    """(n,) each decision's chosen row (an index into ``rows``)."""
    demo: npt.NDArray[np.bool_]
    """(n,) whether the teacher chose it."""
    targets: F32
    """(n,) the hand's outcome for the acting seat's team."""


def q_values(net: QNet, states: list[F32], features: list[npt.NDArray[np.int8]]) -> list[F32]:
    """Q of each decision's candidates (``features[i]``, the rows of decision ``i`` whose
    observation is ``states[i]``), all decisions in one forward pass."""
    import torch  # (here: the stages and the duels, which the command's --help names, need none)

    counts = [len(rows) for rows in features]
    with torch.no_grad():
        owner = torch.from_numpy(np.repeat(np.arange(len(counts)), counts))
        q = net.rows(torch.from_numpy(np.stack(states)), owner,
                     torch.from_numpy(np.concatenate(features).astype(np.float32)))
    return list(np.split(q.numpy(), np.cumsum(counts)[:-1]))


class _Table:
    """One hand being played for :func:`play_hands`: its match, its seats' encoders, and the
    decisions kept so far."""

    def __init__(self, stage: Stage, teacher: Decide | None, preset: str, seed: int | str,
                 rng: random.Random) -> None:
        self.match = Match(PRESETS[preset], seed=seed, max_hands=1)
        self.teacher = None if teacher is None else per_game(teacher)
        self.encoders = [ViewEncoder(seat) for seat in range(4)]
        learner_team = rng.randrange(2)
        self.taught = [stage is Stage.IMITATE or (stage is Stage.VERSUS
                                                  and team_of(seat) != learner_team)
                       for seat in range(4)]
        self.states: list[F32] = []
        self.rows: list[npt.NDArray[np.int8]] = []
        self.seats: list[int] = []
        self.chosen: list[int] = []
        self.demo: list[bool] = []
        self.kept = 0
        self.waiting: tuple[F32, list[Action], npt.NDArray[np.int8]] | None = None
        """The network's decision this table waits for: observation, candidates, features."""

    def advance(self, rng: random.Random, epsilon: float) -> None:
        """Play until the network is to decide (:attr:`waiting`) or the hand is over."""
        match = self.match
        while not match.over:
            seat = match.to_play
            legal = match.legal_actions(seat)
            if legal.count() == 1:  # nothing to learn: no view, no encoding
                match.apply(seat, next(iter(legal)))
                continue
            view = observe(match, seat)
            state = self.encoders[seat].encode(view)
            if rng.random() < epsilon:  # a drawn candidate: among KEPT as among LIMIT
                actions, features = candidates(legal, rng, KEPT)
                self.take(state, actions, features, rng.randrange(len(actions)), rng, False)
            elif self.taught[seat]:
                assert self.teacher is not None
                action = self.teacher(view)
                actions, features = candidates(legal, rng, KEPT, include=action)
                self.take(state, actions, features, actions.index(action), rng, True)
            else:
                self.waiting = (state, *candidates(legal, rng, LIMIT))
                return

    def take(self, state: F32, actions: list[Action], features: npt.NDArray[np.int8],
             index: int, rng: random.Random, demo: bool) -> None:
        """Keep the decision (its choice and up to :data:`KEPT` − 1 others) and play it."""
        seat = self.match.to_play
        others = [i for i in range(len(actions)) if i != index]
        picked = [index, *rng.sample(others, min(KEPT - 1, len(others)))]
        self.states.append(state)
        self.rows.append(features[picked])
        self.seats.append(seat)
        self.chosen.append(self.kept)
        self.demo.append(demo)
        self.kept += len(picked)
        self.match.apply(seat, actions[index])

    def hand(self) -> Hand:
        record = self.match.records[-1]
        rows, counts = self.rows, [len(r) for r in self.rows]
        return Hand(
            states=(np.stack(self.states) if self.states
                    else np.zeros((0, OBSERVATION_SIZE), np.float32)),
            rows=np.concatenate(rows) if rows else np.zeros((0, FEATURES), np.int8),
            owner=np.repeat(np.arange(len(rows)), counts).astype(np.int64),
            chosen=np.array(self.chosen, np.int64),
            demo=np.array(self.demo, np.bool_),
            targets=np.array([hand_target(record, seat) for seat in self.seats], np.float32),
        )


def play_hands(net: QNet, stage: Stage, teacher: Decide | None, preset: str,
               seeds: Sequence[int | str], rng: random.Random, epsilon: float) -> list[Hand]:
    """One hand of ``stage`` per seed, played side by side: each round plays every table up to
    its network's next decision, then scores the candidates of all those decisions in one
    forward pass (a pass over many rows costs less a row than one over a decision's few).
    Each hand's kept decisions, labelled, in the seeds' order."""
    tables = [_Table(stage, teacher, preset, seed, rng) for seed in seeds]
    for table in tables:
        table.advance(rng, epsilon)
    while waiting := [t for t in tables if t.waiting is not None]:
        decisions = [t.waiting for t in waiting if t.waiting is not None]
        values = q_values(net, [d[0] for d in decisions], [d[2] for d in decisions])
        for table, (state, actions, features), q in zip(waiting, decisions, values, strict=True):
            table.waiting = None
            table.take(state, actions, features, int(np.argmax(q)), rng, False)
            table.advance(rng, epsilon)
    return [table.hand() for table in tables]


def play_hand(net: QNet, stage: Stage, teacher: Decide | None, preset: str, seed: int | str,
              rng: random.Random, epsilon: float) -> Hand:
    """One hand of ``stage``: its kept decisions, labelled (:func:`play_hands` of one)."""
    return play_hands(net, stage, teacher, preset, [seed], rng, epsilon)[0]


def duel(agent: Callable[[], Decide], other: Decide, preset: str, deals: int) -> list[float]:
    """Each deal played twice, the agent (a fresh one a hand) as team 0 then as team 1: its
    :func:`hand_target` each time."""
    values = []
    for deal in range(deals):
        for team in (0, 1):
            match = Match(PRESETS[preset], seed=f"dmc-eval/{deal}", max_hands=1)
            mine, theirs = agent(), per_game(other)
            while not match.over:
                seat = match.to_play
                decide = mine if team_of(seat) == team else theirs
                match.apply(seat, decide(observe(match, seat)))
            values.append(hand_target(match.records[-1], team))
    return values


def bot(name: str) -> tuple[str, Decide]:
    """A bot by name (:func:`~chaodipi.rl.bots.resolve_bot`) and its short name."""
    return bot_name(name), resolve_bot(name)
