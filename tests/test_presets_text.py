"""``arena presets NAME`` prints every option as the engine prints cards and suits, never a
Python enum's repr."""

from __future__ import annotations

import re

import pytest

from chaodipi.arena.cli.main import main
from chaodipi.engine.presets import PRESETS


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_name_prints_suits_ranks_and_options_as_text(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["presets", name]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"<\w+\.\w+: ", out), out
    assert "Suit." not in out and "Rank." not in out and "HeavenEarth." not in out


def test_classic_prints_its_pair_order_as_suit_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets", "classic"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "BidRules.pair_order = (♦, ♣, ♥, ♠)" in out
    assert "MatchRules.must_play = (A)" in out
    assert "ScoreRules.heaven_earth = exact" in out
