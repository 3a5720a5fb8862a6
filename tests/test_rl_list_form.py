"""The list form beside a policy (chaodipi.rl.env, chaodipi.rl.candidates,
docs/rl-environment.md):

* the deals come from the seed alone: the same ``reset(seed=7)`` and two policies give the
  same next deal (the candidates are drawn from a generator of their own);
* every legal action a bot chooses can be taken: ``candidate_index`` lists it (for a learner
  that imitates it), ``step_action`` steps it (an opponent's), and ``candidates(...,
  include=)`` lists it outside the environment; the heuristic bot's choices over whole hands,
  many of them not among the candidates drawn.
"""

from __future__ import annotations

import random

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine import Action  # noqa: E402
from chaodipi.rl.candidates import candidates, features_of  # noqa: E402
from chaodipi.rl.env import AGENTS, ChaoDipiEnv  # noqa: E402
from chaodipi.search import heuristic_move as decide  # noqa: E402


def _hand_with(env: ChaoDipiEnv, pick: int) -> None:
    """Play the match to its end, each agent taking candidate ``pick`` (0: the first; -1:
    the last)."""
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        n = int(observation["action_mask"].sum())
        env.step(pick % n)


@pytest.mark.parametrize("limit", [128, 4])
def test_the_next_deal_after_a_seed_does_not_depend_on_the_policy(limit: int) -> None:
    first = ChaoDipiEnv("classic", action_form="list", limit=limit)
    second = ChaoDipiEnv("classic", action_form="list", limit=limit)
    for env, pick in ((first, 0), (second, -1)):
        env.reset(seed=7)
        _hand_with(env, pick)
    assert first.match.actions != second.match.actions  # two policies, two hands
    for _ in range(3):  # the next matches, reset without a seed: the same deals
        first.reset()
        second.reset()
        assert first.match.seed == second.match.seed
        assert first.match.hand.dealt == second.match.hand.dealt
        assert first.match.hand.kitty == second.match.hand.kitty
    untouched = ChaoDipiEnv("classic", action_form="list", limit=limit)
    untouched.reset(seed=7)  # no hand played at all
    for _ in range(3):
        untouched.reset()
    assert untouched.match.seed == first.match.seed


@pytest.mark.parametrize("preset", ["classic", "hefei", "anchao"])
def test_every_choice_of_the_heuristic_bot_is_playable_in_the_list_form(preset: str) -> None:
    """Whole matches (up to two hands) where every seat plays the heuristic bot's choice, taken
    alternately through ``candidate_index`` (the index it gets, then ``step``) and
    ``step_action``; the bot chose outside the drawn candidates many times (a lead or a bury
    of thousands of plays, 16 listed)."""
    env = ChaoDipiEnv(preset, action_form="list", limit=16, max_hands=2)
    env.reset(seed=3)
    outside = chosen = 0
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = AGENTS.index(agent)
        choice = decide(env.view(seat))
        drawn = env.candidate_actions()
        outside += choice not in drawn
        chosen += 1
        if chosen % 2:
            index = env.candidate_index(choice)
            listed = env.candidate_actions()
            assert listed[index] == choice and len(set(listed)) == len(listed) <= 16
            observation = env.observe(agent)
            assert observation["action_mask"][index] == 1
            np.testing.assert_array_equal(observation["candidates"][index], features_of(choice))
            assert [a for a in listed if a != choice] == [a for a in drawn if a != choice][
                : len(listed) - 1
            ]
            env.step(index)
        else:
            env.step_action(choice)
        assert env.match.actions[-1] == (seat, choice)
    assert env.match.over and chosen > 50  # (hefei: its first hand may end the match)
    assert outside > 5, (outside, chosen)


def test_candidates_include_a_given_action_and_an_illegal_one_is_refused() -> None:
    env = ChaoDipiEnv("classic", action_form="list", limit=8)
    env.reset(seed=2)
    while env.match.hand.phase.value != "bury":
        env.step(0)
    legal = env.match.legal_actions()
    choice = decide(env.view(env.match.to_play))
    actions, features = candidates(legal, random.Random(1), 8, include=choice)
    assert choice in actions and len(actions) == 8 and len(set(actions)) == 8
    assert all(a in legal for a in actions)
    np.testing.assert_array_equal(features[actions.index(choice)], features_of(choice))
    again, _ = candidates(legal, random.Random(1), 8)
    assert [a for a in actions if a != choice] == [a for a in again if a != choice][:7]
    not_legal: Action = choice
    foreign = ChaoDipiEnv("classic", action_form="list", limit=8)
    foreign.reset(seed=2)  # seat 0 to declare: a bury is not legal now
    with pytest.raises(ValueError, match=r"^bury .* is not legal for player_0 now"):
        foreign.candidate_index(not_legal)
    with pytest.raises(ValueError, match=r"^bury .* is not legal for player_0 now"):
        foreign.step_action(not_legal)
    with pytest.raises(ValueError, match="is not legal"):
        candidates(foreign.match.legal_actions(), random.Random(1), 8, include=not_legal)


def test_the_cards_form_takes_a_bots_action_as_one_step_and_not_a_half_built_play() -> None:
    """Seat 0 plays the heuristic bot's choices by ``step_action``, the others card by card;
    ``step_action`` in the middle of a play being built is refused."""
    env = ChaoDipiEnv("classic")
    rng = np.random.default_rng(0)
    env.reset(seed=8)
    refused = False
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if agent == "player_0":
            choice = decide(env.view(0))
            env.step_action(choice)
            assert env.match.actions[-1] == (0, choice)
            continue
        allowed = np.flatnonzero(observation["action_mask"])
        action = int(allowed[rng.integers(len(allowed))])
        env.step(action)
        if not refused and action < 54 and env.agent_selection == agent:  # a card picked
            with pytest.raises(ValueError, match="is building a play card by card"):
                env.step_action(decide(env.view(AGENTS.index(agent))))
            refused = True
    assert env.match.over and refused
