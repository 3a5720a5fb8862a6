"""Every error the arena raises on purpose, by kind (as :mod:`chaodipi.engine.errors` does for the
rules). Each message is one line that says what was wrong and what to do; a command prints it
after its name and exits with the kind's :attr:`ArenaError.exit_code`.

* :class:`UsageError` — what was asked cannot be done as asked: change the config or the
  command line (:class:`ConfigError` for a config's key, :class:`ResumeError` for a database
  that holds another tournament, or this one without ``--resume``, :class:`LadderError` for a
  request a standing ladder's operator made).
* :class:`SetupError` — the machine is not ready for it: a file (:class:`DatabaseError`), an
  address (:class:`AddressError`), a package (:class:`MissingExtraError`), a cluster
  (:class:`ClusterError`).
* :class:`RunError` — a run that began cannot go on: the backend failed
  (:class:`BackendFailed`), a shard cannot be played on its node (:class:`ShardError`), a game
  cannot be seated (:class:`NoSeat`), a running ladder refused or did not answer
  (:class:`LadderRefused`).

Each also derives from the built-in error it refines (``ValueError``, ``OSError``,
``ImportError``, ``ConnectionError``, ``RuntimeError``), so code written against those still
catches it.

>>> issubclass(ConfigError, UsageError) and issubclass(ConfigError, ValueError)
True
>>> [kind.exit_code for kind in (UsageError, SetupError, RunError)]
[2, 2, 1]
"""

from __future__ import annotations

__all__ = [
    "AddressError",
    "ArenaError",
    "BackendFailed",
    "ClusterError",
    "ConfigError",
    "DatabaseError",
    "DealSetError",
    "LadderError",
    "LadderRefused",
    "MissingExtraError",
    "NoSeat",
    "NotResultsDatabase",
    "ResumeError",
    "RunError",
    "SetupError",
    "ShardError",
    "UsageError",
]


class ArenaError(Exception):
    """Something the arena cannot do; the message says what and how to fix it."""

    exit_code = 2
    """What a command exits with when this stops it."""


class UsageError(ArenaError, ValueError):
    """A config or a command line asking for what cannot be done: change it."""


class ConfigError(UsageError):
    """A configuration that cannot be used; the message names the key and the reason."""


class ResumeError(UsageError):
    """The database belongs to another tournament, or exists without ``--resume``."""


class DealSetError(UsageError):
    """A deal set that cannot be read or does not deal what it lists (one line, naming the
    file and the deal): :mod:`chaodipi.arena.tournament.deal_sets`."""


class LadderError(UsageError):
    """An operator's request a standing ladder refuses, in one line (``status``: the HTTP status
    its web API answers with: 400 a bad request, 404 no such bot, 409 it conflicts with the
    ladder's state, 413 a body too large)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class SetupError(ArenaError):
    """The machine is not ready: a file, an address, a package or a cluster."""


class DatabaseError(SetupError, OSError):
    """The results file cannot be used: locked by another run, unwritable, or not ours."""


class NotResultsDatabase(DatabaseError):
    """What a file holds that no results database does (a view for a table, a value of the
    wrong type, a stored config that is not JSON): the message says what, and
    :class:`chaodipi.arena.results.database.ResultsDB` names the file
    (:mod:`chaodipi.arena.results.check`)."""


class AddressError(SetupError, OSError):
    """An address the arena cannot listen on."""


class MissingExtraError(SetupError, ImportError):
    """An optional part was asked for and its packages are not installed; the message says
    what to install."""


class ClusterError(SetupError, ConnectionError):
    """No Ray cluster answers where one was asked for, or it cannot play (no node with a
    CPU)."""


class RunError(ArenaError, RuntimeError):
    """A run that began cannot go on; what was stored stays."""

    exit_code = 1


class LadderRefused(RunError):
    """A running ladder refused an operator's command (its answer in one line), or did not
    answer at its address."""


class BackendFailed(RunError):
    """The backend cannot play on (a shard failed on the cluster for good)."""


class ShardError(RunError):
    """A shard cannot be played on its node (its folder is missing there)."""


class NoSeat(RunError):
    """A game could not be seated in time (an external bot had too few sessions open); the
    game is void with this message."""

    def __init__(self, bot: str, message: str) -> None:
        super().__init__(message)
        self.bot = bot
        """The bot (its name in the config) that could not be seated."""
