"""A table's spectators: who watches, what an embargo holds back, and how their streams end.

Spectators see public events only, converted once by the table; the messages of their streams
(``WatchResponse``) are made only when someone watches. The gallery keeps the match's public
events as they are shown (``shown``, append-only): a spectator who joins is sent all of them
at once, as its history, and from then on each new one live. Both are cut at one cursor, in one
step on the loop (:meth:`Spectators.join` does not wait), so every public event reaches every
spectator exactly once, in order, whenever it joins: before the table starts, between forced
moves, mid-hand, between hands, after the end.

Whoever joins is first told, once, whether the table has an embargo that holds its events
back now, and the bots' names by seat when the table knows them (``Attached``): nothing of the
cards.

A table may have an embargo (``after``, an event the tournament sets once every game on the
table's deal has ended): until then spectators receive nothing; once it is lifted they get
the history, then the rest live. A spectator who joins a finished table gets the whole history
and the match's end at once, and its stream closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias

import anyio

from chaodipi.arena.serving.port import Port, StreamEnd
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import Spectating, attached, watched

__all__ = ["Shown", "Spectators", "Watcher", "released_message"]

Shown: TypeAlias = pb.Event | pb.MatchOver
"""What spectators are shown: a public event, or the match's end (each sent as a
``WatchResponse``, :func:`chaodipi.arena.v2.convert.watched`)."""


class Watcher(Port, Protocol):
    """A spectator's stream: a port that also takes a history at once."""

    def send_all(self, messages: Sequence[Any]) -> None:
        """Send these messages, in order, before anything sent after them. They are what the
        arena holds anyway (a table's history): a bounded outbox takes them as one item, so a
        late spectator of a long match is not cut off for the length of its history."""
        ...


def released_message(table: str) -> str:
    """What a late Play or Watch of a released table is told."""
    return f"table {table!r} is over and released (its result and replay are written)"


class Spectators:
    """The spectators of the table named ``table`` (with an embargo when ``after`` is given;
    ``bots``: the names of the bots by seat, if known)."""

    def __init__(
        self, table: str, after: anyio.Event | None = None, bots: Sequence[str] = ()
    ) -> None:
        self.table = table
        self.bots = tuple(bots)
        self.connections: set[Watcher] = set()
        self.released = False
        """Set by :meth:`release`: nobody may watch the table any more."""
        self._after = after
        self._shown: list[pb.Event] = []
        """Every public event of the match so far, in order, as the table converted it: the
        history of whoever joins (the table keeps these messages anyway: this holds them)."""
        self._over: pb.MatchOver | None = None
        self._lifted = after is None
        """Whether spectators are sent anything: at once without an embargo; with one, from
        the step that sends those who wait the history (:meth:`_lift`), not from the moment
        ``after`` is set, so that nobody joining in between gets the history twice."""
        self._scope = anyio.CancelScope()

    def join(self, connection: Watcher) -> None:
        """A spectator joins: in one step, it is told whether an embargo holds the events back
        and who plays, is sent the history (unless an embargo holds it) and from then on gets
        each public event live; once the match is over (and no embargo holds it back), the
        end, and its stream closes."""
        if self.released:
            connection.close(StreamEnd.GONE, released_message(self.table))
            return
        told = attached(Spectating(self._embargoed(), self.bots))
        if self._embargoed():
            connection.send_all([told])
        else:
            connection.send_all([told, *self._history()])
            if self._over is not None:
                connection.close()
                return
        self.connections.add(connection)

    def leave(self, connection: Watcher) -> None:
        self.connections.discard(connection)

    def show(self, event: pb.Event) -> None:
        """A public event: into the history, and to the spectators now unless an embargo
        holds it back."""
        self._shown.append(event)
        if self.connections and not self._embargoed():
            message = watched(event)
            for spectator in list(self.connections):
                spectator.send(message)

    def end(self, over: pb.MatchOver) -> None:
        """The match is over: tell the spectators (unless an embargo holds it) and close."""
        self._over = over
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
        if self._after is not None and self._after.is_set():
            self._lift()  # the embargo task may not have run yet: spectators first
        self.released = True
        self._scope.cancel()
        for spectator in list(self.connections):
            spectator.close(StreamEnd.GONE, released_message(self.table))
        self.connections.clear()
        self._shown = []

    def _embargoed(self) -> bool:
        return not self._lifted

    def _history(self) -> list[pb.WatchResponse]:
        """What a spectator who joins now is sent first: every public event so far, and the
        match's end if it is over."""
        history = [watched(event) for event in self._shown]
        if self._over is not None:
            history.append(watched(self._over))
        return history

    def _lift(self) -> None:
        """The embargo is lifted: those who wait get the history (and, if the match is over,
        their stream closes); from now on, what is shown goes to them live."""
        if self._lifted:
            return
        self._lifted = True
        if not self.connections:
            return
        history = self._history()
        for spectator in list(self.connections):
            spectator.send_all(history)
            if self._over is not None:
                spectator.close()
        if self._over is not None:
            self.connections.clear()
