"""The runs a results database has seen: each ``arena run`` records the config it ran with and
its SPRT (``runs`` table, :class:`chaodipi.arena.results.rows.StoredRun`), and
:func:`claim_run` decides whether a run may write into the file.

A run may grow the tournament stored there (``--resume`` with more deals, another bot, another
schedule): it plays only the games not stored yet and keeps the others. It may not change what
the stored results mean (:data:`chaodipi.arena.tournament.config.MEANING`: the preset, the
hands, the time control, the strikes) nor drop or change a stored bot; that is refused, naming
the key. A file written before runs were recorded keeps the old rule: only the very same
tournament (its fingerprint) is resumed.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from chaodipi.arena.errors import DatabaseError, ResumeError
from chaodipi.arena.results import GameKey, ResultsDB
from chaodipi.arena.tournament.config import TournamentConfig, resume_refusal, unplayed

if TYPE_CHECKING:
    from chaodipi.arena.results import SprtTest

__all__ = ["claim_run", "games_left"]


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
