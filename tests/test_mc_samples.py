"""The Monte-Carlo bot's fixed budget (``--samples``): a number of sampled worlds, the same
answer from the same seed, and no clock needed."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from chaodipi.engine.phase import Phase
from chaodipi.engine.sampling import Deal, DealSampler
from chaodipi.search import monte_carlo_move
from tests.test_search_bot import _advance, _at


def test_a_fixed_number_of_samples_repeats_with_the_seed() -> None:
    view = _advance("classic", 3, _at(Phase.PLAY, tricks=3))
    assert view is not None and view.legal is not None
    first = monte_carlo_move(view, random.Random(4), None, samples=30)
    again = monte_carlo_move(view, random.Random(4), None, samples=30)
    assert first == again and first in view.legal


def test_samples_are_drawn_as_many_as_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _advance("classic", 3, _at(Phase.PLAY, tricks=3))
    assert view is not None
    drawn: list[int] = []
    original = DealSampler.sample

    def counting(self: DealSampler, rng: random.Random) -> Deal:
        drawn.append(1)
        return original(self, rng)

    monkeypatch.setattr(DealSampler, "sample", counting)
    monte_carlo_move(view, random.Random(4), None, samples=17)
    assert len(drawn) == 17


def test_no_budget_at_all_is_refused() -> None:
    view = _advance("classic", 3, _at(Phase.PLAY, tricks=3))
    assert view is not None
    with pytest.raises(ValueError, match="a time budget or a number of samples"):
        monte_carlo_move(view, random.Random(4), None)
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.sample_bots.mc_bot", "--samples", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "--samples must be at least 1, not 0" in done.stderr
