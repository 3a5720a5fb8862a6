"""A table's spectators, driven without gRPC under trio's MockClock: public events only, an
embargo that holds back everything until it is lifted, a late spectator of a finished table,
and the release that closes what still watches."""

from __future__ import annotations

from typing import Any

import trio

from chaodipi.arena.serving import spectators
from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.spectators import released_message
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import watched

from .table_support import ListPort, Player, config, kind_of, play_table

PRIVATE = {"dealt", "kitty_taken", "buried_cards"}


def public_seqs(table: Table) -> list[int]:
    """The match's public events, in order."""
    return [e.seq for e in table.match.log if e.public]


def test_a_spectator_from_the_first_move_sees_every_public_event_and_nothing_else() -> None:
    """The table waits for its start while a spectator joins: it then receives each public
    event of the match once, in order (no deal, kitty or burial; no hidden bid), and last
    the match's end without events; its stream ends normally."""
    start = trio.Event()
    spectator = ListPort(peer="spectator")
    tables: list[Table] = []

    async def watch_then_start(table: Table, players: list[Player]) -> None:
        tables.append(table)
        table.watch(spectator)
        start.set()

    result, _ = play_table(config("anchao", seed=3), during=watch_then_start, start=start)
    events = spectator.of("event")
    assert [e.seq for e in events] == public_seqs(tables[0])
    kinds = {e.WhichOneof("payload") for e in events}
    assert {"played", "hand_over", "bids_revealed"} <= kinds and not kinds & PRIVATE
    assert all(e.audience == 15 for e in events)
    assert not any(e.declared.HasField("bid") or e.fried.HasField("bid") for e in events)
    assert spectator.kinds()[-1] == "match_over" and spectator.kinds().count("match_over") == 1
    over = spectator.of("match_over")[0]
    assert over.reason == result.outcome.reason and not over.events
    assert spectator.closed == (StreamEnd.DONE, "")
    assert not tables[0].spectators


def test_an_embargo_holds_back_every_event_until_it_is_lifted() -> None:
    """A spectator of a table under embargo receives nothing while it plays but the
    ``Attached`` that says so, not even public plays, nor when the match is over; once the
    embargo is lifted it gets the whole match's public events, then the end. One who comes
    later gets all of it at once (told nothing is held back)."""
    lifted = trio.Event()
    start = trio.Event()
    early, late = ListPort(peer="early"), ListPort(peer="late")
    tables: list[Table] = []

    async def spectate(table: Table, players: list[Player]) -> None:
        tables.append(table)
        table.watch(early)
        start.set()
        await table.finished.wait()
        await trio.sleep(60)
        assert early.kinds() == ["attached"] and early.of("attached")[0].held_back
        assert early.closed is None and table.spectators == {early}
        lifted.set()
        await early.wait_closed()
        table.watch(late)

    play_table(config(max_hands=1), during=spectate, start=start, spectators_after=lifted)
    public = public_seqs(tables[0])
    for spectator in (early, late):
        assert [e.seq for e in spectator.of("event")] == public
        assert spectator.kinds()[-1] == "match_over"
        assert spectator.closed == (StreamEnd.DONE, "")
    assert not late.of("attached")[0].held_back


def test_a_spectator_of_a_finished_table_gets_the_whole_match_and_its_end_at_once() -> None:
    late = ListPort(peer="late")
    tables: list[Table] = []

    async def after_the_end(table: Table, players: list[Player]) -> None:
        tables.append(table)
        await table.finished.wait()
        table.watch(late)
        assert late.closed == (StreamEnd.DONE, "")  # at once, without waiting for anything

    result, _ = play_table(config(max_hands=2), during=after_the_end)
    assert [e.seq for e in late.of("event")] == public_seqs(tables[0])
    assert late.kinds()[-1] == "match_over" and late.kinds().count("match_over") == 1
    over = late.of("match_over")[0]
    assert over.reason == result.outcome.reason == "played to the end" and over.hands == 2


