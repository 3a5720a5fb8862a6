"""A record's steps, as the viewer steps through it and a review names decisions.

A step is one action and what follows from it (the cards it put down, the trick it completed,
the hand it ended); a hand's first step is its deal up to its first action. So a hand's k-th
action is its step k + 1, and the viewer's address names it by hand and step, both from 1:
``#hand=1&step=26`` (``records/viewer/playback.js`` reads and writes it).

>>> lines = [{"type": "header"}, {"type": "hand", "hand": 0}, {"type": "deal", "hand": 0},
...          {"type": "action", "hand": 0}, {"type": "pass", "hand": 0},
...          {"type": "action", "hand": 0}, {"type": "hand", "hand": 1},
...          {"type": "action", "hand": 1}]
>>> action_steps(lines), step_link(0, 3)
([(0, 2), (0, 3), (1, 2)], '#hand=1&step=3')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["action_steps", "step_link"]


def action_steps(lines: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Each action line's place, in order: its hand (from 0, as the record numbers hands) and
    its step in that hand (from 1, the deal being step 1)."""
    places: list[tuple[int, int]] = []
    step = 1
    for line in lines:
        if line.get("type") == "hand":
            step = 1
        elif line.get("type") == "action":
            step += 1
            places.append((int(line["hand"]), step))
    return places


def step_link(hand: int, step: int) -> str:
    """The viewer's address of a step: ``hand`` as the record numbers it (from 0), ``step``
    from 1 (:func:`action_steps`)."""
    return f"#hand={hand + 1}&step={step}"
