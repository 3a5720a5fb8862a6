"""What the ladder's operator may do, as the pages' operator API and ``arena ladder``'s
commands ask it: add a resident bot (its token is returned once and stored only as a digest),
pause, resume or retire a bot, and freeze the season.

The running ladder implements :class:`Operator`; its web API (``/api/operator/…``) checks the
operator's token and calls it. Each refusal is a :class:`LadderError`: one line saying what was
wrong and what to do.
"""

from __future__ import annotations

from typing import Protocol

from chaodipi.arena.errors import LadderError

__all__ = ["LadderError", "Operator"]



class Operator(Protocol):
    """The operator's actions on a running ladder."""

    async def add_bot(
        self, name: str, *, max_sessions: int | None = None, max_tables: int | None = None
    ) -> str:
        """Register a resident bot; returns its token (shown once, stored as a digest)."""
        ...

    async def pause(self, name: str, reason: str) -> None:
        """Keep the bot's versions out of the schedule (their games in play go on)."""
        ...

    async def resume(self, name: str) -> None:
        """Schedule the bot again (a version paused for its faults too)."""
        ...

    async def retire(self, name: str) -> None:
        """Take the bot off the ladder for good: its sessions end, its pages stay."""
        ...

    async def freeze(self, final_pairs: int) -> None:
        """End the season: no new versions; each active version plays ``final_pairs`` more
        pairs, then the final table is published."""
        ...
