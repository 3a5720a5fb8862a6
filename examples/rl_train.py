"""Train a small numpy agent on CPU in a few minutes, and measure it against random and
heuristic play (docs/rl-environment.md, "A worked example").

    python3 examples/rl_train.py [--minutes 4] [--preset classic] [--out FILE.npz]

The agent scores each candidate action, Q(s, a), with a one-hidden-layer network over the
seat's observation vector (``chaodipi.rl.encoding``) and the action's features
(``chaodipi.rl.candidates``), and plays the best one: the Deep-Monte-Carlo recipe of DouZero,
very small. It learns by self-play in ``ChaoDipiEnv`` (the list form, whole hands, zero-sum
rewards: the level change and the points, per team), fitting each decision's score to the
return its seat got at the end of the hand. Then it plays duplicate deals against the random
bot and the heuristic bot, in-process, from the same ``SeatView`` the SDK gives a bot
(``examples/rl_bot.py`` is that bot for the arena), and prints the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from chaodipi.engine import PRESETS, Action, Match, SeatView, observe, team_of
from chaodipi.rl import AGENTS, FEATURES, OBSERVATION_SIZE, ChaoDipiEnv, ViewEncoder, candidates

Array = npt.NDArray[np.float32]
LIMIT = 32
"""Candidates scored per decision (a bury or a long lead lists 32 of its many)."""


class Model:
    """Q(s, a) = w2 · relu(W1 s + V1 a + b1) + b2, trained with Adam on squared error."""

    def __init__(self, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params: dict[str, Array] = {
            "W1": (rng.standard_normal((OBSERVATION_SIZE, hidden)) * 0.03).astype(np.float32),
            "V1": (rng.standard_normal((FEATURES, hidden)) * 0.1).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": (rng.standard_normal(hidden) * 0.1).astype(np.float32),
            "b2": np.zeros(1, np.float32),
        }
        self._moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self._t = 0

    def scores(self, state: Array, features: npt.NDArray[np.int8]) -> Array:
        """The score of each candidate (one row of features each) in ``state``."""
        p = self.params
        hidden = np.maximum(state @ p["W1"] + features @ p["V1"] + p["b1"], 0)
        return hidden @ p["w2"] + p["b2"][0]

    def fit(self, states: Array, features: Array, targets: Array, lr: float = 1e-3) -> float:
        """One Adam step on a batch; returns the batch's mean squared error."""
        p = self.params
        pre = states @ p["W1"] + features @ p["V1"] + p["b1"]
        hidden = np.maximum(pre, 0)
        error = hidden @ p["w2"] + p["b2"][0] - targets
        n = len(targets)
        d_out = 2 * error / n
        d_hidden = np.outer(d_out, p["w2"]) * (pre > 0)
        grads = {
            "W1": states.T @ d_hidden,
            "V1": features.T @ d_hidden,
            "b1": d_hidden.sum(axis=0),
            "w2": hidden.T @ d_out,
            "b2": np.array([d_out.sum()], np.float32),
        }
        self._t += 1
        for key, grad in grads.items():
            m, v = self._moments[key]
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            m_hat = m / (1 - 0.9**self._t)
            v_hat = v / (1 - 0.999**self._t)
            p[key] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return float(np.mean(error**2))

    def save(self, path: Path) -> None:
        np.savez(path, **self.params)

    @classmethod
    def load(cls, path: Path) -> Model:
        with np.load(path) as saved:
            model = cls(hidden=saved["b1"].shape[0])
            model.params = {k: saved[k].astype(np.float32) for k in model.params}
        return model

    def choose(self, view: SeatView, rng: random.Random) -> Action:
        """The action this model plays from a seat's view: the same encoding as in training."""
        assert view.legal is not None, "a view to decide from has its legal actions"
        actions, features = candidates(view.legal, rng, LIMIT)
        if len(actions) == 1:
            return actions[0]
        state = ViewEncoder(view.seat).encode(view)
        return actions[int(np.argmax(self.scores(state, features)))]


