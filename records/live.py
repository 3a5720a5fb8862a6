"""A live table as a spectator sees it: its public events made into record lines as they come
(``arena watch`` reads them from the ``Watch`` stream and prints the lines as ``arena show``
prints a record)."""

from __future__ import annotations

from chaodipi.engine.cards import Rank
from chaodipi.engine.events import Event, HandOver
from chaodipi.records.lines import RECORD_FORMAT, Line, LiveHeader
from chaodipi.records.making import LineMaker

__all__ = ["LiveRecord"]


class LiveRecord:
    """A spectator's stream as record lines (``docs/game-record.md``), made as the events
    come: the lines a record of the same game has that carry no ``to`` (a spectator sees
    what every seat sees), a ``hand`` line as each hand begins, and a header that knows only
    the table (a spectator is told neither the bots nor the preset).

    A hand line's level is worked out from the teams' progress, as a hand is dealt at its
    dealer's team's level (the trump line, when the card play begins, says it outright): a
    spectator's stream begins with the match's first public event, whenever it joins."""

    def __init__(self, table: str) -> None:
        self.table = table
        self._maker = LineMaker()
        self._hand = -1
        self._dealer: int | None = None
        self._progress: tuple[int, int] = (0, 0)

    def header(self) -> LiveHeader:
        """The header of a live record: the format, and the table."""
        return {"type": "header", "format": RECORD_FORMAT, "table": self.table}

    def lines(self, event: Event) -> list[Line]:
        """The lines of one public event (after a ``hand`` line when it begins a hand)."""
        made: list[Line] = []
        if event.hand != self._hand:
            self._hand = event.hand
            dealer, progress = self._dealer, self._progress
            level = Rank.TWO if dealer is None else Rank(progress[dealer % 2] % 13)
            made.append(self._maker.start_hand(event.hand, level, self._dealer, self._progress))
        made.extend(self._maker.lines(event))
        payload = event.payload
        if isinstance(payload, HandOver):
            self._dealer = payload.next_dealer
            self._progress = payload.progress
        return made
