"""One learner against bots: a single-agent Gymnasium environment (docs/rl-environment.md).

:class:`SingleSeatEnv` seats the learner at one seat, or at one team (``team=True``: the seat
and its partner share the policy), and plays every other seat with a bot, any
``decide(view) -> Action`` callable: :func:`chaodipi.search.heuristic_move`, a trained model's,
a user's own. A string names one: ``"random"`` (uniform over the legal actions, from a generator
seeded by ``reset(seed=...)``), ``"heuristic"`` (the heuristic policy), or the dotted name of a
module with a ``decide(view)`` function. A bot with a ``seed(int)`` method is seeded by
``reset(seed=...)`` too (one seed per seat), so an episode is reproducible whenever its bots are.

Underneath is :class:`~chaodipi.rl.env.ChaoDipiEnv` in the list form (``self.aec``: its
options, rewards, observation and ``render`` are those documented there). The agent sees:

* the observation, a ``Dict`` of the seat's encoded view (``observation``, 767 entries), its
  candidates' feature rows padded to ``limit`` (``candidates``) and ``action_mask``;
  :meth:`SingleSeatEnv.action_masks` is that mask as booleans (sb3-contrib's ``MaskablePPO``
  reads it);
* ``Discrete(limit)`` actions, an index into the candidates. An index the mask forbids plays
  candidate ``index % count`` and says so in ``info["invalid_action"]`` (``strict=True``: raises
  ``ValueError`` instead), so any action of the space steps;
* its own rewards on its own steps: what its team earned (a hand's reward, the match's) while
  the bots played after it, given on the step that the learner took before them; zero
  elsewhere. Nothing is lost: a reward earned after the learner's last step comes with the
  step that ends the episode. An episode is one match of ``max_hands`` hands (default 1).

>>> env = SingleSeatEnv("classic", seat=1, opponent="random")
>>> observation, info = env.reset(seed=3)
>>> total, over = 0.0, False
>>> while not over:
...     action = int(env.np_random.choice(env.action_masks().nonzero()[0]))
...     observation, reward, over, truncated, info = env.step(action)
...     total += reward
>>> record = env.aec.match.records[-1]
>>> total == record.progress_after[1] - record.progress_before[1]
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, TypeAlias

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from chaodipi.engine import Action, SeatView
from chaodipi.rl.bots import Opponent, resolve_bot
from chaodipi.rl.env import AGENTS, ChaoDipiEnv

__all__ = ["SingleSeatEnv"]

Observation: TypeAlias = dict[str, npt.NDArray[Any]]


class SingleSeatEnv(gymnasium.Env[Observation, np.int64]):
    """The learner at ``seat`` (and its partner when ``team``), bots at the other seats.

    ``opponent`` plays every other seat, or maps each other seat to its own bot; ``options``
    go to :class:`~chaodipi.rl.env.ChaoDipiEnv` (``max_hands``, ``limit``, ``level_weight``,
    ``points_weight``, ``win_weight``, ``zero_sum``, ``render_mode``)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012

    def __init__(
        self,
        preset: str = "classic",
        *,
        seat: int = 0,
        team: bool = False,
        opponent: Opponent | Mapping[int, Opponent] = "random",
        strict: bool = False,
        **options: Any,
    ) -> None:
        if seat not in range(4):
            raise ValueError(f"seat {seat!r}: a seat, 0 to 3")
        if "action_form" in options:
            raise ValueError("action_form: the single-seat environment plays the list form")
        self.aec = ChaoDipiEnv(preset, action_form="list", **options)
        self.seat = seat
        self.learners = (seat, (seat + 2) % 4) if team else (seat,)
        others = [s for s in range(4) if s not in self.learners]
        if isinstance(opponent, Mapping):
            if sorted(opponent) != others:
                raise ValueError(
                    f"opponent: name a bot for each other seat {others}, got {sorted(opponent)}"
                )
            specs = {s: opponent[s] for s in others}
        else:
            specs = dict.fromkeys(others, opponent)
        try:
            self.bots = {s: resolve_bot(spec) for s, spec in specs.items()}
        except ValueError as error:
            raise ValueError(f"opponent {error}") from None
        self.strict = strict
        self.render_mode = self.aec.render_mode
        self.observation_space = self.aec.observation_space(AGENTS[seat])
        self.action_space = spaces.Discrete(self.aec.limit)
        self._mask = np.zeros(self.aec.limit, np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new match (``seed`` as :meth:`ChaoDipiEnv.reset`; ``options`` are its options),
        played by the bots up to the learner's first decision."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        if seed is not None:
            seeds = random.Random(f"bots/{seed}")
            for _, bot in sorted(self.bots.items()):
                reseed = getattr(bot, "seed", None)
                if callable(reseed):
                    reseed(seeds.getrandbits(63))
        self._carried = self._bots_play()
        return self._observe(), {"seat": self.aec.match.to_play}

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The learner plays candidate ``action``, then the bots up to its next decision (or the
        match's end): what its team earned meanwhile is the reward."""
        aec = self.aec
        if aec.match.over:
            raise ValueError("the match is over: reset() before stepping again")
        index, count = int(action), len(aec.candidate_actions())
        invalid = not 0 <= index < count
        if invalid:
            if self.strict:
                raise ValueError(
                    f"action {index} is not a candidate: there are {count} (0 to {count - 1})"
                )
            index %= count
        aec.step(index)
        reward = self._carried + aec.rewards[AGENTS[self.seat]] + self._bots_play()
        self._carried = 0.0
        info = {"seat": None if aec.match.over else aec.match.to_play, "invalid_action": invalid}
        return self._observe(), reward, aec.match.over, False, info

    def _bots_play(self) -> float:
        """The bots' actions up to the learner's turn: what the learner's team earned by them."""
        aec, earned = self.aec, 0.0
        while not aec.match.over and aec.match.to_play not in self.learners:
            seat = aec.match.to_play
            aec.step_action(self.bots[seat](aec.view(seat)))
            earned += aec.rewards[AGENTS[self.seat]]
        return earned

    def _observe(self) -> Observation:
        aec = self.aec
        seat = self.seat if aec.match.over else aec.match.to_play
        observation = aec.observe(AGENTS[seat])
        self._mask = observation["action_mask"]
        return observation

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The candidates the learner may choose now (sb3-contrib's ``MaskablePPO`` asks)."""
        return self._mask.astype(bool)

    def candidate_actions(self) -> list[Action]:
        """The engine actions the learner's candidates stand for."""
        return self.aec.candidate_actions()

    def view(self) -> SeatView:
        """What the learner's seat to act (or its own seat, the match over) may know now."""
        match = self.aec.match
        return self.aec.view(self.seat if match.over else match.to_play)

    def render(self) -> str | None:
        return self.aec.render()
