"""A live table as a spectator sees it (``arena watch``): the ``Watch`` call, the stream read
into record lines as they come (:class:`chaodipi.records.LiveRecord`) and printed as ``arena
show`` prints a record, and the watcher's last line."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

import grpc

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi.arena.v2.convert import (
    Spectating,
    event_from_message,
    outcome_from_message,
    spectating_from_message,
    watch_request,
)
from chaodipi.engine import Outcome
from chaodipi.records import LiveRecord, Transcript, team_name, visible

__all__ = ["ending_text", "open_watch", "refusal", "spectating_text", "watch_table"]


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


def watch_table(
    responses: Iterable[pb.WatchResponse],
    table: str,
    out: TextIO,
    width: int = 80,
    on_attach: Callable[[Spectating], None] | None = None,
) -> Outcome | None:
    """Print a spectator's stream to ``out`` as it comes, in the transcript ``arena show``
    prints (:class:`chaodipi.records.Transcript`), under a title naming the seats' bots when
    the server told them; ``on_attach`` is called with what the server said as it took the
    spectator in, before anything is printed. Return how the match ended (``None``: the
    stream ended first)."""
    teller = Transcript(width=width, spectator=True)
    stream = iter(responses)
    first = next(stream, None)  # once the first message came (not before a refusal)
    if first is None:
        return None
    spectating = Spectating(held_back=False)
    if first.WhichOneof("response") == "attached":
        spectating = spectating_from_message(first.attached)
    else:
        stream = itertools.chain([first], stream)
    if on_attach is not None:
        on_attach(spectating)
    live = LiveRecord(table, spectating.bots)
    teller.feed(live.header())  # the result is not known yet
    title = [f"table {table}, live: what every seat sees (each hand's cards at its end)"]
    if spectating.bots:
        title += teller.seats()
    for text in title:
        print(text, file=out, flush=True)
    outcome: Outcome | None = None
    for response in stream:
        kind = response.WhichOneof("response")
        if kind == "match_over":
            outcome, _ = outcome_from_message(response.match_over)
            break
        if kind == "event":
            for line in live.lines(event_from_message(response.event)):
                for text in teller.feed(line):
                    print(text, file=out, flush=True)
    for text in teller.close():
        print(text, file=out)
    if outcome is not None:
        print(ending_text(outcome, spectating.bots), file=out, flush=True)
    return outcome


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


def ending_text(outcome: Outcome, bots: Sequence[str] = ()) -> str:
    """How the game ended, as the watcher's last line, in the words ``arena show`` and the
    viewer use; each team named by its ``bots`` (by seat) when the server said them.

    >>> from chaodipi.engine import Ending
    >>> print(ending_text(Outcome(Ending.PLAYED_OUT, "played out", 1, 9, (2, 4), None, 2)))
    match over: team 1 (seats 1 and 3) won (reward 2) after 9 hands: played out; progress 2 : 4
    """
    names = list(bots) if len(bots) == 4 else ["", "", "", ""]
    return visible("match over: " + outcome.said(lambda team: team_name(team, names)))


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
