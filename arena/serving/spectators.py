"""A table's spectators: who watches, what an embargo holds back, and how their streams end.

Spectators see public events only, converted once by the table; the messages of their streams
(``WatchResponse``) are made only when someone watches. A table may have an embargo
(``after``, an event the tournament sets once every game on the table's deal has ended): until
then spectators receive nothing, and the public events are held; once it is lifted they get
what was held, then the rest live. A spectator who joins a finished table gets the end at once
(the held events, or the last hand's result, and the match's end) and its stream closes.
"""

from __future__ import annotations

from typing import TypeAlias

import anyio

from chaodipi.arena.serving.port import Port, StreamEnd
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import watched

__all__ = ["Shown", "Spectators", "released_message"]

Shown: TypeAlias = pb.Event | pb.MatchOver
"""What spectators are shown: a public event, or the match's end (each sent as a
``WatchResponse``, :func:`chaodipi.arena.v2.convert.watched`)."""


def released_message(table: str) -> str:
    """What a late Play or Watch of a released table is told."""
    return f"table {table!r} is over and released (its result and replay are written)"


class Spectators:
    """The spectators of the table named ``table`` (with an embargo when ``after`` is given)."""

    def __init__(self, table: str, after: anyio.Event | None = None) -> None:
        self.table = table
        self.connections: set[Port] = set()
        self.released = False
        """Set by :meth:`release`: nobody may watch the table any more."""
        self._after = after
        self._held: list[Shown] | None = [] if after is not None else None
        """The public events held back (while an embargo lasts, and after it, for those who
        come later), as the table converted them; None for a table without an embargo."""
        self._last_hand_over: pb.Event | None = None
        self._over: pb.MatchOver | None = None
        self._scope = anyio.CancelScope()

    def join(self, connection: Port) -> None:
        """A spectator joins: it gets what it may see now, then the public events live; once
        the match is over (and no embargo holds it back), its last events and the end."""
        if self.released:
            connection.close(StreamEnd.GONE, released_message(self.table))
            return
        if not self._embargoed():
            for held in self._held or ():
                connection.send(watched(held))
            if self._over is not None:
                self._send_the_end(connection)
                return
        self.connections.add(connection)

    def leave(self, connection: Port) -> None:
        self.connections.discard(connection)

    def show(self, event: pb.Event, *, ends_a_hand: bool = False) -> None:
        """A public event: to the spectators now, or held back while an embargo lasts."""
        if ends_a_hand:
            self._last_hand_over = event
        if self._held is not None:
            self._held.append(event)
        if self.connections and not self._embargoed():
            message = watched(event)
            for spectator in list(self.connections):
                spectator.send(message)

    def end(self, over: pb.MatchOver) -> None:
        """The match is over: tell the spectators (unless an embargo holds it) and close."""
        self._over = over
        if self._held is not None:
            self._held.append(over)
        if self.connections and not self._embargoed():
            message = watched(over)
            for spectator in list(self.connections):
                spectator.send(message)
                spectator.close()
            self.connections.clear()

    async def embargo(self) -> None:
        """Wait for the embargo to be lifted, then show the spectators what was held back.
        Runs beside the table's match; :meth:`release` ends it."""
        if self._after is None:
            return
        with self._scope:
            await self._after.wait()
            self._lift()

    def release(self) -> None:
        """The server drops the table: close what still watches it, keep nothing."""
        if self._after is not None and self._after.is_set() and not self._scope.cancel_called:
            self._lift()  # the embargo task may not have run yet: spectators first
        self.released = True
        self._scope.cancel()
        for spectator in list(self.connections):
            spectator.close(StreamEnd.GONE, released_message(self.table))
        self.connections.clear()
        self._held = None

    def _embargoed(self) -> bool:
        return self._after is not None and not self._after.is_set()

    def _lift(self) -> None:
        held = [watched(item) for item in self._held or ()] if self.connections else []
        for spectator in list(self.connections):
            for message in held:
                spectator.send(message)
            if self._over is not None:
                self._send_the_end(spectator)
        if self._over is not None:
            self.connections.clear()

    def _send_the_end(self, spectator: Port) -> None:
        """A spectator of a finished match: the last hand's result (unless the held events
        had it), the match's end, and the end of the stream."""
        if self._held is None:  # the held events (if any) end with these already
            if self._last_hand_over is not None:
                spectator.send(watched(self._last_hand_over))
            if self._over is not None:
                spectator.send(watched(self._over))
        spectator.close()
