"""A table's messages, driven without gRPC under trio's MockClock: whole matches and their
replays, every event reaching its seat once and in order, refusals (illegal, malformed,
stale, not your turn), answers sent twice, floods, and a failing table beside a sound one."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from structlog.testing import capture_logs

from chaodipi.arena.serving.flood import FLOOD_BURST, FLOOD_REFILL_PER_S
from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.record import table_record
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.engine.actions import Action, Play
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import dump_lines, replay_record
from tests.schema_support import record_validator

from .table_support import (
    Player,
    absent_bot,
    config,
    delivered_events,
    in_process_server,
    instant_bot,
    kind_of,
    legal_of,
    play_table,
    random_bot,
    seat_bots,
    silent_bot,
)

_STALE, _MALFORMED = pb.REFUSAL_CODE_STALE, pb.REFUSAL_CODE_MALFORMED
_ILLEGAL, _NOT_YOUR_TURN = pb.REFUSAL_CODE_ILLEGAL, pb.REFUSAL_CODE_NOT_YOUR_TURN


def refusals(player: Player) -> list[tuple[int, int, str]]:
    return [(r.code, r.decision_id, r.reason) for r in player.of("refused")]


# -- whole matches ------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_an_instant_bot_plays_a_whole_match_with_no_strike(preset: str) -> None:
    """Four bots that answer each Decision the moment it arrives, over a whole match of every
    preset: answers never count as a flood, so nobody is cut off, struck or refused."""
    cfg = config(preset, max_hands=None, decision_ms=10_000, bank_ms=60_000)
    result, players = play_table(cfg, [instant_bot] * 4)
    assert result.outcome.reason == "played to the end" and result.outcome.winner is not None
    assert all(s.strikes == 0 and s.connects == 1 for s in result.seats), result.seats
    for player in players:
        assert "refused" not in player.kinds() and "strike" not in player.kinds()
        assert player.kinds()[-1] == "match_over" and player.port.closed == (StreamEnd.DONE, "")


def test_every_event_reaches_its_seat_once_in_order_one_message_per_decision() -> None:
    """Over two hands, each seat is sent exactly the events it may see (the match's log, read
    back from the game record, by audience), each once and in order, riding on its Snapshot,
    its Decisions and its MatchOver: nothing else carries events, and nothing else is sent.
    The record reproduces the match and holds no ticket."""
    tables: list[Table] = []

    async def keep(table: Table, players: list[Player]) -> None:
        tables.append(table)

    result, players = play_table(config(max_hands=2, seed=5), during=keep)
    assert result.outcome.reason == "played to the end" and result.outcome.hands == 2
    lines = table_record(tables[0])
    text = dump_lines(lines)
    match = replay_record(lines)
    assert len(match.records) == result.outcome.hands and match.winner == result.outcome.winner
    assert all(seat.ticket not in text for seat in tables[0].seats)
    for player in players:
        seat = player.seat
        delivered = [e.seq for e in delivered_events(player.sent)]
        assert delivered == [e.seq for e in match.log.since(0, seat)], f"seat {seat}"
        kinds = player.kinds()
        assert kinds[:2] == ["welcome", "snapshot"] and kinds[-1] == "match_over"
        assert set(kinds) == {"welcome", "snapshot", "decision", "match_over"}
        assert kinds.count("decision") == result.seats[seat].decisions


def test_tables_in_one_server_play_at_once_and_a_failing_one_disturbs_no_other() -> None:
    """Two tables in one server's nursery (no gRPC: :func:`in_process_server`): one whose
    engine fails mid-match ends alone, its result saying why and its bots told; the other
    plays to its end."""

    class Broken(Match):
        __slots__ = ()

        def apply(self, seat: int, action: Action) -> None:
            if len(self.actions) >= 20:
                raise RuntimeError("simulated engine failure")
            super().apply(seat, action)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server = in_process_server(nursery)
            broken = server.start_table(config(max_hands=2))
            sound = server.start_table(config(max_hands=2, seed=9))
            broken.match.__class__ = Broken
            players = [seat_bots(nursery, t, [random_bot] * 4) for t in (broken, sound)]
            with capture_logs() as logs:
                results = [await server.wait(t) for t in (broken, sound)]
            assert results[0].outcome.reason == ("the table failed: RuntimeError: simulated engine failure")
            assert results[0].outcome.winner is None
            assert results[1].outcome.reason == "played to the end"
            assert all(p.kinds()[-1] == "match_over" for p in players[0])
            over = players[0][0].of("match_over")[0]
            assert over.ending == pb.ENDING_FAILED
            failed = [e for e in logs if e["event"] == "table_failed"]
            assert [e["table"] for e in failed] == [broken.name]

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


# -- refusals -----------------------------------------------------------------------------------


def test_an_illegal_move_is_refused_with_the_reason_and_may_be_retried() -> None:
    """Seat 0 plays two cards of different suits at each of its plays, then its legal
    set's default once refused: every such play is refused as illegal with the engine's
    reason, the retry is applied, and nothing is struck."""

    async def stubborn(player: Player) -> None:
        decision = None
        async for message in player.connect():
            kind = kind_of(message)
            if kind == "decision":
                decision = message.decision
                if decision.legal.phase == pb.PHASE_PLAY:
                    mixed = Play(tuple(parse_cards("♥3 ♣4")))
                    player.answer(decision.decision_id, mixed)
                else:
                    player.answer(decision.decision_id, legal_of(decision).default())
            elif kind == "refused" and decision is not None:
                player.answer(decision.decision_id, legal_of(decision).default())

    result, players = play_table(config(), [stubborn, random_bot, random_bot, random_bot])
    refused = players[0].of("refused")
    plays = [d for d in players[0].of("decision") if d.legal.phase == pb.PHASE_PLAY]
    assert len(refused) == len(plays) > 0
    assert [r.decision_id for r in refused] == [d.decision_id for d in plays]
    assert {r.code for r in refused} == {_ILLEGAL}
    assert all(r.reason for r in refused)
    assert result.seats[0].illegal == len(refused) and result.seats[0].strikes == 0
    assert result.outcome.reason == "played to the end"


def test_malformed_stale_and_out_of_turn_messages_are_refused_each_with_its_reason() -> None:
    """Seat 0 sends, before any decision, an answer to a decision that never was and a
    second Hello; at its first decision an answer with no action, an answer to a later
    decision, then its answer twice. Each gets its Refused with the exact code and reason:
    what answers no open decision at once, the answers to the open one in the order they
    came, as the table reads them. The answer is applied once and the match plays on."""
    first_decision: list[int] = []

    async def prankster(player: Player) -> None:
        pranked = False
        async for message in player.connect():
            kind = kind_of(message)
            if kind == "snapshot":
                player.send(pb.PlayRequest(answer=pb.Answer(decision_id=999)))
                player.send(pb.PlayRequest(hello=pb.Hello(ticket="again")))
            elif kind == "decision":
                decision = message.decision
                number = decision.decision_id
                move = legal_of(decision).sample(player.rng)
                if not pranked:
                    pranked = True
                    first_decision.append(number)
                    player.send(pb.PlayRequest(answer=pb.Answer(decision_id=number)))
                    player.answer(number + 5, move)
                    player.answer(number, move)
                player.answer(number, move)

    result, players = play_table(config(), [prankster, random_bot, random_bot, random_bot])
    (number,) = first_decision
    assert refusals(players[0]) == [
        (_NOT_YOUR_TURN, 999, "it is not your turn"),
        (_MALFORMED, 0, "after Hello, send only Answer messages"),
        (_STALE, number + 5, f"decision {number + 5} is not open; decision {number} is"),
        (_MALFORMED, number, "the action sets none of pass_turn, declare, fry, bury, play"),
        (_STALE, number, f"decision {number} is not open; none of yours is"),
    ]
    assert result.seats[0].malformed == 2 and result.seats[0].illegal == 0
    assert result.outcome.reason == "played to the end"


def test_an_answer_sent_twice_is_refused_every_time() -> None:
    """Every seat sends each of its answers twice in a row over a whole hand: both reach the
    table while the decision is open; the first is applied and the copy is refused as
    stale once the decision closes, every time, last answer included (none is dropped
    without a word)."""

    async def repeating(player: Player) -> None:
        async for message in player.connect():
            if kind_of(message) == "decision":
                decision = message.decision
                move = legal_of(decision).default()
                player.answer(decision.decision_id, move)
                player.answer(decision.decision_id, move)

    result, players = play_table(config(), [repeating] * 4)
    assert result.outcome.reason == "played to the end"
    for player in players:
        asked = [d.decision_id for d in player.of("decision")]
        expected = [(_STALE, n, f"decision {n} is not open; none of yours is") for n in asked]
        assert refusals(player) == expected and len(asked) > 10, f"seat {player.seat}"
        # each copy is refused before the seat hears of anything that came after
        kinds = player.kinds()
        for at, kind in enumerate(kinds):
            if kind == "decision" and at + 1 < len(kinds):
                assert kinds[at + 1] == "refused"
    assert all(s.strikes == 0 for s in result.seats)


# -- floods -------------------------------------------------------------------------------------


def test_a_flood_of_unasked_messages_is_cut_off_and_logged_and_the_table_plays_on() -> None:
    """5,000 stale answers at once: exactly the allowance (1,000) is refused, then the
    stream is closed as flooding, with the reason, and one log line says so; the rest is
    ignored. The table plays on: the seat, cut off, times out and its team forfeits."""
    floods: list[int] = []

    async def flooder(player: Player) -> None:
        port = player.connect()
        await port.wait_for("snapshot")
        junk = pb.PlayRequest(answer=pb.Answer(decision_id=424242))
        for _ in range(5000):
            player.send(junk)
        floods.append(len(port.of("refused")))

    cfg = config(decision_ms=2000, bank_ms=0, max_strikes=2)
    with capture_logs() as logs:
        result, players = play_table(cfg, [flooder, random_bot, random_bot, random_bot])
    cut_off = players[0].port
    assert floods == [FLOOD_BURST] and len(cut_off.of("refused")) == FLOOD_BURST
    assert cut_off.closed is not None and cut_off.closed[0] is StreamEnd.FLOODING
    assert cut_off.closed[1].startswith("flooding: more than 1000 messages the table did not")
    assert result.outcome.forfeited_by == 0 and result.seats[0].strikes == 2
    assert all(p.of("match_over") for p in players[1:])
    cut = [e for e in logs if e["event"] == "flood_cut_off"]
    assert len(cut) == 1 and cut[0]["seat"] == 0 and cut[0]["table"] == "t"
    assert cut[0]["log_level"] == "warning"


def test_the_allowance_comes_back_over_time_and_a_new_stream_gets_a_fresh_one() -> None:
    """The allowance is a bucket: 1,000 unasked messages at once are refused, a second later
    100 more may come (the refill), and the next one floods. A stream that connects again
    after the cut-off has a whole allowance of its own."""
    counts: list[int] = []

    async def measured(player: Player) -> None:
        port = player.connect()
        await port.wait_for("snapshot")
        junk = pb.PlayRequest(answer=pb.Answer(decision_id=424242))
        for _ in range(FLOOD_BURST):
            player.send(junk)
        await trio.sleep(1.0)
        for _ in range(int(FLOOD_REFILL_PER_S)):
            player.send(junk)
        counts.append(len(port.of("refused")))
        assert port.closed is None
        player.send(junk)
        assert port.closed is not None and port.closed[0] is StreamEnd.FLOODING
        again = player.connect()
        for _ in range(FLOOD_BURST):
            player.send(junk)
        counts.append(len(again.of("refused")))
        assert again.closed is None
        player.table.stop("the test is over")

    play_table(config(decision_ms=10_000, bank_ms=10_000), [measured] + [random_bot] * 3)
    assert counts == [FLOOD_BURST + int(FLOOD_REFILL_PER_S), FLOOD_BURST]


def test_a_table_needs_of_a_port_only_send_close_and_peer() -> None:
    """The table keeps each seat's flood allowance itself and counts nothing on the port:
    a port with nothing but ``send``, ``close`` and ``peer`` plays a whole match, refusals
    and all."""

    class Bare:
        __slots__ = ("peer", "sent")

        def __init__(self) -> None:
            self.peer = "bare"
            self.sent: list[pb.PlayResponse] = []

        def send(self, message: pb.PlayResponse) -> None:
            self.sent.append(message)

        def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
            pass

    async def main() -> None:
        table = Table("t", config(decision_ms=1000, bank_ms=0, max_strikes=1))
        bare = Bare()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            players = seat_bots(nursery, table, [random_bot] * 3 + [absent_bot])
            table.attach(3, bare, "bare")
            table.receive(3, bare, pb.PlayRequest(answer=pb.Answer(decision_id=7)))
            await table.finished.wait()
        assert table.result is not None and table.result.outcome.forfeited_by == 3
        assert players[0].of("match_over")
        kinds = [kind_of(m) for m in bare.sent]
        assert kinds[:3] == ["welcome", "snapshot", "refused"] and kinds[-1] == "match_over"

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_an_answer_marked_fallback_is_counted_as_the_seat_s_fallback_and_recorded() -> None:
    """An Answer with ``fallback`` set (its kit chose it: the bot was too late for the kit's
    guard, gave no action, or was refused) is played as any answer, and counted: the seat's
    ``fallbacks``, the decision's ``fallback``, the record's action line (valid by its
    schema), a line in the log at info (``arena run`` says each game's faults once, in the
    game's line: a slow bot's fallbacks are no flood of warnings). Answers the bot chose are
    none of these; a seat that answers nothing is struck, and a strike is no fallback."""

    async def kit_answers(player: Player) -> None:
        async for message in player.connect():
            if kind_of(message) == "decision":
                decision = message.decision
                player.send(convert.fallback_answer(decision.decision_id, legal_of(decision)))

    tables: list[Table] = []

    async def keep(table: Table, players: list[Player]) -> None:
        tables.append(table)

    with capture_logs() as logs:
        result, _ = play_table(
            config(seed=4, decision_ms=1000, bank_ms=0, max_strikes=99),
            [kit_answers, random_bot, silent_bot, random_bot],
            during=keep,
        )
    seats = result.seats
    assert result.outcome.reason == "played to the end"
    assert seats[0].fallbacks == seats[0].decisions > 0 and seats[0].strikes == 0
    assert seats[1].fallbacks == seats[3].fallbacks == 0
    assert seats[2].strikes == seats[2].decisions > 0 and seats[2].fallbacks == 0
    logged = [e for e in logs if e["event"] == "fallback"]
    assert len(logged) == seats[0].decisions and {e["seat"] for e in logged} == {0}
    per_decision = [e for e in logs if e["event"] in ("fallback", "timeout")]
    assert per_decision and {e["log_level"] for e in per_decision} == {"info"}
    lines = table_record(tables[0])
    validator = record_validator()
    for line in lines:
        validator.validate(line)
    asked = [line for line in lines if line["type"] == "action" and line["asked"]]
    assert [line["seat"] for line in asked if line["fallback"]] == [0] * seats[0].decisions
    assert all(not line["fallback"] for line in asked if line["seat"] == 2)  # timeouts
    assert sum(1 for d in result.turns if d.fallback) == seats[0].decisions


# -- how the game ended: one value in every layer ------------------------------------------------


@pytest.mark.parametrize("forfeit", [False, True])
def test_the_game_ends_as_one_outcome_in_every_layer(forfeit: bool) -> None:
    """A table played to its end (classic, seed 3, two hands), and one whose seat 1 forfeits
    as play begins (its process crashed): the table's result holds an ``Outcome``, and every
    layer reads that same value back, none a copy of its fields: each seat's MatchOver (the
    contract), the SDK's ``MatchResult`` made from it, the record's header (``outcome_of``).
    Played out, it is the match's own (``Match.outcome()``); a forfeit is lost by seat 1's team
    and earns no reward (``Match.cut_short``)."""
    from chaodipi.bot.seat import Seat
    from chaodipi.engine import Ending
    from chaodipi.records import outcome_of

    tables: list[Table] = []

    async def keep(table: Table, players: list[Player]) -> None:
        tables.append(table)
        if forfeit:
            await table.connected.wait()
            table.forfeit(1, "seat 1 crashed, exit code 1")

    result, players = play_table(config("classic", seed=3, max_hands=2), during=keep)
    table, outcome = tables[0], result.outcome
    if forfeit:
        assert (outcome.ending, outcome.winner, outcome.forfeited_by) == (Ending.FORFEIT, 0, 1)
        assert (outcome.reason, outcome.reward) == ("seat 1 crashed, exit code 1", 0)
        assert outcome == table.match.cut_short(Ending.FORFEIT, outcome.reason, 1)
    else:
        assert outcome == table.match.outcome() and outcome.ending is Ending.PLAYED_OUT
        assert (outcome.hands, outcome.progress) == (2, tuple(table.match.progress))
    for player in players:
        (over,) = player.of("match_over")
        assert convert.outcome_from_message(over)[0] == outcome
        read = Seat(lambda view: view.legal.default(), 0.0, None).read(
            pb.PlayResponse(match_over=over)
        )
        assert read is not None and not isinstance(read, pb.PlayRequest)
        assert read.outcome == outcome and read.winner == outcome.winner
    assert outcome_of(table_record(table)[0]["result"]) == outcome
