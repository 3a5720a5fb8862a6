"""The observation says what the engine's knowledge says (chaodipi.rl.encoding reads
chaodipi.engine.knowledge, never works it out again): over whole matches of every preset, and the
扛旗 hand, at every other step and for every seat, the ``sizes`` segment (cards each seat holds) and
the ``voids`` segment of the vector, carried forward step by step as the environment carries
it, equal what :func:`chaodipi.engine.knowledge.infer` says of the same view (its voids are
the other seats'; the seat's own row is its :class:`~chaodipi.engine.knowledge.Tally`'s)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from tests.rl_support import KANGQI_HAND, need_rl, reset_options

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine.events import Event  # noqa: E402
from chaodipi.engine.knowledge import Tally, infer  # noqa: E402
from chaodipi.engine.match import Match  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.view import SeatView, observe  # noqa: E402
from chaodipi.rl.encoding import ViewEncoder, split  # noqa: E402


@dataclass
class Reader:
    """A seat's :class:`Tally` of a hand, kept across the hand's views and given only the new
    events of each (as :class:`Tally` says a reader may): the tally of the view's events."""

    first: Event | None = None
    tally: Tally | None = None
    read: int = 0

    def of(self, view: SeatView) -> Tally:
        first = view.events[0] if view.events else None
        if self.tally is None or first is not self.first:  # another hand
            self.first, self.tally, self.read = first, Tally(view.preset.card), 0
        for event in view.events[self.read :]:
            self.tally.see(event.payload)
        self.read = len(view.events)
        return self.tally


def _check(encoder: ViewEncoder, view: SeatView, reader: Reader) -> int:
    """Check the view's encoding against its knowledge; how many voids it shows."""
    parts = split(encoder.encode(view))
    known = infer(view)
    tally = reader.of(view)
    seats = [(view.seat + r) % 4 for r in range(4)]  # the vector's rows: relative seats
    sizes = np.rint(parts["sizes"] * 33).astype(int).tolist()
    assert sizes == [known.sizes[s] for s in seats]
    for row, seat in enumerate(seats):
        said = known.voids[seat] if seat != view.seat else frozenset(tally.voids[seat])
        assert set(np.flatnonzero(parts["voids"][row]).tolist()) == said, (row, seat)
    return sum(len(v) for v in known.voids)


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_the_encodings_sizes_and_voids_are_the_knowledges(preset: str) -> None:
    name, options = reset_options(preset)
    rng = random.Random(preset)
    match = Match(PRESETS[name], seed=preset, **(options or {}))
    if options is not None:
        match.max_hands = 1
    encoders = [ViewEncoder(seat) for seat in range(4)]
    readers = [Reader() for _ in range(4)]
    voids = step = 0
    while True:
        for seat in range(4):  # every seat at every other step; the encoders read every step
            view = observe(match, seat)
            if step % 2 == 0 or match.over:
                voids += _check(encoders[seat], view, readers[seat])
            else:
                encoders[seat].encode(view)
        if match.over:
            break
        match.apply(match.to_play, match.legal_actions().sample(rng))
        step += 1
    assert voids > 0  # the matches show voids, so the check compared some
