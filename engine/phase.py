"""The phases of a hand, in order: declare (during the deal), bury, fry (炒底), play, over.

>>> [phase.value for phase in Phase]
['declare', 'bury', 'fry', 'play', 'over']
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Phase"]


class Phase(Enum):
    """Where a hand is: :mod:`chaodipi.engine.auction` drives the first three,
    :mod:`chaodipi.engine.playing` the card play; ``OVER`` once the hand is scored."""

    DECLARE = "declare"
    BURY = "bury"
    FRY = "fry"
    PLAY = "play"
    OVER = "over"
