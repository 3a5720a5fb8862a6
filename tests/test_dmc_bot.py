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
    monkeypatch.setattr(dmc_bot, "MODELS", tmp_path)
    assert refusal([], capsys).endswith(
        f"no model shipped in {tmp_path} (the shipped models are not in this install): give "
        "--model")


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


def test_each_shipped_model_plays_its_preset_legally_and_no_other() -> None:
    """The models the dmc rung plays are this encoding's, trained (not random weights: each says
    how), each on the preset its file names; each plays a whole hand of it with legal moves
    only, and refuses the first decision of any other preset."""
    import random

    from chaodipi.engine import PRESETS, Match, observe
    from chaodipi.rl import PresetError, QPolicy, load_model, resolve_bot
    from chaodipi.search import heuristic_move

    models = dmc_bot.shipped()
    assert list(models) == ["classic"] and models["classic"] == dmc_bot.MODEL
    for preset, path in models.items():
        model = load_model(path)
        assert model.preset == preset and model.meta["hands"] > 10_000
        assert model.meta["command"].startswith("python3 -m chaodipi.rl.train")
        assert (model.teacher, model.threshold) == ("chaodipi.sample_bots.heuristic_bot", 0.3)
        assert resolve_bot(model.teacher) is heuristic_move  # the name it was trained with
        match = Match(PRESETS[preset], seed=11, max_hands=1)
        policy = QPolicy(model, random.Random(0))
        while not match.over:
            view = observe(match, match.to_play)
            action = policy.decide(view)
            assert view.legal is not None and action in view.legal
            match.apply(match.to_play, action)
        for other in PRESETS:
            if other != preset:
                match = Match(PRESETS[other], seed=11, max_hands=1)
                with pytest.raises(PresetError, match=f"trained on the {preset} preset"):
                    QPolicy(model, random.Random(0)).decide(observe(match, match.to_play))


def _hefei_game(tmp_path: Path, dmc: str) -> subprocess.CompletedProcess[str]:
    """One game of hefei in a real ``arena run``: the dmc bot (``dmc``, its command) against
    the random bot."""
    random_bot = f"{sys.executable} -m chaodipi.sample_bots.random_bot --seed 1"
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", "-b", f"dmc={dmc}",
         "-b", f"random={random_bot}", "-p", "hefei", "-n", "1", "--hands", "1",
         "-j", "1", "-d", "r.sqlite"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_hefei_game_with_the_classic_model_stops_the_bot_in_one_line(tmp_path: Path) -> None:
    """The bot given the classic model, seated at a hefei table, exits with status 1 at its
    first decision, its stderr one line naming both presets (no traceback); the game is its
    forfeit, played by nothing it made up."""
    done = _hefei_game(tmp_path, f"{sys.executable} -m chaodipi.sample_bots.dmc_bot "
                       f"--model {dmc_bot.MODEL}")
    said = ("dmc_bot.py: the model was trained on the classic preset and plays no other: this "
            "game is hefei (train one on it: python3 -m chaodipi.rl.train --preset hefei)")
    assert done.returncode == 1, done.stderr
    assert "crashed after it was sent its hand, before its first move was done, exit code 1" \
        in done.stderr, done.stderr
    logs = [path.read_text(encoding="utf-8") for path in (tmp_path / "r-logs").glob("dmc#*")]
    stopped = [text for text in logs if said in text]
    assert stopped, logs
    for text in logs:
        assert "Traceback" not in text, text
    for text in stopped:  # the line, after the SDK's own line of entering the session
        assert text.splitlines()[-1] == said, text
    rows = ResultsDB(tmp_path / "r.sqlite", read_only=True).rows()
    assert rows and all(row.forfeit == "dmc" for row in rows)


def test_without_a_model_a_game_of_a_preset_with_none_shipped_is_refused_in_one_line() -> None:
    """The bot's default: the shipped model of each game's preset; a game of a preset with none
    is refused naming the preset and those with one, before any policy is made for it."""
    from chaodipi.engine import PRESETS, Action, Match, SeatView, observe
    from chaodipi.rl import PresetError

    made: list[str] = []

    def first_legal(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.default()

    def classic() -> dmc_bot.Policy:
        made.append("classic")
        return first_legal

    game = dmc_bot.Game({"classic": classic}, None)
    match = Match(PRESETS["hefei"], seed=3, max_hands=1)
    with pytest.raises(PresetError) as refused:
        game(observe(match, match.to_play))
    assert str(refused.value) == (
        "no model shipped for the hefei preset (shipped: classic): give --model a model "
        "trained on it (python3 -m chaodipi.rl.train --preset hefei)")
    assert made == []
    match = Match(PRESETS["classic"], seed=3, max_hands=1)
    view = observe(match, match.to_play)
    assert game(view) == first_legal(view) and made == ["classic"]
