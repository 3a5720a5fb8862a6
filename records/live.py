"""A live table as a spectator sees it: its public events made into record lines as they come
(``arena watch`` reads them from the ``Watch`` stream and prints the lines as ``arena show``
prints a record)."""

from __future__ import annotations

from collections.abc import Sequence

from chaodipi.engine import Event
from chaodipi.records.lines import RECORD_FORMAT, Line, LiveHeader
from chaodipi.records.making import LineMaker

__all__ = ["LiveRecord"]


class LiveRecord:
    """A spectator's stream as record lines (``docs/game-record.md``), made as the events
    come: the lines a record of the same game has that carry no ``to`` (a spectator sees
    what every seat sees; each hand's ``hand`` line comes from its public
    :class:`~chaodipi.engine.HandBegun` event), and a header that knows the table and, when
    the server told them, the ``bots``' names by seat (a spectator is not told the preset)."""

    def __init__(self, table: str, bots: Sequence[str] = ()) -> None:
        self.table = table
        self.bots = tuple(bots)
        self._maker = LineMaker()

    def header(self) -> LiveHeader:
        """The header of a live record: the format, the table, and the bots when known."""
        header: LiveHeader = {"type": "header", "format": RECORD_FORMAT, "table": self.table}
        if self.bots:
            header["bots"] = [
                {"seat": seat, "team": seat % 2, "name": name}
                for seat, name in enumerate(self.bots)
            ]
        return header

    def lines(self, event: Event) -> list[Line]:
        """The lines of one public event."""
        return self._maker.lines(event)
