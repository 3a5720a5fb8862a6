"""The hands the trainer learns from, and the duels it is evaluated by (in-process, no gRPC).

A hand is played in one of three stages (:class:`Stage`):

* ``imitate``: every seat plays the teacher bot (a ``decide(view)`` bot, the heuristic by
  default), each decision with probability ε a uniformly drawn candidate instead;
* ``versus``: one team (alternating hand by hand) plays the network ε-greedy, the other the
  teacher;
* ``self``: every seat plays the network ε-greedy (DouZero's self-play).

Every decision with more than one candidate is kept: the seat's observation, up to
:data:`KEPT` candidates' features (the chosen one and others drawn at random), which one was
chosen, whether the teacher chose it (a demonstration), and the hand's outcome for the acting
seat's team (:func:`hand_target`).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from chaodipi.engine import PRESETS, HandRecord, Match, observe, team_of
from chaodipi.rl.bots import Decide, bot_name, resolve_bot
from chaodipi.rl.candidates import FEATURES, candidates, features_of
from chaodipi.rl.encoding import OBSERVATION_SIZE, ViewEncoder

if TYPE_CHECKING:
    from chaodipi.rl.qnet import QNet

__all__ = ["KEPT", "LIMIT", "Decide", "Hand", "Stage", "bot", "duel", "hand_target", "play_hand"]

LIMIT = 32
"""Candidates the network chooses among in training (a bury or a long lead lists 32 of its
many; the teacher's choice is always among them)."""
KEPT = 8
"""Candidates kept per decision for learning: the chosen one and up to seven others."""
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


def best(net: QNet, state: F32, features: npt.NDArray[np.int8]) -> int:
    """The index of the candidate with the highest Q."""
    import torch  # (here: the stages and the duels, which the command's --help names, need none)

    with torch.no_grad():
        states = torch.from_numpy(state).unsqueeze(0)
        owner = torch.zeros(len(features), dtype=torch.long)
        q = net.rows(states, owner, torch.from_numpy(features.astype(np.float32)))
    return int(torch.argmax(q))


def play_hand(net: QNet, stage: Stage, teacher: Decide | None, preset: str, seed: int | str,
              rng: random.Random, epsilon: float) -> Hand:
    """One hand of ``stage``: its kept decisions, labelled."""
    match = Match(PRESETS[preset], seed=seed, max_hands=1)
    encoders = [ViewEncoder(seat) for seat in range(4)]
    learner_team = rng.randrange(2)
    taught = {seat: stage is Stage.IMITATE or (stage is Stage.VERSUS
                                               and team_of(seat) != learner_team)
              for seat in range(4)}
    states: list[F32] = []
    rows: list[npt.NDArray[np.int8]] = []
    seats: list[int] = []
    chosen: list[int] = []
    demo: list[bool] = []
    kept = 0
    while not match.over:
        seat = match.to_play
        view = observe(match, seat)
        assert view.legal is not None
        state = encoders[seat].encode(view)
        if view.legal.count() == 1:
            match.apply(seat, next(iter(view.legal)))
            continue
        actions, features = candidates(view.legal, rng, LIMIT)
        exploring = rng.random() < epsilon
        if exploring:
            index = rng.randrange(len(actions))
        elif taught[seat]:
            assert teacher is not None
            action = teacher(view)
            if action in actions:
                index = actions.index(action)
            else:  # the teacher's choice, always among the candidates
                index = len(actions) - 1
                actions[index] = action
                features[index] = features_of(action)
        else:
            index = best(net, state, features)
        others = [i for i in range(len(actions)) if i != index]
        picked = [index, *rng.sample(others, min(KEPT - 1, len(others)))]
        states.append(state)
        rows.append(features[picked])
        seats.append(seat)
        chosen.append(kept)
        demo.append(taught[seat] and not exploring)
        kept += len(picked)
        match.apply(seat, actions[index])
    record = match.records[-1]
    counts = [len(r) for r in rows]
    return Hand(
        states=np.stack(states) if states else np.zeros((0, OBSERVATION_SIZE), np.float32),
        rows=np.concatenate(rows) if rows else np.zeros((0, FEATURES), np.int8),
        owner=np.repeat(np.arange(len(rows)), counts).astype(np.int64),
        chosen=np.array(chosen, np.int64),
        demo=np.array(demo, np.bool_),
        targets=np.array([hand_target(record, seat) for seat in seats], np.float32),
    )


def duel(agent: Callable[[], Decide], other: Decide, preset: str, deals: int) -> list[float]:
    """Each deal played twice, the agent (a fresh one a hand) as team 0 then as team 1: its
    :func:`hand_target` each time."""
    values = []
    for deal in range(deals):
        for team in (0, 1):
            match = Match(PRESETS[preset], seed=f"dmc-eval/{deal}", max_hands=1)
            mine = agent()
            while not match.over:
                seat = match.to_play
                decide = mine if team_of(seat) == team else other
                match.apply(seat, decide(observe(match, seat)))
            values.append(hand_target(match.records[-1], team))
    return values


def bot(name: str) -> tuple[str, Decide]:
    """A bot by name (:func:`~chaodipi.rl.bots.resolve_bot`) and its short name."""
    return bot_name(name), resolve_bot(name)
