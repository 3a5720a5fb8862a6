"""The Stable-Baselines3 example (examples/rl_sb3.py): sb3-contrib's MaskablePPO trains on the
single-seat environment for a few hundred steps against a bot, then its score prints. Runs when
the ``rl-examples`` extra is installed (docs/rl-environment.md), skips otherwise."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.rl_support import need_rl

need_rl()
pytest.importorskip(
    "sb3_contrib",
    reason="the rl-examples extra is not installed: install torch's CPU build, then "
    "pip install -e '.[rl-examples]' (docs/rl-environment.md)",
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

import rl_sb3  # noqa: E402


@pytest.mark.parametrize("against", ["random", "heuristic"])
def test_maskable_ppo_trains_against_a_bot_and_its_score_prints(
    against: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rl_sb3.main(["--steps", "300", "--deals", "1", "--against", against]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"trained MaskablePPO for \d+ steps", printed)
    assert re.search(
        rf"vs {against}: 2 hands \(1 deals x 2\), won \d, lost \d, tied \d: score [\d.]+ %, "
        r"level margin [-+][\d.]+ a hand",
        printed,
    ), printed
