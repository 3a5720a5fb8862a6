"""The DMC bot (sample_bots/dmc_bot.py) plays a model file through the SDK in a real ``arena
run``, with torch, PettingZoo and gymnasium not importable, never late, illegal or answered
for; a missing or broken model file stops it with one line saying so."""

from __future__ import annotations

import fnmatch
import itertools
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.arena.results.database import ResultsDB  # noqa: E402
from chaodipi.rl import FEATURES, OBSERVATION_SIZE, save_model  # noqa: E402
from chaodipi.sample_bots import dmc_bot  # noqa: E402

BLOCK = '''
import sys

class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)")
        return None

sys.meta_path.insert(0, _Block())
'''


def tiny_model(path: Path, hidden: tuple[int, ...] = (32, 16)) -> Path:
    gen = np.random.default_rng(0)
    sizes = [OBSERVATION_SIZE + FEATURES, *hidden, 1]
    weights = [(gen.normal(size=(o, i)) / i**0.5, np.zeros(o))
               for i, o in itertools.pairwise(sizes)]
    save_model(path, weights, {"preset": "classic", "limit": 32})
    return path


def test_a_model_plays_a_real_arena_run_without_torch(tmp_path: Path) -> None:
    model = tiny_model(tmp_path / "tiny.npz")
    (tmp_path / "sitecustomize.py").write_text(BLOCK, encoding="utf-8")
    path = os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])
    dmc = (f"{sys.executable} -m chaodipi.sample_bots.dmc_bot --model {model} --seed 1"
           " --teacher chaodipi.sample_bots.heuristic_bot --threshold 0.05")
    random_bot = f"{sys.executable} -m chaodipi.sample_bots.random_bot --seed 1"
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", "-b", f"dmc={dmc}",
         "-b", f"random={random_bot}", "-n", "1", "--hands", "1", "-d", "r.sqlite"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": path},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = ResultsDB(tmp_path / "r.sqlite", read_only=True).rows()
    assert len(rows) == 2, done.stderr
    for row in rows:
        assert row.void is None and row.forfeit is None and row.score_a is not None, row
        faults = (row.strikes_a, row.strikes_b, row.illegal_a, row.illegal_b, row.crashes_a,
                  row.crashes_b, row.fallbacks_a, row.fallbacks_b)
        assert faults == (0,) * 8, row
    assert "faults" not in done.stderr.splitlines()[-1]


def test_the_blocker_stops_torch(tmp_path: Path) -> None:
    """What the run above relies on: torch cannot be imported beside the sitecustomize."""
    (tmp_path / "sitecustomize.py").write_text(BLOCK, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, "-c", "import torch"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "No module named 'torch' (blocked)" in done.stderr


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The error line the bot stops with (exit 2, before it connects to anything)."""
    with pytest.raises(SystemExit) as stopped:
        dmc_bot.main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_a_missing_model_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    absent = tmp_path / "absent.npz"
    assert refusal(["--model", str(absent)], capsys).endswith(f"--model {absent}: no such file")
    monkeypatch.setattr(dmc_bot, "MODEL", tmp_path / "shipped.npz")
    assert refusal([], capsys).endswith(
        f"--model {tmp_path / 'shipped.npz'}: no such file (the shipped model is not in this "
        "install)")


def test_a_broken_model_or_limit_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_text("weights\n", encoding="utf-8")
    said = refusal(["--model", str(broken)], capsys)
    assert f"error: --model: {broken}: not a model file (an .npz archive): " in said
    model = tiny_model(tmp_path / "tiny.npz")
    assert refusal(["--model", str(model), "--limit", "0"], capsys).endswith(
        "--limit must be at least 1, not 0")


def test_a_bad_teacher_or_threshold_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_model(tmp_path / "tiny.npz")
    assert refusal(["--model", str(model), "--threshold", "-0.5"], capsys).endswith(
        "--threshold must be a number ≥ 0, not -0.5")
    assert refusal(["--model", str(model), "--threshold", "nan"], capsys).endswith(
        "--threshold must be a number ≥ 0, not nan")
    assert refusal(["--model", str(model), "--threshold", "0.5"], capsys).endswith(
        "--threshold is the teacher's: this model names none (give --teacher)")
    assert refusal(["--teacher", "none", "--threshold", "0.5"], capsys).endswith(
        "--threshold is the teacher's: not with --teacher none")
    said = refusal(["--model", str(model), "--teacher", "no_such_bot_module"], capsys)
    assert said.endswith("--teacher: 'no_such_bot_module': no such module (No module named "
                         "'no_such_bot_module')"), said


def test_the_shipped_model_is_package_data() -> None:
    """The default model is in the package, where pyproject's package data ships it from."""
    here = Path(dmc_bot.__file__).resolve().parent
    pyproject = tomllib.loads((here.parent / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = pyproject["tool"]["setuptools"]["package-data"]["chaodipi.sample_bots"]
    where = dmc_bot.MODEL.relative_to(here).as_posix()
    assert any(fnmatch.fnmatch(where, pattern) for pattern in shipped), (where, shipped)


def test_the_bot_runs_blas_on_one_thread(tmp_path: Path) -> None:
    """numpy, imported by the bot, starts no BLAS threads (each would spend CPU waiting for
    the next small product): the process has its main thread only."""
    code = (
        "import os, sys\n"
        "from chaodipi.sample_bots import dmc_bot\n"
        "try:\n"
        f"    dmc_bot.main(['--model', {str(tmp_path / 'absent.npz')!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('numpy' in sys.modules, len(os.listdir('/proc/self/task')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in dmc_bot.BLAS_THREADS}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.stdout == "True 1\n", done.stdout + done.stderr


def test_the_shipped_model_loads_and_plays_every_preset_legally() -> None:
    """The model the dmc rung plays is this encoding's, trained (not random weights: it says
    how), and plays a whole hand of each preset with legal moves only."""
    import random

    from chaodipi.engine import PRESETS, Match, observe
    from chaodipi.rl import QPolicy, load_model, resolve_bot
    from chaodipi.search import heuristic_move

    model = load_model(dmc_bot.MODEL)
    assert model.meta["preset"] == "classic" and model.meta["hands"] > 10_000
    assert model.meta["command"].startswith("python3 -m chaodipi.rl.train")
    assert (model.teacher, model.threshold) == ("chaodipi.sample_bots.heuristic_bot", 0.3)
    assert resolve_bot(model.teacher) is heuristic_move  # the name it was trained with
    for preset in PRESETS:
        match = Match(PRESETS[preset], seed=11, max_hands=1)
        policy = QPolicy(model, random.Random(0))
        while not match.over:
            view = observe(match, match.to_play)
            action = policy.decide(view)
            assert view.legal is not None and action in view.legal
            match.apply(match.to_play, action)