def self_play(model: Model, preset: str, seconds: float, seed: int) -> tuple[int, list[float]]:
    """Train by self-play for ``seconds``: hands played, and the loss after each batch."""
    env = ChaoDipiEnv(preset, max_hands=1, action_form="list", limit=LIMIT, zero_sum=True,
                      points_weight=1.0)
    rng = np.random.default_rng(seed)
    buffer_states: list[Array] = []
    buffer_features: list[npt.NDArray[np.int8]] = []
    buffer_targets: list[float] = []
    losses: list[float] = []
    hands = 0
    deadline = time.perf_counter() + seconds
    env.reset(seed=seed)
    while time.perf_counter() < deadline:
        epsilon = max(0.05, 0.3 * (1 - hands / 400))
        taken: dict[str, list[tuple[Array, npt.NDArray[np.int8]]]] = {a: [] for a in AGENTS}
        returns = dict.fromkeys(AGENTS, 0.0)
        env.reset()
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            returns[agent] += float(reward)
            if termination or truncation:
                env.step(None)
                continue
            n = int(observation["action_mask"].sum())
            rows = observation["candidates"][:n]
            if n == 1:
                choice = 0
            elif rng.random() < epsilon:
                choice = int(rng.integers(n))
            else:
                choice = int(np.argmax(model.scores(observation["observation"], rows)))
            if n > 1:
                taken[agent].append((observation["observation"], rows[choice]))
            env.step(choice)
        hands += 1
        for agent, decisions in taken.items():
            for state, features in decisions:
                buffer_states.append(state)
                buffer_features.append(features)
                buffer_targets.append(returns[agent])
        if hands % 4 == 0:
            keep = 40_000
            del buffer_states[:-keep], buffer_features[:-keep], buffer_targets[:-keep]
            states = np.array(buffer_states, np.float32)
            features = np.array(buffer_features, np.float32)
            targets = np.array(buffer_targets, np.float32)
            for _ in range(8):
                batch = rng.integers(len(targets), size=256)
                loss = model.fit(states[batch], features[batch], targets[batch])
            losses.append(loss)
    return hands, losses


Decide = Callable[[SeatView], Action]


def duel(first: Decide, second: Decide, preset: str, deals: range) -> list[int]:
    """Each deal played twice, ``first`` as team 0 then as team 1 (duplicate deals): the level
    margin ``first`` won by in each hand (its team's progress change less the other's)."""
    margins = []
    for deal in deals:
        for first_team in (0, 1):
            match = Match(PRESETS[preset], seed=f"rl/{deal}", max_hands=1)
            while not match.over:
                seat = match.to_play
                view = observe(match, seat)
                bot = first if team_of(seat) == first_team else second
                match.apply(seat, bot(view))
            record = match.records[-1]
            change = [b - a for a, b in zip(record.progress_before, record.progress_after,
                                            strict=True)]
            margins.append(change[first_team] - change[1 - first_team])
    return margins


def report(name: str, margins: list[int]) -> str:
    wins = sum(m > 0 for m in margins)
    losses = sum(m < 0 for m in margins)
    mean = statistics.mean(margins)
    spread = statistics.stdev(margins) / len(margins) ** 0.5
    return (f"agent vs {name}: {len(margins)} hands ({len(margins) // 2} deals × 2 seatings),"
            f" won {wins}, lost {losses}, level margin {mean:+.2f} ± {spread:.2f} a hand")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=4.0, help="self-play time")
    parser.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals to measure on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("examples/results/rl_agent.npz"))
    args = parser.parse_args(argv)

    from chaodipi.sample_bots import heuristic_bot

    model = Model(seed=args.seed)
    start = time.perf_counter()
    hands, losses = self_play(model, args.preset, args.minutes * 60, args.seed)
    trained = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    print(f"trained {trained:.0f} s: {hands} hands of self-play; loss {losses[0]:.3f} first, "
          f"{statistics.mean(losses[-10:]):.3f} last; saved {args.out}")
    rng = random.Random(args.seed)

    def agent(view: SeatView) -> Action:
        return model.choose(view, rng)

    def random_bot(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.sample(rng)

    deals = range(10_000, 10_000 + args.deals)
    print(report("random", duel(agent, random_bot, args.preset, deals)))
    print(report("heuristic", duel(agent, heuristic_bot.decide, args.preset, deals)))


if __name__ == "__main__":
    main()
