"""Without the ``rl`` extra, chaodipi.rl's tests and doctests skip with the command that
installs it, and nothing fails to import (checked in an interpreter that cannot import
PettingZoo or gymnasium)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "src/chaodipi/rl", "tests/test_rl_env.py", "tests/test_rl_leaks.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    # 5: nothing ran (every module skipped), which the whole suite's other tests make 0
    assert done.returncode == 5, done.stdout + done.stderr
    assert "the rl extra is not installed: pip install -e '.[rl]'" in done.stdout
    assert "passed" not in done.stdout and "error" not in done.stdout.lower()
