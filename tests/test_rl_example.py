"""The worked example (examples/rl_train.py, examples/rl_bot.py): it trains, saves and
measures; its agent decides from a ``SeatView`` exactly as it scored in training, and plays a
whole hand over gRPC as its own process through the SDK, never struck or refused."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.arena.tournament.processes import bot_environment  # noqa: E402
from chaodipi.engine.match import Match  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.view import observe  # noqa: E402
from chaodipi.rl.candidates import candidates  # noqa: E402
from chaodipi.rl.encoding import ViewEncoder  # noqa: E402

from .server_support import Recording, config, random_bot, run_tables  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

import rl_train  # noqa: E402


def test_training_saves_a_model_that_loads_and_the_figures_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agent.npz"
    rl_train.main(["--minutes", "0.03", "--deals", "1", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "hands of self-play" in printed
    assert "agent vs random: 2 hands" in printed and "agent vs heuristic: 2 hands" in printed
    model = rl_train.Model.load(out)
    assert model.params.keys() == rl_train.Model().params.keys()


def test_the_agent_decides_from_a_view_with_the_encoding_it_trained_on() -> None:
    model = rl_train.Model(seed=1)
    match = Match(PRESETS["hefei"], seed=3, max_hands=1)
    rng = random.Random(0)
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        action = model.choose(view, random.Random(7))
        actions, features = candidates(view.legal, random.Random(7), rl_train.LIMIT)
        if len(actions) > 1:  # the best-scored candidate, scored on the training encoding
            scores = model.scores(ViewEncoder(view.seat).encode(view), features)
            assert action == actions[int(np.argmax(scores))]
        assert action in view.legal
        match.apply(view.seat, action if rng.random() < 0.5 else view.legal.sample(rng))


def test_the_trained_agent_plays_a_whole_hand_through_the_sdk(tmp_path: Path) -> None:
    weights = tmp_path / "agent.npz"
    rl_train.Model(seed=2).save(weights)

    def agent(address: str, ticket: str, seat: int, recording: Recording) -> None:
        done = subprocess.run(
            [sys.executable, str(EXAMPLES / "rl_bot.py"), "--address", address,
             "--weights", str(weights)],
            env=bot_environment(address, ticket=ticket),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr)

    results, recordings = run_tables(
        [config("classic", seed=4, max_hands=1)], [[agent, random_bot, agent, random_bot]]
    )
    assert results[0].reason == "played to the end"
    assert all(r.error is None for r in recordings[0]), [r.error for r in recordings[0]]
    assert all(s.strikes == 0 and s.illegal == 0 for s in results[0].seats)


def test_the_bot_says_so_when_it_has_no_weights(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "rl_bot.py"), "--weights", str(tmp_path / "none.npz")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"no weights at {tmp_path / 'none.npz'}: run examples/rl_train.py first" in done.stderr
