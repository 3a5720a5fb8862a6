"""What a backend (where a tournament's games are played) and the driver
(:mod:`chaodipi.arena.tournament.driver`) tell each other.

The driver hands a backend an :class:`Assignment`: the games still to play, in the schedule's
order, and what playing them needs. The backend plays them (here:
:class:`chaodipi.arena.tournament.local. LocalBackend`; on a Ray cluster:
:class:`chaodipi.arena.tournament.ray_backend.RayBackend`) and hands back one :class:`GameResult`
per game as it ends: the row to store, the game's record, and what went wrong with the bots, as
facts (:class:`BotFailure`), never as text to parse again. A backend stores nothing and counts
nothing: the driver stores each result, counts the failures, holds the records back until their
deal is over,
and cancels the backend when the run must stop.

A :class:`GameResult` crosses the network on Ray, so it is small and picklable.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from chaodipi.arena.deals import DealSource
from chaodipi.arena.results import GameKey, GameRow
from chaodipi.arena.tournament.config import TournamentConfig

__all__ = [
    "Assignment",
    "Backend",
    "BotFailure",
    "FailureKind",
    "GameResult",
    "Games",
    "OnResult",
]


class FailureKind(Enum):
    """How a bot failed in a game (the values are what logs print)."""

    UNSEATED = "never took its seat"
    """A seat's bot never took it (it could not start, exited or did not connect before it was
    sent its hand): the game is void, and it counts as the bot's failure to take its seat."""
    REFUSED = "refused by the server"
    """As ``UNSEATED``, while the server refused streams for lack of room (at its cap): the game
    is void, and the bot is not blamed (nothing is counted)."""
    CRASHED = "crashed"
    """Its process died holding a seat it had been sent its hand in (at its first decision as
    later): its team forfeits."""


@dataclass(frozen=True, slots=True)
class BotFailure:
    """One of a bot's processes failed in one game.

    >>> gone = BotFailure("mine", FailureKind.CRASHED, why="mine#2, exit code 1", stderr="oom",
    ...                   process="mine#2@5e1f")
    >>> gone.bot, gone.kind.value
    ('mine', 'crashed')
    """

    bot: str
    kind: FailureKind
    why: str
    """What happened, as a person reads it (``exited before connecting (exit code 3)``;
    ``broken#2, exit code 1`` for a process that died)."""
    stderr: str | None
    """The tail of the process's stderr, secrets shown as ``…``
    (:func:`chaodipi.arena.tournament.processes.stderr_tail`), read where the process ran; None
    when it had no stderr file."""
    process: str = ""
    """Which process died (empty: none did, or which is not known), an id unique in the run:
    one process dying while it held seats in several games is one failure."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, as a backend hands it to the driver."""

    row: GameRow
    """What the results database stores (void games too)."""
    record: bytes | None = None
    """Its game record (:func:`chaodipi.records.pack`: JSON lines, zlib-compressed, small
    to send and to hold until its deal is over)."""
    failures: tuple[BotFailure, ...] = ()
    """Every failure of the game's bots, in the order they happened."""
    seated: frozenset[str] = frozenset()
    """The bots that took a seat in this game (it was sent its hand): for one that did not
    also fail here, the failures in a row start again."""


OnResult = Callable[[GameResult], None]
"""Where a backend hands each result, as its game ends (or as it arrives from a node)."""


@dataclass(frozen=True, slots=True)
class Assignment:
    """What the driver asks of a backend."""

    config: TournamentConfig
    deal_key: DealSource
    """What deals the games: the tournament's secret key (its repr hides it), or the public deal
    set of ``config.deals_file``."""
    games: tuple[GameKey, ...]
    """The games to play, in the schedule's order (deal after deal)."""
    log_dir: Path
    """The run's private folder for the bots' stderr."""


class Games(Protocol):
    """An assignment, ready to be played."""

    @property
    def processes(self) -> int:
        """Bot processes started so far."""
        ...

    async def play(self, on_result: OnResult) -> None:
        """Play every game, ``on_result(result)`` as each one ends; returns once all have.
        The driver cancels this to stop the run: the games in flight are dropped. Raises
        :class:`BackendFailed` when it cannot go on."""
        ...


class Backend(Protocol):
    """Where a run's games are played."""

    def open(self, assignment: Assignment) -> AbstractAsyncContextManager[Games]:
        """Make ready to play ``assignment`` (a server listening, a cluster connected), and
        clean up on leaving (every process and task of the backend ended). The driver watches
        Ctrl-C only once this is ready."""
        ...
