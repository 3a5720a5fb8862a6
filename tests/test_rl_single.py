"""The single-seat Gymnasium environment (chaodipi.rl.single, docs/rl-environment.md).

* Gymnasium's ``check_env`` passes (one seat, a team, bots by name, by callable, by seat).
* The learner gets its team's rewards on its own steps: a step's reward is what the hands (and
  the match) that ended since its previous step gave its team, nothing else, nothing lost.
* The bots play every other seat, from those seats' views; their actions are played whether
  the candidates list them or not (``ChaoDipiEnv.play``).
* ``reset(seed=...)`` makes the episode reproducible, bots' draws included.
* Bad options, bots and actions are refused in one line.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from chaodipi.engine import Action, HandRecord, Play, SeatView, team_of  # noqa: E402
from chaodipi.rl.bots import RandomBot  # noqa: E402
from chaodipi.rl.env import ChaoDipiEnv  # noqa: E402
from chaodipi.rl.single import SingleSeatEnv  # noqa: E402
from chaodipi.search import heuristic_move as heuristic  # noqa: E402

HEURISTIC = "chaodipi.sample_bots.heuristic_bot"
"""The heuristic's name in models trained before chaodipi.search: still resolved."""


def _first_allowed(rng: np.random.Generator, env: SingleSeatEnv) -> int:
    allowed = np.flatnonzero(env.action_masks())
    return int(allowed[rng.integers(allowed.size)])


def _team_value(record: HandRecord, team: int) -> float:
    """A hand's reward for ``team`` with zero_sum: its climb less the other team's."""
    change = [after - before for before, after in
              zip(record.progress_before, record.progress_after, strict=True)]
    return float(change[team] - change[1 - team])


