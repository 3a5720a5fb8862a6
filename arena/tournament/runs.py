"""The runs a results database has seen: each ``arena run`` records the config it ran with and
its SPRT (``runs`` table, :class:`chaodipi.arena.results.rows.StoredRun`), and
:func:`claim_run` decides whether a run may write into the file.

A run may grow the tournament stored there (``--resume`` with more deals, another bot, another
schedule): it plays only the games not stored yet and keeps the others. It may not change what
the stored results mean (:data:`chaodipi.arena.tournament.config.MEANING`: the preset, the
hands, the time control, the strikes) nor drop or change a stored bot; that is refused, naming
the key. A file written before runs were recorded keeps the old rule: only the very same
tournament (its fingerprint) is resumed.

A run may also resume from the database alone (:func:`stored_config`): the config its last run
recorded is the config file, and the command line's keys win over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaodipi.arena.errors import ConfigError, DatabaseError, ResumeError
from chaodipi.arena.results import GameKey, ResultsDB
from chaodipi.arena.tournament.config import (
    TournamentConfig,
    from_record,
    resume_refusal,
    unplayed,
)

if TYPE_CHECKING:
    from chaodipi.arena.results import SprtTest

__all__ = ["claim_run", "games_left", "stored_config"]


def claim_run(
    db: ResultsDB, config: TournamentConfig, *, resume: bool, sprt: SprtTest | None = None
) -> None:
    """Tie this run to ``db`` (open for writing) and record it: refuse a config that would
    change the meaning of the stored games, and a rerun without ``resume``."""
    runs = db.runs()
    if runs:
        refusal = resume_refusal(runs[-1].config, config)
        if refusal is not None:
            raise ResumeError(f"{db.path}: {refusal}")
        stored = db.count()
        if stored and not resume:
            raise ResumeError(
                f"{db.path} already holds {stored} games of this tournament: pass --resume to "
                "continue it (or grow it: more deals, another bot), or use another database file"
            )
    else:  # a new file, or one written before runs were recorded
        db.claim(config.fingerprint(), resume=resume)
    db.add_run(config.record(), None if sprt is None else asdict(sprt), resumed=resume)


def games_left(config: TournamentConfig) -> list[GameKey] | None:
    """The games ``--resume`` would play on ``config``'s database, read without writing: None
    when that is not known before the run claims the file (no database yet, one that cannot
    be read, one a run before runs were recorded wrote, or one whose stored run this config
    may not resume: the run says why)."""
    if not config.database.exists():
        return None
    try:
        db = ResultsDB(config.database, read_only=True)
    except DatabaseError:
        return None
    try:
        runs = db.runs()
        if not runs or resume_refusal(runs[-1].config, config) is not None:
            return None
        return unplayed(config, db.done())
    except DatabaseError:
        return None
    finally:
        db.close()


def stored_config(database: Path, overrides: Mapping[str, Any]) -> TournamentConfig:
    """The config of the last run ``database`` holds (read without writing), as ``--resume``
    with neither a config file nor ``--bot`` plays it: ``overrides`` (the command line's keys,
    paths whole) win. A database that does not exist or holds no run's config is refused in one
    line saying what to give instead; one that cannot be read, as the run would refuse it."""
    if not database.exists():
        raise ConfigError(
            f"--resume: there is no results database {database} to resume; name the bots with "
            "--bot NAME=COMMAND (or give a config file) to start one"
        )
    db = ResultsDB(database, read_only=True)
    try:
        runs = db.runs()
    finally:
        db.close()
    if not runs:
        raise ConfigError(
            f"--resume: {database} holds no stored config (an arena that did not record its "
            "runs wrote it): give the config file or the bots (--bot NAME=COMMAND)"
        )
    return from_record(runs[-1].config, {**overrides, "database": str(database.absolute())})
