"""炒地皮 as a PettingZoo AEC environment (docs/rl-environment.md).

Four agents, ``player_0`` … ``player_3`` (the seats; players 0 and 2 are team 0). Each agent's
observation is a dict: ``observation``, the :mod:`chaodipi.rl.encoding` vector of its own
:func:`~chaodipi.engine.view.observe` view (nothing else is read), and ``action_mask``, all
zeros unless it is to act. Two forms of action (``action_form``):

* ``"cards"`` (the default): ``Discrete(75)``, plays built card by card
  (:mod:`chaodipi.rl.cardwise`); a play of *n* cards is *n* + 1 steps of the same agent.
* ``"list"``: ``Discrete(limit)``, an index into the candidates, whose features
  (:mod:`chaodipi.rl.candidates`) come as the observation's ``candidates`` (``limit`` × 70;
  rows past the legal ones are zero and masked).

Rewards, given to every agent when a hand ends (its team's):
``level_weight × (its team's progress change) + points_weight × (points it took) / 100``, where
the points are the defenders' total after floors for the defending team and 0 for the
dealers'; when the match ends, ``win_weight`` × (+1 won, −1 lost, 0 drawn) more. With
``zero_sum`` each team gets its value less the other team's. ``max_hands`` (default 1) ends
the match after so many hands (then the team further ahead wins); ``None`` plays the whole
match.

>>> env = ChaoDipiEnv("classic", max_hands=1)
>>> env.reset(seed=1)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)
>>> env.agents, env.match.over
([], True)
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Final, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from chaodipi.engine import Action, Match, SeatView, follow, observe, team_of
from chaodipi.engine import preset as preset_named
from chaodipi.records import match_transcript
from chaodipi.rl.candidates import FEATURES, candidates
from chaodipi.rl.cardwise import NUM_ACTIONS, CardBuilder
from chaodipi.rl.encoding import LAYOUT, LIMIT, OBSERVATION_SIZE, Vector, ViewEncoder

__all__ = ["AGENTS", "ChaoDipiEnv", "env"]

AGENTS: Final = tuple(f"player_{seat}" for seat in range(4))

ActionForm = Literal["cards", "list"]


class ChaoDipiEnv(AECEnv):  # type: ignore[misc]  # PettingZoo is untyped
    """The environment (see the module docs for the options)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's convention: a class attribute)
        "name": "chaodipi_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "classic",
        *,
        max_hands: int | None = 1,
        action_form: ActionForm = "cards",
        limit: int = 128,
        level_weight: float = 1.0,
        points_weight: float = 0.0,
        win_weight: float = 0.0,
        zero_sum: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if action_form not in ("cards", "list"):
            raise ValueError(f"action_form {action_form!r}: use 'cards' or 'list'")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r}: use 'ansi', 'human' or None")
        if limit < 1:
            raise ValueError(f"limit {limit}: list at least one candidate")
        if max_hands is not None and max_hands < 1:
            raise ValueError(f"max_hands {max_hands}: at least 1, or None for the whole match")
        self.preset = preset_named(preset)
        self.max_hands = max_hands
        self.action_form: ActionForm = action_form
        self.limit = limit
        self.weights = (level_weight, points_weight, win_weight)
        self.zero_sum = zero_sum
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        width = NUM_ACTIONS if action_form == "cards" else limit
        observation: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(-LIMIT, LIMIT, (OBSERVATION_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (width,), np.int8),
        }
        if action_form == "list":
            observation["candidates"] = spaces.Box(0, 2, (limit, FEATURES), np.int8)
        self.observation_spaces = {a: spaces.Dict(observation) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(width) for a in AGENTS}
        self._rng: random.Random | None = None
        self.match = Match(self.preset, 0, max_hands=max_hands)

    # -- the spaces ---------------------------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the loop -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match, dealt from ``seed`` (``None``: the next one of the seed given last, or
        a fresh random one). ``options`` may start it elsewhere than at the first hand:
        ``progress`` (each team's place, ``circuit * 13 + level``) and ``dealer`` (the seat
        dealing the first hand); other keys are ignored."""
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        start: dict[str, Any] = {}
        options = options or {}
        if "progress" in options:
            progress = [int(p) for p in options["progress"]]
            if len(progress) != 2 or min(progress) < 0:
                raise ValueError(f"progress {options['progress']!r}: two places, each from 0")
            start["progress"] = progress
        if "dealer" in options:
            if options["dealer"] not in range(4):
                raise ValueError(f"dealer {options['dealer']!r}: a seat, 0 to 3")
            start["dealer"] = int(options["dealer"])
        self.match = Match(
            self.preset, self._rng.getrandbits(64), max_hands=self.max_hands, **start
        )
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._encoders = [ViewEncoder(seat) for seat in range(4)]
        self._version = 0
        self._cache: list[tuple[int, Vector] | None] = [None] * 4
        self._views = [observe(self.match, seat) for seat in range(4)]
        self._printed = 0
        self._decide()

    def _decide(self) -> None:
        """Open the decision of the seat to act."""
        seat = self.match.to_play
        self.agent_selection = AGENTS[seat]
        legal = self._legal = self.match.legal_actions(seat)
        self._builder: CardBuilder | None = None
        self._candidates: tuple[list[Action], Any] | None = None
        if self.action_form == "cards":
            self._builder = CardBuilder(legal)
        else:
            assert self._rng is not None
            self._candidates = candidates(legal, self._rng, self.limit)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: step it an action id, not None")
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        chosen = self._choose(int(action))
        if chosen is not None:
            self._apply(AGENTS.index(agent), chosen)
        self._accumulate_rewards()
        if self.render_mode == "human" and chosen is not None:
            lines = match_transcript(self.match, held=False)
            for line in lines[self._printed :]:  # what was told since the last print
                print(line)
            self._printed = len(lines)

    def _choose(self, action: int) -> Action | None:
        if self._builder is not None:
            self._builder.step(action)
            return self._builder.chosen
        assert self._candidates is not None
        actions = self._candidates[0]
        if not 0 <= action < len(actions):
            raise ValueError(
                f"action {action} is not a candidate: there are {len(actions)} (0 to"
                f" {len(actions) - 1})"
            )
        return actions[action]

    def _apply(self, seat: int, chosen: Action) -> None:
        match = self.match
        hands = len(match.records)
        match.push(seat, chosen)  # the mask and the candidates hold only legal actions
        self._version += 1
        if len(match.records) > hands:
            self._reward_hand()
        if match.over:
            self._reward_match()
            self.terminations = dict.fromkeys(self.agents, True)
            self._builder, self._candidates = None, None
        else:
            self._decide()

    def _team_rewards(self, values: tuple[float, float]) -> None:
        if self.zero_sum:
            values = (values[0] - values[1], values[1] - values[0])
        for seat, agent in enumerate(AGENTS):
            self.rewards[agent] += values[team_of(seat)]

    def _reward_hand(self) -> None:
        record = self.match.records[-1]
        level_weight, points_weight, _ = self.weights
        defenders = 1 - team_of(record.dealer)
        values = []
        for team in (0, 1):
            change = record.progress_after[team] - record.progress_before[team]
            points = record.total if team == defenders else 0
            values.append(level_weight * change + points_weight * points / 100)
        self._team_rewards((values[0], values[1]))

    def _reward_match(self) -> None:
        win_weight = self.weights[2]
        winner = self.match.winner
        if win_weight and winner is not None:
            self._team_rewards((win_weight, -win_weight) if winner == 0 else
                               (-win_weight, win_weight))

    # -- what an agent sees -------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, Any]:
        seat = AGENTS.index(agent)
        selected = agent == self.agent_selection and not self.match.over
        cached = self._cache[seat]
        if cached is None or cached[0] != self._version:
            base = self._encoders[seat].encode(self.view(seat))
            self._cache[seat] = cached = (self._version, base)
        vector = cached[1]
        observation: dict[str, Any] = {}
        if self._builder is not None and selected:
            vector = vector.copy()
            vector[LAYOUT["building"]] = self._builder.picked
            observation = {"observation": vector, "action_mask": self._builder.mask().copy()}
        elif self.action_form == "list":
            mask = np.zeros(self.limit, np.int8)
            table = np.zeros((self.limit, FEATURES), np.int8)
            if selected and self._candidates is not None:
                features = self._candidates[1]
                mask[: len(features)] = 1
                table[: len(features)] = features
            observation = {"observation": vector.copy(), "action_mask": mask,
                           "candidates": table}
        else:
            observation = {"observation": vector.copy(),
                           "action_mask": np.zeros(NUM_ACTIONS, np.int8)}
        return observation

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now: its last view carried forward by the events it may see
        since (:func:`~chaodipi.engine.follow.follow`, equal to ``observe(match, seat)``,
        which ``tests/test_follow.py`` checks, and cheaper: it reads only the new events)."""
        match, last = self.match, self._views[seat]
        if last.cursor != match.log.cursor:
            to_act = not match.over and match.to_play == seat
            last = follow(
                last,
                match.events_since(last.cursor, seat),
                cursor=match.log.cursor,
                legal=self._legal if to_act else None,
            )
            if match.over:
                last = observe(match, seat)  # the match's end: who won, by how much
            elif not to_act:  # follow knows no seat to act but itself; who acts is public
                last = replace(last, to_act=match.to_play)
            self._views[seat] = last
        return last

    def candidate_actions(self) -> list[Action]:
        """The engine actions the selected agent's candidates stand for (the list form)."""
        if self._candidates is None:
            raise ValueError("no candidates: the list form lists them while an agent is to act")
        return list(self._candidates[0])

    def play(self, action: Action) -> None:
        """The selected agent plays ``action``, any action of its legal set (a bot's choice,
        among the candidates or not, in either form): ``step`` by action rather than by id."""
        agent = self.agent_selection
        if self.match.over:
            raise ValueError("the match is over: nobody is to act")
        if action not in self._legal:
            raise ValueError(f"{action} is not a legal action of {agent}")
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._apply(AGENTS.index(agent), action)
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The match so far as a spectator at the table sees it, as ``arena show`` tells a
        record (:func:`chaodipi.records.match_transcript`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs render_mode 'ansi' or 'human'")
            return None
        return "\n".join(match_transcript(self.match))

    def close(self) -> None:
        """Nothing to release (the environment holds no processes or files)."""


def env(preset: str = "classic", **options: Any) -> ChaoDipiEnv:
    """PettingZoo's conventional constructor: ``chaodipi.rl.env("hefei", max_hands=None)``."""
    return ChaoDipiEnv(preset, **options)
