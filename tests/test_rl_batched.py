"""The batched environment (chaodipi.rl.batched, docs/rl-environment.md).

* A batch of N self-play (or single-seat) environments gives, row by row, what N environments
  stepped one by one with the same actions give: observations, candidates, masks, the seat to
  act, the rewards; a match's end resets its environment (``ended``, ``final``) and the batch
  goes on from that environment's seeded sequence.
* Bad batches and actions are refused in one line.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.rl.batched import BatchedEnv  # noqa: E402
from chaodipi.rl.env import AGENTS, ChaoDipiEnv  # noqa: E402
from chaodipi.rl.single import SingleSeatEnv  # noqa: E402


def _pick(rng: np.random.Generator, masks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def _same(batch: dict[str, Any], i: int, observation: dict[str, Any], seat: int) -> None:
    for name in ("observation", "candidates", "action_mask"):
        assert np.array_equal(batch[name][i], observation[name]), name
    assert batch["seat"][i] == seat


def test_a_self_play_batch_steps_as_its_environments_one_by_one() -> None:
    n, seed = 3, 20
    batched = BatchedEnv.make(n, "classic", limit=16)
    alone = [ChaoDipiEnv("classic", action_form="list", limit=16) for _ in range(n)]
    batch = batched.reset(seed=seed)
    for i, env in enumerate(alone):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(700):
        for i, env in enumerate(alone):
            _same(batch, i, env.observe(env.agent_selection), env.match.to_play)
        actions = _pick(rng, batched.action_masks())
        batch, rewards, ended = batched.step(actions)
        assert rewards.shape == (n, 4)
        for i, env in enumerate(alone):
            env.step(int(actions[i]))
            assert rewards[i].tolist() == [env.rewards[a] for a in AGENTS]
            assert ended[i] == env.match.over
            if env.match.over:
                final = batched.final[i]
                assert final is not None and final.records == env.match.records
                env.reset()
                ends += 1
            else:
                assert batched.final[i] is None
    assert ends >= n  # every environment ended a hand at least once, on average


def test_a_single_seat_batch_steps_as_its_environments_one_by_one() -> None:
    n, seed = 2, 7
    options: dict[str, Any] = {"seat": 1, "team": True, "limit": 16}
    batched = BatchedEnv([SingleSeatEnv("classic", **options) for _ in range(n)])
    alone = [SingleSeatEnv("classic", **options) for _ in range(n)]
    batch = batched.reset(seed=seed)
    observations = [env.reset(seed=seed + i)[0] for i, env in enumerate(alone)]
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(250):
        for i, env in enumerate(alone):
            _same(batch, i, observations[i], env.aec.match.to_play)
        actions = _pick(rng, batched.action_masks())
        batch, rewards, ended = batched.step(actions)
        assert rewards.shape == (n,)
        for i, env in enumerate(alone):
            observations[i], reward, over, _, _ = env.step(int(actions[i]))
            assert rewards[i] == np.float32(reward) and ended[i] == over
            if over:
                observations[i], _ = env.reset()
                ends += 1
    assert ends >= n


def test_the_batch_returned_is_a_copy_unless_asked_otherwise() -> None:
    batched = BatchedEnv.make(2, limit=8)
    first = batched.reset(seed=0)
    kept = first["observation"].copy()
    batched.step(batched.action_masks().argmax(axis=1))
    assert np.array_equal(first["observation"], kept)
    shared = BatchedEnv.make(2, limit=8)
    shared.copy = False
    assert shared.reset(seed=0)["observation"] is shared.reset(seed=1)["observation"]


@pytest.mark.parametrize(
    ("envs", "message"),
    [
        (lambda: [], "give at least one environment"),
        (lambda: [ChaoDipiEnv(action_form="list"), SingleSeatEnv()], "not both"),
        (lambda: [ChaoDipiEnv()], r"the list form \(action_form='list'\)"),
        (lambda: [SingleSeatEnv(limit=8), SingleSeatEnv(limit=16)], r"different limits \[8, 16\]"),
    ],
)
def test_bad_batches_are_refused_in_one_line(envs: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BatchedEnv(envs())


def test_a_step_needs_one_index_per_environment() -> None:
    batched = BatchedEnv.make(3, limit=8)
    batched.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions: one index per environment \(3\), got 2"):
        batched.step([0, 0])
