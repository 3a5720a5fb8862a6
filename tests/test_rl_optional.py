"""Without the ``rl`` extra, chaodipi.rl's tests and doctests skip with the command that
installs it, and nothing fails to import (checked in an interpreter that cannot import
PettingZoo or gymnasium); without torch, the trainer's ``--help`` answers and a run says what
to install in one line (in an interpreter that cannot import torch)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rl_support import NO_RL

ROOT = Path(__file__).resolve().parent.parent

BLOCK = '''
import sys

class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, _Block())
'''


def test_without_the_rl_extra_its_tests_skip_saying_how_to_install_it(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCK, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-n", "0",
         "src/chaodipi/rl", "tests/test_rl_env.py", "tests/test_rl_leaks.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    # 5: nothing ran (every module skipped), which the whole suite's other tests make 0
    assert done.returncode == 5, done.stdout + done.stderr
    assert "the rl extra is not installed: pip install -e '.[rl]'" in done.stdout
    assert "passed" not in done.stdout and "error" not in done.stdout.lower()


NO_TORCH = """
import sys

class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, _Block())
"""


def test_without_torch_the_trainer_s_help_answers_and_a_run_says_what_to_install(
    tmp_path: Path,
) -> None:
    pytest.importorskip("numpy", reason=NO_RL)  # the rl package's own, which --help reads
    (tmp_path / "sitecustomize.py").write_text(NO_TORCH, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}

    def train(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "chaodipi.rl.train", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)

    helped = train("--help")
    assert helped.returncode == 0 and helped.stderr == "", helped.stderr
    assert helped.stdout.startswith("usage: python3 -m chaodipi.rl.train")
    assert "--stage {imitate,versus,self}" in helped.stdout and "512 256 256" in helped.stdout
    bad = train("--out", str(tmp_path / "out"), "--actors", "0")  # an option is read first
    assert bad.returncode == 2 and "--actors 0: at least one actor" in bad.stderr
    run = train("--out", str(tmp_path / "out"), "--hands", "1")
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "python3 -m chaodipi.rl.train: No module named 'torch': it needs the rl extra and torch's"
        " CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu && pip"
        " install -e '.[rl]'"
    ]
    assert not (tmp_path / "out").exists()
