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
from pathlib import Path
from typing import Protocol

from chaodipi.arena.tournament.config import TournamentConfig
from chaodipi.arena.tournament.deals import DealSource
from chaodipi.arena.tournament.results import GameKey, GameRow

__all__ = [
    "Assignment",
    "Backend",
    "BotFailure",
    "GameResult",
    "Games",
    "OnResult",
]


@dataclass(frozen=True, slots=True)
class BotFailure:
    """One of a bot's processes failed in one game.

    >>> gone = BotFailure("mine", had_played=True, why="mine#2, exit code 1", stderr="oom",
    ...                   process="mine#2@5e1f")
    >>> gone.bot, gone.had_played
    ('mine', True)
    """

    bot: str
    had_played: bool
    """False: it never played in this game (it could not start, exited before its first
    decision, did not connect in time, or no session of it could take the seat); the game is
    void. True: it had played (in some game), and its process died in this one, which its
    team forfeits."""
    why: str
    """What happened, as a person reads it (``exited before connecting (exit code 3)``;
    ``broken#2, exit code 1`` for a process that died)."""
    stderr: str | None
    """The tail of the process's stderr, secrets shown as ``…``
    (:func:`chaodipi.arena.tournament.processes.stderr_tail`), read where the process ran; None
    when it had no stderr file."""
    process: str = ""
    """Which process died (``had_played``), an id unique in the run: one process dying while it
    held seats in several games is one failure."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, as a backend hands it to the driver."""

    row: GameRow
    """What the results database stores (void games too)."""
    record: bytes | None = None
    """Its game record (:func:`chaodipi.arena.records.pack`: JSON lines, zlib-compressed, small
    to send and to hold until its deal is over)."""
    failures: tuple[BotFailure, ...] = ()
    """Every failure of the game's bots, in the order they happened."""
    played: frozenset[str] = frozenset()
    """The bots with a seat that made a decision in this game: for one that did not also fail
    here, the failures in a row start again."""


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
