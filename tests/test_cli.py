"""The ``arena`` command line, run as a user runs it."""

from __future__ import annotations

import subprocess
import sys

from engine.presets import PRESETS


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120
    )


def test_presets_lists_every_preset() -> None:
    done = arena("presets")
    assert done.returncode == 0
    for name in PRESETS:
        assert name in done.stdout


def test_one_preset_lists_every_option() -> None:
    done = arena("presets", "hefei")
    assert done.returncode == 0
    assert "BidRules.fry_by_order = True" in done.stdout
    assert "ScoreRules.level_step = 10" in done.stdout


def test_unknown_preset_is_named_with_the_choices() -> None:
    done = arena("selfplay", "--preset", "nope")
    assert done.returncode == 2
    assert "no preset 'nope'" in done.stderr and "anchao" in done.stderr


def test_selfplay_prints_a_summary() -> None:
    done = arena("selfplay", "--matches", "2", "--hands", "1", "--preset", "anchao")
    assert done.returncode == 0, done.stderr
    assert "hands played" in done.stdout and "actions/s" in done.stdout
