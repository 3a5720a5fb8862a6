"""Many environments stepped together, for a learner that evaluates a batch per call
(docs/rl-environment.md).

:class:`BatchedEnv` holds N list-form environments, all self-play
:class:`~chaodipi.rl.env.ChaoDipiEnv` (``action_form="list"``: the agent to act in each) or all
:class:`~chaodipi.rl.single.SingleSeatEnv` (the learner against bots), and steps them with one
array of N candidate indices. What the learner sees comes as one stacked array each, the rows
in the environments' order:

* ``observation`` (N × 767, ``float32``), ``candidates`` (N × ``limit`` × 70, ``int8``),
  ``action_mask`` (N × ``limit``, ``int8``), as one environment's observation;
* ``seat`` (N, ``int64``): the seat that acts next in each.

:meth:`BatchedEnv.step` returns the next batch, the rewards (N × 4, each seat's, of self-play;
N, the learner's, of single-seat environments) and ``ended`` (N booleans): the match of that
row ended at this step and the environment was reset, so its row is the next match's first
decision (the ended match is ``final[i]``). ``reset(seed=s)`` resets environment *i* with seed
``s + i``; an environment reset after its match ended draws its next deal from that seed's
sequence, so a batch is reproducible.

>>> batch_env = BatchedEnv.make(3, "classic", limit=16)
>>> batch = batch_env.reset(seed=0)
>>> batch["observation"].shape, batch["candidates"].shape, batch["action_mask"].shape
((3, 767), (3, 16, 70), (3, 16))
>>> batch, rewards, ended = batch_env.step(batch_env.action_masks().argmax(axis=1))
>>> rewards.shape, ended.tolist()
((3, 4), [False, False, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from chaodipi.engine import Action, Match
from chaodipi.rl.candidates import FEATURES
from chaodipi.rl.encoding import OBSERVATION_SIZE
from chaodipi.rl.env import AGENTS, ChaoDipiEnv
from chaodipi.rl.single import SingleSeatEnv

__all__ = ["Batch", "BatchedEnv"]

Batch: TypeAlias = dict[str, npt.NDArray[Any]]
"""``observation``, ``candidates``, ``action_mask``, ``seat``: one row per environment."""


class BatchedEnv:
    """N list-form environments of one kind (self-play or single-seat), stepped together."""

    def __init__(self, envs: Sequence[ChaoDipiEnv | SingleSeatEnv], *, copy: bool = True) -> None:
        if not envs:
            raise ValueError("BatchedEnv: give at least one environment")
        self._learners: list[SingleSeatEnv] = [e for e in envs if isinstance(e, SingleSeatEnv)]
        self._selfplay: list[ChaoDipiEnv] = [e for e in envs if isinstance(e, ChaoDipiEnv)]
        if self._learners and self._selfplay:
            raise ValueError("BatchedEnv: all self-play ChaoDipiEnv or all SingleSeatEnv, not both")
        self.single = bool(self._learners)
        inner = [e.aec for e in self._learners] + self._selfplay
        if any(e.action_form != "list" for e in inner):
            raise ValueError("BatchedEnv: the environments play the list form (action_form='list')")
        limits = {e.limit for e in inner}
        if len(limits) != 1:
            raise ValueError(f"BatchedEnv: the environments list different limits {sorted(limits)}")
        self.envs = list(envs)
        self.n = n = len(envs)
        self.limit = limit = limits.pop()
        self.copy = copy
        """Return copies of the batch's arrays (False: the same arrays, rewritten each step)."""
        self._batch: Batch = {
            "observation": np.zeros((n, OBSERVATION_SIZE), np.float32),
            "candidates": np.zeros((n, limit, FEATURES), np.int8),
            "action_mask": np.zeros((n, limit), np.int8),
            "seat": np.zeros(n, np.int64),
        }
        self.final: list[Match | None] = [None] * n
        """The match each row ended at the last step (None: it goes on)."""

    @classmethod
    def make(
        cls, n: int, preset: str = "classic", *, single_seat: bool = False, **options: Any
    ) -> BatchedEnv:
        """``n`` environments alike: self-play ``ChaoDipiEnv(preset, action_form="list",
        **options)``, or ``SingleSeatEnv(preset, **options)`` when ``single_seat``."""
        if n < 1:
            raise ValueError(f"n {n}: at least one environment")
        if single_seat:
            return cls([SingleSeatEnv(preset, **options) for _ in range(n)])
        return cls([ChaoDipiEnv(preset, action_form="list", **options) for _ in range(n)])

    def reset(self, seed: int | None = None) -> Batch:
        """Every environment's new match (environment *i* from seed ``seed + i``)."""
        def seed_of(i: int) -> int | None:
            return None if seed is None else seed + i

        for i, env in enumerate(self._selfplay):
            env.reset(seed=seed_of(i))
            self._write(i, env.observe(env.agent_selection), env.match.to_play)
        for i, learner in enumerate(self._learners):
            observation, _ = learner.reset(seed=seed_of(i))
            self._write(i, observation, learner.aec.match.to_play)
        self.final = [None] * self.n
        return self._out()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Batch, npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Each environment plays its row's candidate index: the next batch, the rewards and
        which rows' matches ended (those environments are reset)."""
        chosen = np.asarray(actions).reshape(-1)
        if chosen.shape != (self.n,):
            raise ValueError(f"actions: one index per environment ({self.n}), got {chosen.size}")
        shape = (self.n,) if self.single else (self.n, len(AGENTS))
        rewards = np.zeros(shape, np.float32)
        ended = np.zeros(self.n, np.bool_)
        self.final = [None] * self.n
        for i, env in enumerate(self._selfplay):
            env.step(int(chosen[i]))
            rewards[i] = [env.rewards[agent] for agent in AGENTS]
            if env.match.over:
                self.final[i], ended[i] = env.match, True
                env.reset()
            self._write(i, env.observe(env.agent_selection), env.match.to_play)
        for i, learner in enumerate(self._learners):
            observation, reward, over, _, _ = learner.step(int(chosen[i]))
            rewards[i] = reward
            if over:
                self.final[i], ended[i] = learner.aec.match, True
                observation, _ = learner.reset()
            self._write(i, observation, learner.aec.match.to_play)
        return self._out(), rewards, ended

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The masks of the batch, N × ``limit`` booleans."""
        return self._batch["action_mask"].astype(bool)

    def candidate_actions(self, i: int) -> list[Action]:
        """The engine actions environment ``i``'s candidates stand for."""
        env = self.envs[i]
        return env.candidate_actions()

    def _write(self, i: int, observation: dict[str, Any], seat: int) -> None:
        batch = self._batch
        batch["observation"][i] = observation["observation"]
        batch["candidates"][i] = observation["candidates"]
        batch["action_mask"][i] = observation["action_mask"]
        batch["seat"][i] = seat

    def _out(self) -> Batch:
        if not self.copy:
            return self._batch
        return {name: array.copy() for name, array in self._batch.items()}
