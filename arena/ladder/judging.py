"""What a pair's games mean for the ladder: a pair's score, whether it is void, and the verdict
of a validation game.

A pair is rated only when both its games are results: a game in which a bot never took its seat
is void (the arena's one rule, :mod:`chaodipi.arena.serving.hosting`), and so is its pair,
which is stored and never rated. A forfeit (strikes, a crash after the bot saw its cards) is
a result: it is the bot's loss.

A version's validation game (four copies of it on one secret deal) fails on a crash, an illegal
answer, a strike, a forfeit or a seat not taken; the verdict names the first and shows what a
bot's author needs (its stderr's end, or the table's first refusal).

>>> from chaodipi.arena.results import GameKey, GameRow
>>> def row(score, swapped, **faults):
...     counts = dict(strikes_a=0, strikes_b=0, illegal_a=0, illegal_b=0, crashes_a=0,
...                   crashes_b=0)
...     counts.update(faults)
...     return GameRow(GameKey("a@1", "b@1", 9, swapped), score, 1, 0, 0, 0, 0, 0, 0,
...                    forfeit=None, reason="played out", errors="", seconds=1.0, **counts)
>>> pair_outcome([row(1.0, False), row(0.5, True)])
(0.75, '')
>>> pair_outcome([row(1.0, False), row(None, True)])
(None, 'a game ended undecided: played out')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.arena.results import GameRow
from chaodipi.arena.serving import TableResult
from chaodipi.arena.tournament import FailureKind, GameResult
from chaodipi.engine import Ending

__all__ = ["Verdict", "pair_outcome", "validation_verdict"]

DETAIL_CHARS = 4000
"""The most of a failure's detail (a stderr's end) a version's page keeps."""


def pair_outcome(rows: Sequence[GameRow]) -> tuple[float | None, str]:
    """Version A's pair score (the mean of its games' scores) and '' — or None and why the
    pair is no result (a void game, one that ended undecided)."""
    for row in rows:
        if row.void is not None:
            return None, f"void: {row.void.splitlines()[0]}"
    for row in rows:
        if row.score_a is None:
            return None, f"a game ended undecided: {row.reason}"
    return sum(row.score_a for row in rows if row.score_a is not None) / len(rows), ""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A validation game's verdict: passed, or why not and what shows it."""

    passed: bool
    reason: str = ""
    detail: str = ""


def validation_verdict(result: GameResult, table: TableResult) -> Verdict:
    """Judge a validation game (four copies of one version, so both teams are it): its row's
    faults, its table's seats and how it ended (``table.outcome``)."""
    row, outcome = result.row, table.outcome
    stderr = next((f.stderr for f in result.failures if f.stderr), None) or ""
    for failure in result.failures:
        if failure.kind is FailureKind.REFUSED:
            return Verdict(False, f"the server had no room for its seats: {failure.why}", stderr)
    if row.void is not None:
        return Verdict(False, f"it did not take its seat: {row.void.splitlines()[0]}", _cut(stderr))
    seats = table.seats
    refusal = next((s.first_refusal for s in seats if s.first_refusal), "")
    crashes = row.crashes_a + row.crashes_b
    if crashes:
        why = next((f.why for f in result.failures if f.kind is FailureKind.CRASHED), "")
        return Verdict(False, f"it crashed: {why}", _cut(stderr))
    illegal = row.illegal_a + row.illegal_b
    if illegal:
        return Verdict(
            False,
            f"the table refused {illegal} of its answer{'s' * (illegal > 1)} as illegal",
            _cut(refusal or stderr),
        )
    strikes = row.strikes_a + row.strikes_b
    drops = sum(s.drops for s in seats)
    if strikes and drops:
        return Verdict(
            False,
            f"its stream{'s' * (drops > 1)} ended mid-game ({drops}: its process crashed or "
            f"lost its connection; its own stderr says which), and its seats ran out of time "
            f"{strikes} time{'s' * (strikes > 1)}",
            _cut(stderr),
        )
    if strikes:
        return Verdict(
            False,
            f"it ran out of time {strikes} time{'s' * (strikes > 1)} (decision_ms, bank_ms)",
            _cut(stderr),
        )
    if outcome.ending is Ending.FORFEIT:
        return Verdict(False, f"it forfeited: {outcome.reason}", _cut(refusal or stderr))
    if not outcome.decided:
        return Verdict(False, f"the game did not end: {outcome.reason}", _cut(stderr))
    return Verdict(True)


def _cut(text: str) -> str:
    return text if len(text) <= DETAIL_CHARS else "…" + text[-DETAIL_CHARS:]
