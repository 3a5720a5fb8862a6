"""What a stored tournament says, as the commands read it: its games and runs
(:func:`stored`), its bots in their order (:func:`bot_names`), the SPRT its last run had
(:func:`stored_sprt`) and the one a new run goes on with (:func:`sprt_to_run`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameRow, StoredRun

if TYPE_CHECKING:
    from chaodipi.arena.results.sprt import SprtTest

__all__ = ["SprtChoice", "bot_names", "sprt_to_run", "stored", "stored_sprt"]


def stored(database: Path) -> tuple[list[GameRow], list[StoredRun]]:
    """The games and runs ``database`` holds (raises :class:`DatabaseError` if it cannot be
    read)."""
    db = ResultsDB(database, read_only=True)
    try:
        return db.rows(), db.runs()
    finally:
        db.close()


def bot_names(rows: list[GameRow], runs: list[StoredRun]) -> list[str]:
    """The bots, in the order of the last run's config (the first is the one an SPRT tests
    for being stronger), then any other stored one by name.

    >>> run = StoredRun("2026-12-01 14:00:00", False, {"bots": [{"name": "b"}, {"name": "a"}]},
    ...                 None)
    >>> bot_names([], [run])
    ['b', 'a']
    """
    listed = [b["name"] for b in runs[-1].config.get("bots", [])] if runs else []
    others = {r.key.bot_a for r in rows} | {r.key.bot_b for r in rows}
    return listed + sorted(others - set(listed))


def stored_sprt(runs: list[StoredRun]) -> SprtTest | None:
    """The SPRT the last run had, if it had one."""
    from chaodipi.arena.results.sprt import SprtTest  # numpy and scipy: only when there is one

    return SprtTest(**runs[-1].sprt) if runs and runs[-1].sprt is not None else None


@dataclass(frozen=True, slots=True)
class SprtChoice:
    """The SPRT a run tests (None: none), and, when it comes from the stored run or the stored
    one is dropped, the line that says so."""

    test: SprtTest | None
    said: str | None = None


def sprt_to_run(
    given: SprtTest | None, runs: list[StoredRun], bots: int, *, resume: bool
) -> SprtChoice:
    """The SPRT a run tests: the one ``given`` (``--sprt``); else, resuming a file whose last
    run had one, that one goes on, when the run has two bots (an SPRT compares two).

    >>> from chaodipi.arena.results.sprt import SprtTest
    >>> run = StoredRun("2026-12-01 14:00:00", False, {}, {"elo0": 0, "elo1": 50,
    ...                 "alpha": 0.05, "beta": 0.05})
    >>> sprt_to_run(None, [run], 2, resume=True).said
    "the stored run's SPRT goes on: elo0 0, elo1 50, α 0.05, β 0.05"
    >>> print(sprt_to_run(None, [run], 3, resume=True).said)
    no SPRT: the stored run's (elo0 0, elo1 50, α 0.05, β 0.05) compares two bots
    >>> sprt_to_run(None, [run], 2, resume=False)
    SprtChoice(test=None, said=None)
    """
    if given is not None or not resume:
        return SprtChoice(given)
    before = stored_sprt(runs)
    if before is None:
        return SprtChoice(None)
    if bots == 2:
        return SprtChoice(before, f"the stored run's SPRT goes on: {before.describe()}")
    return SprtChoice(None, f"no SPRT: the stored run's ({before.describe()}) compares two bots")
