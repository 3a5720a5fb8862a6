"""A live table as a spectator sees it: the ``Watch`` stream read into record lines as they
come, and printed as ``arena show`` prints a record (``arena watch``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

import grpc

from chaodipi.arena.report.transcript import Transcript
from chaodipi.arena.terminal import visible
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi.arena.v2.convert import (
    MatchEnd,
    Spectating,
    event_from_message,
    match_end_from_message,
    spectating_from_message,
    watch_request,
)
from chaodipi.engine.cards import Rank
from chaodipi.engine.events import Event, HandOver
from chaodipi.engine.match import Ending
from chaodipi.engine.record import RECORD_FORMAT, LineMaker

__all__ = [
    "LiveRecord",
    "ending_text",
    "open_watch",
    "refusal",
    "spectating_text",
    "watch_table",
]

Line = dict[str, Any]


def open_watch(
    address: str, table: str, token: str, root_certificate: bytes | None = None
) -> tuple[grpc.Channel, Any]:
    """A channel to the arena and the ``Watch`` call on it (iterate it for WatchResponses)."""
    if root_certificate is not None:
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificate))
    else:
        channel = grpc.insecure_channel(address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    return channel, stub.Watch(watch_request(table, token))


class LiveRecord:
    """A spectator's stream as record lines (``docs/game-record.md``), made as the events
    come: the lines a record of the same game has that carry no ``to`` (a spectator sees
    what every seat sees), a ``hand`` line as each hand begins, and a header that knows the
    table and, when the server told them (``Attached``), the bots' names (a spectator is not
    told the preset).

    A hand line's level is worked out from the teams' progress, as a hand is dealt at its
    dealer's team's level (the trump line, when the card play begins, says it outright): a
    spectator's stream begins with the match's first public event, whenever it joins."""

    def __init__(self, table: str) -> None:
        self.table = table
        self._maker = LineMaker()
        self._hand = -1
        self._dealer: int | None = None
        self._progress: tuple[int, int] = (0, 0)
        self.end: MatchEnd | None = None
        """How the match ended, once the stream said so."""
        self.spectating = Spectating(held_back=False)
        """What the server told the spectator as it took it in (its stream's first message)."""

    def header(self) -> Line:
        header: Line = {"type": "header", "format": RECORD_FORMAT, "table": self.table}
        if self.spectating.bots:
            header["bots"] = [{"name": name} for name in self.spectating.bots]
        return header

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

    def follow(self, responses: Iterable[pb.WatchResponse]) -> Iterator[Line]:
        """The header, once the first message came (with what an ``Attached`` said), then the
        lines of each event as it comes; :attr:`end` is set when the match's end comes (the
        iterator then stops)."""
        headed = False
        for response in responses:
            kind = response.WhichOneof("response")
            if not headed:
                if kind == "attached":
                    self.spectating = spectating_from_message(response.attached)
                yield self.header()
                headed = True
            if kind == "event":
                yield from self.lines(event_from_message(response.event))
            elif kind == "match_over":
                self.end, _ = match_end_from_message(response.match_over)
                return


def watch_table(
    responses: Iterable[pb.WatchResponse],
    table: str,
    out: TextIO,
    width: int = 80,
    on_attach: Callable[[Spectating], None] | None = None,
) -> MatchEnd | None:
    """Print a spectator's stream to ``out`` as it comes, in the transcript ``arena show``
    prints (:class:`chaodipi.arena.report.transcript.Transcript`), under a title naming the
    seats' bots when the server told them; ``on_attach`` is called with what the server said
    as it took the spectator in, before anything is printed. Return how the match ended
    (``None``: the stream ended first)."""
    live = LiveRecord(table)
    teller = Transcript(width=width, spectator=True)
    lines = live.follow(responses)
    header = next(lines, None)  # once the first message came (not before a refusal)
    if header is None:
        return None
    if on_attach is not None:
        on_attach(live.spectating)
    teller.header = header  # the result is not known yet
    title = [f"table {table}, live: what every seat sees (each hand's cards at its end)"]
    if live.spectating.bots:
        title += teller.seats()
    for text in title:
        print(text, file=out, flush=True)
    for line in lines:
        for text in teller.feed(line):
            print(text, file=out, flush=True)
    for text in teller.close():
        print(text, file=out)
    if live.end is not None:
        print(ending_text(live.end), file=out, flush=True)
    return live.end


def spectating_text(table: str, address: str, spectating: Spectating) -> str:
    """The line ``arena watch`` says as the server takes it in.

    >>> print(spectating_text("gX", "h:1", Spectating(True)))  # doctest: +NORMALIZE_WHITESPACE
    watching table gX at h:1; this table is a tournament's: its events are shown once every
    game of its deal has ended
    """
    line = f"watching table {visible(table)} at {visible(address)}"
    if spectating.held_back:
        line += (
            "; this table is a tournament's: its events are shown once every game of its deal "
            "has ended"
        )
    return line


def ending_text(end: MatchEnd) -> str:
    """The match's end as the watcher's last line.

    >>> from chaodipi.engine.match import Ending
    >>> ending_text(MatchEnd(Ending.PLAYED_OUT, "played to the end", 1, 9, (12, 14), None, 2))
    'match over after 9 hands: team 1 (seats 1 and 3) won, by 2; played to the end'
    """
    if end.winner is None:
        verdict = "drawn" if end.ending is Ending.PLAYED_OUT else "undecided"
    else:
        team = end.winner
        verdict = f"team {team} (seats {team} and {team + 2}) won, by {end.reward}"
    return f"match over after {end.hands} hands: {verdict}; {visible(end.reason)}"


_REFUSALS = {
    grpc.StatusCode.UNAUTHENTICATED: "the server refused the spectator token ({details}): "
    "use the file arena serve or arena run --spectator-token wrote for this server",
    grpc.StatusCode.UNAVAILABLE: "no arena answers at {address} ({details})",
}


def refusal(err: grpc.RpcError, address: str) -> str:
    """One line for a Watch that failed: the server's own words, with what to do."""
    code = err.code()
    details = visible((err.details() or code.name).replace("\n", " "))
    template = _REFUSALS.get(code, "{details}")
    return template.format(details=details, address=address)
