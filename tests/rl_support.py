"""Helpers of the rl tests: skip without the rl extra, play an environment with random agents."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

NO_RL = "the rl extra is not installed: pip install -e '.[rl]' (pettingzoo, gymnasium, numpy)"


def need_rl() -> None:
    """Skip the calling test module, saying why, unless the rl extra is installed."""
    for module in ("numpy", "gymnasium", "pettingzoo"):
        pytest.importorskip(module, reason=NO_RL)


KANGQI_HAND = "kangqi/扛旗"
"""Not a preset: the kangqi preset's 扛旗 hand (after the dealers' A: 27 cards a seat, no kitty,
no trump), reached with ``reset(options={"progress": [13, 0], "dealer": 0})``."""


def reset_options(preset: str) -> tuple[str, dict[str, Any] | None]:
    """The preset to build and the reset options that reach ``preset``'s hand."""
    if preset == KANGQI_HAND:
        return "kangqi", {"progress": [13, 0], "dealer": 0}
    return preset, None


def random_steps(
    env: Any,
    seed: int,
    options: dict[str, Any] | None = None,
    returns: dict[str, float] | None = None,
) -> Iterator[str]:
    """Play ``env`` to its end with uniformly random allowed actions, yielding each agent to act
    before it acts (``env.last()`` is its observation then); ``returns`` sums each agent's
    rewards as ``last()`` hands them out."""
    import numpy as np

    rng = np.random.default_rng(seed)
    env.reset(seed=seed, options=options)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if returns is not None:
            returns[agent] = returns.get(agent, 0.0) + float(reward)
        if termination or truncation:
            env.step(None)
            continue
        yield agent
        allowed = np.flatnonzero(observation["action_mask"])
        env.step(int(allowed[rng.integers(len(allowed))]))
