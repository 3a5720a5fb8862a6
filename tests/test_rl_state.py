"""The full state (``ChaoDipiEnv.state``, chaodipi.rl.state, docs/rl-environment.md): every
seat's cards, the kitty, the undealt cards, every bid, for centralized critics and oracle
training, and never part of an observation.

* It is the engine's state: each seat's cards, the kitty as the engine holds it, the cards
  played; the four card segments add up to the two decks at every step, in every preset.
* It is not any observation: it holds the other seats' hands, which no observation does.
* It is deterministic for a seed, and ``state(seat)`` is ``state()`` turned to that seat.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.rl_support import KANGQI_HAND, need_rl, random_steps, reset_options

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.rl.encoding import split  # noqa: E402
from chaodipi.rl.env import AGENTS, ChaoDipiEnv  # noqa: E402
from chaodipi.rl.state import STATE_LAYOUT, STATE_SIZE, split_state  # noqa: E402


def _counts(cards: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(cards, np.intp), minlength=54)


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_the_state_is_every_hand_the_kitty_and_the_play_and_adds_up_to_the_two_decks(
    preset: str,
) -> None:
    name, options = reset_options(preset)
    env = ChaoDipiEnv(name, max_hands=2)
    steps = 0
    for _agent in random_steps(env, seed=11, options=options):
        steps += 1
        state = env.state()
        assert state.shape == (STATE_SIZE,) and env.state_space.contains(state)
        parts = split_state(state)
        hand = env.match.hand
        for seat in range(4):
            np.testing.assert_array_equal(parts["hands"][seat], _counts(hand.hand(seat)))
        np.testing.assert_array_equal(parts["kitty"], _counts(hand.kitty))
        cards = parts["hands"].sum(axis=0) + parts["kitty"] + parts["undealt"]
        np.testing.assert_array_equal(cards + parts["played"].sum(axis=0), np.full(54, 2))
        assert parts["to_act"][env.match.to_play] == 1
    assert steps > 100


def test_the_state_holds_what_no_observation_does_the_other_seats_hands() -> None:
    env = ChaoDipiEnv("anchao")
    for step, agent in enumerate(random_steps(env, seed=4)):
        if step % 5:
            continue
        seat = AGENTS.index(agent)
        state = env.state(seat)
        parts = split_state(state)
        for observer in range(4):
            observation = env.observe(AGENTS[observer])["observation"]
            assert observation.shape != state.shape
            seen = split(observation)["hand"]
            np.testing.assert_array_equal(seen, split_state(env.state(observer))["hands"][0])
            others = [s for s in range(4) if s != observer]
            held = sum(len(env.match.hand.hand(s)) for s in others)  # the observer never sees
            assert split_state(env.state(observer))["hands"][1:].sum() == held
        # turned to a seat: the rows of state() from that seat on
        absolute = split_state(env.state())
        for row in range(4):
            np.testing.assert_array_equal(
                parts["hands"][row], absolute["hands"][(seat + row) % 4]
            )
            np.testing.assert_array_equal(parts["bids"][row], absolute["bids"][(seat + row) % 4])
    assert env.match.over


def test_the_state_is_deterministic_for_a_seed() -> None:
    first, second = ChaoDipiEnv("classic"), ChaoDipiEnv("classic")
    walk = random_steps(second, seed=9)
    for _ in random_steps(first, seed=9):
        next(walk)
        np.testing.assert_array_equal(first.state(), second.state())
    other = ChaoDipiEnv("classic")
    other.reset(seed=10)
    first.reset(seed=9)
    assert not np.array_equal(first.state(), other.state())


def test_the_state_is_documented_segment_by_segment() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "rl-environment.md").read_text()
    section = text.split("## The full state", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+)(?:×(\d+))? \|", section, re.M)
    sizes = {name: int(a) * int(b or 1) for name, a, b in rows}
    assert sizes == {name: part.stop - part.start for name, part in STATE_LAYOUT.items()}
    assert f"`float32` vector of {STATE_SIZE} entries" in " ".join(section.split())