def test_a_release_closes_what_still_watches_and_turns_away_who_comes_later() -> None:
    """A spectator still held by an embargo when the table is released: its stream is
    closed as gone, saying why, having had nothing but the ``Attached`` that said the events
    are held back; a Watch after the release is turned away the same way at once, told
    nothing."""
    lifted, start = trio.Event(), trio.Event()
    held, after = ListPort(peer="held"), ListPort(peer="after")

    async def release(table: Table, players: list[Player]) -> None:
        table.watch(held)
        start.set()
        await table.finished.wait()
        table.release()
        table.watch(after)

    play_table(config(), during=release, start=start, spectators_after=lifted)
    gone = (StreamEnd.GONE, released_message("t"))
    assert (held.kinds(), held.closed) == (["attached"], gone)
    assert (after.sent, after.closed) == ([], gone)


def test_an_embargo_lifted_just_before_the_release_still_delivers_what_it_held() -> None:
    """The tournament lifts the embargo and the server releases the table in one step (the
    embargo's own task has not run yet): the spectator gets the held events and the end
    first, and its stream ends normally."""
    lifted, start = trio.Event(), trio.Event()
    spectator = ListPort(peer="spectator")
    tables: list[Table] = []

    async def lift_and_release(table: Table, players: list[Player]) -> None:
        tables.append(table)
        table.watch(spectator)
        start.set()
        await table.finished.wait()
        lifted.set()
        table.release()

    play_table(config(), during=lift_and_release, start=start, spectators_after=lifted)
    assert spectator.kinds()[-1] == "match_over" and len(spectator.of("event")) > 10
    assert spectator.closed == (StreamEnd.DONE, "")
    assert spectator.kinds()[0] == "attached"
    assert all(kind_of(m) in ("event", "match_over") for m in spectator.sent[1:])
    assert isinstance(spectator.sent[-1], pb.WatchResponse)


def test_a_table_nobody_watches_builds_no_spectator_message(monkeypatch: Any) -> None:
    """A WatchResponse is made only for someone watching: a whole match with no spectator
    converts none (with an embargo too, which holds the table's events, not messages); one
    spectator who joins gets one per public event and the end, after the ``Attached``."""
    made: list[object] = []

    def counted(item: Any) -> pb.WatchResponse:
        made.append(item)
        return watched(item)

    monkeypatch.setattr(spectators, "watched", counted)
    play_table(config("classic", seed=2))
    lifted = trio.Event()
    play_table(config("classic", seed=2), spectators_after=lifted)
    assert made == []
    spectator = ListPort(peer="spectator")

    async def watch(table: Table, players: list[Player]) -> None:
        table.watch(spectator)

    play_table(config("classic", seed=2), during=watch)
    assert len(made) == len(spectator.sent) - 1 > 1
    assert spectator.kinds()[-1] == "match_over"


def test_a_spectator_is_told_first_whether_the_events_are_held_back_and_who_plays() -> None:
    """A tournament's table knows its bots' names (the operator's, by seat): every spectator's
    first message, once, is an ``Attached`` with them and with whether an embargo holds the
    events back now; it carries nothing of the cards. A table not told the names (``arena
    serve``'s) sends none."""
    names = ("heuristic", "random", "heuristic", "random")
    lifted, start = trio.Event(), trio.Event()
    early, late = ListPort(peer="early"), ListPort(peer="late")

    async def spectate(table: Table, players: list[Player]) -> None:
        table.watch(early)
        start.set()
        await table.finished.wait()
        lifted.set()
        await early.wait_closed()
        table.watch(late)

    play_table(config(bots=names), during=spectate, start=start, spectators_after=lifted)
    assert [f.name for f in pb.Attached.DESCRIPTOR.fields] == ["held_back", "bots"]
    for spectator, held_back in ((early, True), (late, False)):
        assert spectator.kinds().count("attached") == 1 and spectator.kinds()[0] == "attached"
        told = spectator.of("attached")[0]
        assert (told.held_back, tuple(told.bots)) == (held_back, names)
    anonymous = ListPort(peer="anonymous")

    async def watch(table: Table, players: list[Player]) -> None:
        table.watch(anonymous)

    play_table(config(), during=watch)
    assert list(anonymous.of("attached")[0].bots) == [] and anonymous.kinds()[0] == "attached"
