"""What the ladder is doing now, for its pages: the pairs playing, and a stream of what happens
(a pair started or finished, a version's state changed, a refit published).

Nothing here says anything of a game's cards, plays or score while its pair is playing: a bot
may read the pages, and the other game of its pair is on the same deal (docs/trust.md). A pair
shows its games once both have ended.

Subscribers are the pages' server-sent event streams. Each has a small buffer; one that falls
behind is dropped (its stream ends, and the browser's ``EventSource`` connects again and reads
the page afresh), so a slow page never holds up the ladder.

>>> live = Live()
>>> live.started(Playing(7, "rated", "alice@1", "bob@2", 0.0))
>>> [p.pair for p in live.playing()]
[7]
>>> live.finished(7, {"score_a": 0.75})
>>> live.playing()
[]
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["SUBSCRIBER_BUFFER", "EventKind", "LadderEvent", "Live", "Playing"]

SUBSCRIBER_BUFFER = 64
"""Events a subscriber may fall behind by before it is dropped."""

EventKind = Literal["pair_started", "game_over", "pair_finished", "version", "refit"]
"""What happened: a pair (or validation game) began, one of its games ended (how many have,
never how), it ended, a version's state changed, a refit was published."""


@dataclass(frozen=True, slots=True)
class Playing:
    """A pair being played, as a page may show it (no table name: a ticket names its table)."""

    pair: int
    kind: str
    """``rated``, ``final`` or ``validation``."""
    version_a: str
    version_b: str
    started_at: float
    games_over: int = 0
    """How many of its games have ended (their results wait for the pair)."""


@dataclass(frozen=True, slots=True)
class LadderEvent:
    """One thing that happened, as a server-sent event carries it (``kind`` is its event name,
    ``data`` its JSON)."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)


class Live:
    """The pairs playing now and the subscribers told of each change (on the ladder's loop)."""

    def __init__(self) -> None:
        self._playing: dict[int, Playing] = {}
        self._subscribers: set[MemoryObjectSendStream[LadderEvent]] = set()
        self.changes = 0
        """How many events were published: what the pages read from the store is as new as
        this count says."""

    def playing(self) -> list[Playing]:
        """The pairs playing now, the oldest first."""
        return sorted(self._playing.values(), key=lambda p: (p.started_at, p.pair))

    def started(self, playing: Playing) -> None:
        self._playing[playing.pair] = playing
        self.publish(LadderEvent("pair_started", asdict(playing)))

    def game_over(self, pair: int) -> None:
        """One game of a playing pair ended (what it scored is told with the pair)."""
        now = self._playing.get(pair)
        if now is not None:
            self._playing[pair] = Playing(
                now.pair,
                now.kind,
                now.version_a,
                now.version_b,
                now.started_at,
                now.games_over + 1,
            )
            self.publish(LadderEvent("game_over", {"pair": pair, "games_over": now.games_over + 1}))

    def finished(self, pair: int, summary: dict[str, Any]) -> None:
        """A pair is over and stored: ``summary`` is what its event says of it."""
        self._playing.pop(pair, None)
        self.publish(LadderEvent("pair_finished", {"pair": pair, **_finite(summary)}))

    def publish(self, event: LadderEvent) -> None:
        """Tell every subscriber; one whose buffer is full is dropped."""
        self.changes += 1
        for stream in list(self._subscribers):
            try:
                stream.send_nowait(event)
            except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._subscribers.discard(stream)
                stream.close()

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[MemoryObjectReceiveStream[LadderEvent]]:
        """The events from now on, until the block ends or the subscriber falls behind."""
        send, receive = anyio.create_memory_object_stream[LadderEvent](SUBSCRIBER_BUFFER)
        self._subscribers.add(send)
        try:
            with receive:
                yield receive
        finally:
            self._subscribers.discard(send)
            send.close()

    def close(self) -> None:
        """End every subscriber's stream (the ladder is stopping: its pages' streams end, and
        each browser connects again to the next ladder that serves them)."""
        for stream in list(self._subscribers):
            self._subscribers.discard(stream)
            stream.close()

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)


def _finite(values: dict[str, Any]) -> dict[str, Any]:
    """JSON has no infinity or NaN: such a number is sent as None."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in values.items()
    }
