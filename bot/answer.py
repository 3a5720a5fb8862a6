"""A bot's answer with a note: ``decide`` may return ``Answer(action, note="…")``.

The note (its evaluation, the line it considered) goes to the arena with the action and is kept
in the game record beside it (docs/game-record.md); no seat is ever sent it. It is at most 256
bytes of UTF-8: a longer one raises ``ValueError`` here, in ``decide``, rather than reaching the
arena (which would refuse the answer).

>>> from chaodipi.engine.actions import Pass
>>> Answer(Pass(), note="no bid worth it").note
'no bid worth it'
>>> action_and_note(Pass())
(Pass(), '')
"""

from __future__ import annotations

from dataclasses import dataclass

from chaodipi.arena.v2.convert import check_note
from chaodipi.engine import Action

__all__ = ["Answer", "action_and_note"]


@dataclass(frozen=True, slots=True)
class Answer:
    """An action and the bot's note on it (at most 256 bytes of UTF-8)."""

    action: Action
    note: str = ""

    def __post_init__(self) -> None:
        check_note(self.note)


def action_and_note(answer: Action | Answer) -> tuple[Action, str]:
    """What ``decide`` returned, as the action and its note ('' for none)."""
    if isinstance(answer, Answer):
        return answer.action, answer.note
    return answer, ""