def _won(winner: int | None, team: int) -> float:
    """The match's reward for ``team`` with ``win_weight`` 1 and zero_sum: 1 - (-1) or -1 - 1."""
    return 0.0 if winner is None else 2.0 if winner == team else -2.0


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"seat": 1, "team": True, "opponent": HEURISTIC, "limit": 16},
        {"seat": 2, "opponent": {0: heuristic, 1: "random", 3: "heuristic"}, "preset": "hefei"},
    ],
    ids=["alone-random", "team-heuristic", "by-seat"],
)
def test_gymnasiums_check_env_passes(options: dict[str, Any]) -> None:
    env = SingleSeatEnv(**options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("team", [False, True])
@pytest.mark.parametrize("seat", [0, 3])
def test_the_learner_gets_its_teams_rewards_on_its_own_steps(seat: int, team: bool) -> None:
    env = SingleSeatEnv("classic", seat=seat, team=team, opponent=HEURISTIC, max_hands=3,
                        zero_sum=True, win_weight=1.0)
    rng = np.random.default_rng(seat)
    learners = {seat, (seat + 2) % 4} if team else {seat}
    for episode in range(2):
        observation, info = env.reset(seed=10 * seat + episode)
        total, over = 0.0, False
        while not over:
            assert info["seat"] in learners
            assert observation["observation"].shape == (767,)
            hands = len(env.aec.match.records)
            observation, reward, over, truncated, info = env.step(_first_allowed(rng, env))
            assert not truncated
            ended = env.aec.match.records[hands:]  # the hands that ended since its step
            expected = sum(_team_value(r, team_of(seat)) for r in ended)
            if over:
                expected += _won(env.aec.match.winner, team_of(seat))
            assert reward == pytest.approx(expected)
            total += reward
        match = env.aec.match
        assert len(match.records) == 3
        assert total == pytest.approx(
            sum(_team_value(r, team_of(seat)) for r in match.records)
            + _won(match.winner, team_of(seat))
        )
        assert not env.action_masks().any()  # the episode over, nothing to choose


def test_the_bots_play_the_other_seats_from_their_own_views() -> None:
    asked: list[int] = []

    def recording(view: SeatView) -> Action:
        asked.append(view.seat)
        assert view.legal is not None
        return heuristic(view)

    env = SingleSeatEnv("classic", seat=1, team=True, opponent=recording)
    rng = np.random.default_rng(0)
    acted: list[int] = []
    _, info = env.reset(seed=5)
    over = False
    while not over:
        acted.append(info["seat"])
        assert env.view().seat == info["seat"]
        _, _, over, _, info = env.step(_first_allowed(rng, env))
    assert set(asked) == {0, 2} and set(acted) == {1, 3}


def test_a_bots_action_outside_the_candidates_is_played() -> None:
    """With one candidate listed, the heuristic's choices are mostly not it; each is played."""
    env = ChaoDipiEnv("classic", action_form="list", limit=1)
    env.reset(seed=2)
    outside = 0
    while not env.match.over:
        seat = env.match.to_play
        chosen = heuristic(env.view(seat))
        outside += chosen not in env.candidate_actions()
        played = len(env.match.actions)
        env.step_action(chosen)
        assert env.match.actions[played:] == [(seat, chosen)]
    assert outside > 10
    env.reset(seed=2)  # declaring: a card play is not legal
    with pytest.raises(ValueError, match="is not legal for player_0 now"):
        env.step_action(Play((0,)))


def test_reset_with_a_seed_replays_the_episode() -> None:
    def episode(env: SingleSeatEnv, seed: int) -> list[Any]:
        rng = np.random.default_rng(seed)
        observation, _ = env.reset(seed=seed)
        seen: list[Any] = [observation["observation"].tobytes()]
        over = False
        while not over:
            observation, reward, over, _, _ = env.step(_first_allowed(rng, env))
            seen += [observation["observation"].tobytes(), observation["candidates"].tobytes(),
                     reward]
        return seen

    one = SingleSeatEnv("classic", opponent={1: "random", 2: HEURISTIC, 3: RandomBot()})
    two = SingleSeatEnv("classic", opponent={1: "random", 2: HEURISTIC, 3: RandomBot()})
    assert episode(one, 4) == episode(two, 4)
    assert episode(one, 4) == episode(one, 4)
    assert episode(one, 4) != episode(one, 5)


def test_an_action_the_mask_forbids_plays_a_candidate_or_is_refused_when_strict() -> None:
    env = SingleSeatEnv("classic", limit=8)
    strict = SingleSeatEnv("classic", limit=8, strict=True)
    twin = SingleSeatEnv("classic", limit=8)
    for e in (env, strict, twin):
        e.reset(seed=1)
    count = int(env.action_masks().sum())
    assert count < 8  # declaring: pass and a few bids
    observation, _, _, _, info = env.step(7)
    expected, _, _, _, twin_info = twin.step(7 % count)
    assert info["invalid_action"] and not twin_info["invalid_action"]
    assert np.array_equal(observation["observation"], expected["observation"])
    with pytest.raises(ValueError, match=f"action 7 is not a candidate: there are {count}"):
        strict.step(7)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"opponent": "no_such_module_here"}, "opponent 'no_such_module_here': no such module"),
        ({"opponent": "json"}, "opponent 'json': the module has no decide"),
        ({"opponent": 3}, "opponent 3: give a decide"),
        ({"opponent": {1: "random"}}, r"opponent: name a bot for each other seat \[1, 2, 3\]"),
        ({"seat": 4}, "seat 4: a seat, 0 to 3"),
        ({"action_form": "cards"}, "action_form: the single-seat environment plays the list"),
    ],
)
def test_bad_options_are_refused_in_one_line(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        SingleSeatEnv("classic", **options)
    assert "\n" not in str(error.value)


def test_stepping_after_the_end_is_refused() -> None:
    env = SingleSeatEnv("classic")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    over = False
    while not over:
        _, _, over, _, _ = env.step(_first_allowed(rng, env))
    with pytest.raises(ValueError, match=r"the match is over: reset\(\) before stepping again"):
        env.step(0)


def test_chaodipi_rl_names_it() -> None:
    import chaodipi.rl

    assert chaodipi.rl.SingleSeatEnv is SingleSeatEnv
    assert RandomBot(1)(_view()) == RandomBot(1)(_view())


def _view() -> SeatView:
    env = ChaoDipiEnv("classic")
    env.reset(seed=random.Random(0).randrange(100))
    return env.view(env.match.to_play)
