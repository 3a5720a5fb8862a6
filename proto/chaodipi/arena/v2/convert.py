"""Protocol v2's one conversion: engine values ⇄ messages, and every message's builder.

Hand-written beside the generated code (``proto/generate.py`` writes only the ``arena_pb2*``
files), so the contract's package is what both sides share: the server (``arena/``) and the
Python SDK (``chaodipi.bot``) build and read every message here and nowhere else, so they agree
by construction (``tests/test_convert.py`` round-trips every kind over whole matches of every
preset). It depends on the engine and the generated code only. Nothing here decides what a
seat may see: views come from :func:`chaodipi.engine.view.observe` and events from the match's log,
by their audience.

Cards travel as the enum ``Card`` (number = the engine's code + 1), suits and ranks as the
engine's value + 1, "none" (no-trump, the 扛旗 hand's missing level, no hand cap) as 0, times
in whole milliseconds (cut down, never rounded up).

Values: ``X_message(value)`` gives a message, ``X_from_message(message)`` the engine's value
back (:class:`WireError` says what is wrong with a message that means nothing):

>>> from chaodipi.engine.actions import Play
>>> from chaodipi.engine.cards import parse_cards
>>> message = action_message(Play(tuple(parse_cards("♠99 BJ"))))
>>> list(message.play.cards), str(action_from_message(message))
([8, 8, 54], 'play ♠99 BJ')

Streams: each builder gives the whole frame that goes on its stream (a ``PlayRequest``,
``PlayResponse``, ``EnterRequest``, ``EnterResponse`` or ``WatchResponse``):

>>> answer(7, Play(tuple(parse_cards("BJ")))).answer.decision_id
7
>>> print(unsupported_version(1))
protocol version 1 is not supported; this server speaks 2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import assert_never

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.engine import (
    CARDS,
    PASS,
    Action,
    Bid,
    BidKind,
    BidRecord,
    BidsRevealed,
    Buried,
    BuriedCards,
    Bury,
    Card,
    DealerFixed,
    Dealt,
    Declare,
    Declared,
    Ending,
    Event,
    Fried,
    Fry,
    HandBegun,
    HandOver,
    HandRecord,
    HandResult,
    KittyTaken,
    KittyTurned,
    LegalActions,
    LegalPlays,
    Option,
    Outcome,
    Pass,
    Passed,
    Payload,
    Phase,
    Play,
    Played,
    Rank,
    Redealt,
    SeatView,
    Side,
    Suit,
    TableTrick,
    TookKitty,
    TrickWon,
    Trump,
    TrumpFixed,
    bid_action,
    card_action,
    partner,
    preset,
)

__all__ = [
    "NOTE_MAX_BYTES",
    "PROTOCOL_VERSION",
    "OpenDecision",
    "Spectating",
    "WireError",
    "action_from_message",
    "action_message",
    "answer",
    "attached",
    "cards_from",
    "check_note",
    "decision",
    "decision_from_message",
    "enter_request",
    "entered",
    "event_from_message",
    "event_message",
    "fallback_answer",
    "hello",
    "legal_from_message",
    "legal_message",
    "match_over",
    "note_from_answer",
    "outcome_from_message",
    "outcome_message",
    "refused",
    "seat_offer",
    "snapshot",
    "snapshot_message",
    "spectating_from_message",
    "strike",
    "unsupported_version",
    "view_from_snapshot",
    "watch_request",
    "watched",
    "welcome",
]

NOTE_MAX_BYTES = 256
"""A bot's note on an answer is at most this many bytes of UTF-8 (``Answer.note``; a record
keeps it as it came)."""

PROTOCOL_VERSION = 2
"""The version this side speaks (``Hello``, ``EnterRequest``, ``Welcome``, ``Entered``)."""


class WireError(ValueError):
    """A message that does not say anything the engine can use (the text says what is wrong)."""


# -- values ---------------------------------------------------------------------------------

_PHASES = {
    Phase.DECLARE: pb.PHASE_DECLARE,
    Phase.BURY: pb.PHASE_BURY,
    Phase.FRY: pb.PHASE_FRY,
    Phase.PLAY: pb.PHASE_PLAY,
    Phase.OVER: pb.PHASE_OVER,
}
_PHASE_OF = {number: phase for phase, number in _PHASES.items()}
_HEAVEN_EARTH = {
    None: pb.HEAVEN_EARTH_UNSPECIFIED,
    Side.DEALERS: pb.HEAVEN_EARTH_DEALERS,
    Side.DEFENDERS: pb.HEAVEN_EARTH_DEFENDERS,
}
_HEAVEN_EARTH_OF = {number: side for side, number in _HEAVEN_EARTH.items()}
_ENDINGS = {
    Ending.PLAYED_OUT: pb.ENDING_PLAYED_OUT,
    Ending.FORFEIT: pb.ENDING_FORFEIT,
    Ending.STOPPED: pb.ENDING_STOPPED,
    Ending.FAILED: pb.ENDING_FAILED,
}
_ENDING_OF = {number: ending for ending, number in _ENDINGS.items()}
_AUDIENCES = tuple(frozenset(s for s in range(4) if mask >> s & 1) for mask in range(16))


_CARD_OF = dict(enumerate(CARDS, 1))
"""Each card by its ``Card`` enum number."""


def cards_from(numbers: Sequence[int]) -> tuple[Card, ...]:
    """Cards from their ``Card`` enum numbers (1-54); :class:`WireError` names a bad one."""
    try:  # a repeated field's slice is a list, read at once (stepping through it costs more)
        return tuple([_CARD_OF[number] for number in numbers[:]])
    except KeyError as err:
        raise WireError(f"card {err.args[0]} is not a card: cards are 1-54 (enum Card)") from None


def _numbers(cards: Iterable[int]) -> list[int]:
    return [c + 1 for c in cards]


def _suit(suit: Suit | None) -> int:
    return 0 if suit is None else suit + 1


def _suit_from(number: int) -> Suit | None:
    if not 0 <= number <= 4:
        raise WireError(f"suit {number} is not a suit (enum Suit: 1-4, 0 for none)")
    return None if number == 0 else Suit(number - 1)


def _rank(rank: Rank | None) -> int:
    return 0 if rank is None else rank + 1


def _rank_from(number: int) -> Rank | None:
    if not 0 <= number <= 13:
        raise WireError(f"rank {number} is not a rank (enum Rank: 1-13, 0 for none)")
    return None if number == 0 else Rank(number - 1)


def _phase_from(number: int) -> Phase:
    try:
        return _PHASE_OF[number]
    except KeyError:
        raise WireError(f"phase {number} is not a phase (enum Phase: 1-5)") from None


def _pair(values: Sequence[int]) -> tuple[int, int]:
    if len(values) != 2:
        raise WireError(f"expected two values (team 0, team 1), not {len(values)}")
    return (values[0], values[1])


def _optional(message: object, field: str) -> int | None:
    return getattr(message, field) if message.HasField(field) else None  # type: ignore[attr-defined]


# -- bids -------------------------------------------------------------------------------------


def _bid(bid: Bid) -> pb.Bid:
    return pb.Bid(kind=bid.kind + 1, cards=_numbers(bid.cards), suit=_suit(bid.suit))


def _bid_from(message: pb.Bid) -> Bid:
    if not 0 < message.kind <= len(BidKind):
        raise WireError(f"bid kind {message.kind} is not a kind of bid (enum BidKind: 1-6)")
    return Bid(BidKind(message.kind - 1), cards_from(message.cards), _suit_from(message.suit))


def _bid_record(record: BidRecord) -> pb.BidRecord:
    stage = _PHASES[record.stage]
    return pb.BidRecord(seat=record.seat, bid=_bid(record.bid), stage=stage, stood=record.stood)


def _bid_record_from(message: pb.BidRecord) -> BidRecord:
    stage = _phase_from(message.stage)
    return BidRecord(message.seat, _bid_from(message.bid), stage, message.stood)


# -- finished hands ---------------------------------------------------------------------------


def _result(result: HandResult) -> pb.HandResult:
    return pb.HandResult(
        dealer=result.dealer,
        trick_points=result.trick_points,
        kitty_points=result.kitty_points,
        kitty_multiplier=result.kitty_multiplier,
        throw_penalty=result.throw_penalty,
        fry_penalty=result.fry_penalty,
        red_five=result.red_five,
        heaven_earth=_HEAVEN_EARTH[result.heaven_earth],
        last_winner=result.last_winner,
        last_play=_numbers(result.last_play),
        floor_at_zero=result.floor_at_zero,
    )


def _result_from(m: pb.HandResult) -> HandResult:
    return HandResult(
        dealer=m.dealer,
        trick_points=m.trick_points,
        kitty_points=m.kitty_points,
        kitty_multiplier=m.kitty_multiplier,
        throw_penalty=m.throw_penalty,
        fry_penalty=m.fry_penalty,
        red_five=m.red_five,
        heaven_earth=_HEAVEN_EARTH_OF.get(m.heaven_earth),
        last_winner=m.last_winner,
        last_play=cards_from(m.last_play),
        floor_at_zero=m.floor_at_zero,
    )


def _hand_record(record: HandRecord) -> pb.HandRecord:
    return pb.HandRecord(
        number=record.number,
        dealer=record.dealer,
        level=_rank(record.level),
        trump=_suit(record.trump),
        result=_result(record.result),
        total=record.total,
        progress_before=record.progress_before,
        progress_after=record.progress_after,
        next_dealer=record.next_dealer,
        note=record.note,
    )


def _hand_record_from(m: pb.HandRecord) -> HandRecord:
    return HandRecord(
        number=m.number,
        dealer=m.dealer,
        level=_rank_from(m.level),
        trump=_suit_from(m.trump),
        result=_result_from(m.result),
        total=m.total,
        progress_before=_pair(m.progress_before),
        progress_after=_pair(m.progress_after),
        next_dealer=m.next_dealer,
        note=m.note,
    )


# -- events -----------------------------------------------------------------------------------


def event_message(event: Event) -> pb.Event:
    """An engine event as a protocol Event (its audience as bits, its payload typed)."""
    kind, payload = _payload_message(event.payload)
    audience = sum(1 << s for s in event.audience)
    return pb.Event(seq=event.seq, hand=event.hand, audience=audience, **{kind: payload})


def _payload_message(payload: Payload) -> tuple[str, object]:
    """The name of the Event's payload field, and the payload's message."""
    match payload:
        case HandBegun(level=level, dealer=dealer, progress=progress):
            begun = pb.HandBegun(level=_rank(level), dealer=dealer, progress=progress)
            return "hand_begun", begun
        case Dealt(seat=seat, cards=cards):
            return "dealt", pb.Dealt(seat=seat, cards=_numbers(cards))
        case Declared(seat=seat, bid=bid):
            return "declared", pb.Declared(seat=seat, bid=None if bid is None else _bid(bid))
        case Fried(seat=seat, bid=bid):
            return "fried", pb.Fried(seat=seat, bid=None if bid is None else _bid(bid))
        case Passed(seat=seat, stage=stage):
            return "passed", pb.Passed(seat=seat, stage=_PHASES[stage])
        case DealerFixed(seat=seat):
            return "dealer_fixed", pb.DealerFixed(seat=seat)
        case KittyTaken(seat=seat, cards=cards):
            return "kitty_taken", pb.KittyTaken(seat=seat, cards=_numbers(cards))
        case TookKitty(seat=seat):
            return "took_kitty", pb.TookKitty(seat=seat)
        case BuriedCards(seat=seat, cards=cards):
            return "buried_cards", pb.BuriedCards(seat=seat, cards=_numbers(cards))
        case Buried(seat=seat):
            return "buried", pb.Buried(seat=seat)
        case Redealt(redeals=redeals):
            return "redealt", pb.Redealt(redeals=redeals)
        case KittyTurned(cards=cards, suit=suit):
            return "kitty_turned", pb.KittyTurned(cards=_numbers(cards), suit=_suit(suit))
        case BidsRevealed(bids=bids):
            return "bids_revealed", pb.BidsRevealed(bids=[_bid_record(r) for r in bids])
        case TrumpFixed(level=level, suit=suit, dealer=dealer):
            return "trump_fixed", pb.TrumpFixed(level=_rank(level), suit=_suit(suit), dealer=dealer)
        case Played(seat=seat, cards=cards, attempted=attempted, penalty=penalty):
            tried = () if attempted is None else _numbers(attempted)
            return "played", pb.Played(
                seat=seat, cards=_numbers(cards), attempted=tried, penalty=penalty
            )
        case TrickWon(seat=seat, points=points):
            return "trick_won", pb.TrickWon(seat=seat, points=points)
        case HandOver():
            return "hand_over", pb.HandOver(
                total=payload.total,
                kitty=_numbers(payload.kitty),
                dealt=[pb.Cards(cards=_numbers(cards)) for cards in payload.dealt],
                progress=payload.progress,
                next_dealer=payload.next_dealer,
                note=payload.note,
                result=_result(payload.result),
            )
        case _:
            assert_never(payload)


def event_from_message(message: pb.Event) -> Event:
    """A protocol Event back as the engine's :class:`~chaodipi.engine.events.Event`."""
    audience = message.audience
    if not 0 < audience < 16:
        raise WireError(f"audience {audience} names no seats (bits 1 << seat, 1-15)")
    kind: str | None = message.WhichOneof("payload")
    payload: Payload
    if kind == "played":  # most events are plays: read here, without a call more
        p = message.played
        attempted = p.attempted
        payload = Played(
            p.seat, cards_from(p.cards), cards_from(attempted) if attempted else None, p.penalty
        )
    else:
        payload = _payload_from(message, kind)
    return Event(message.seq, message.hand, _AUDIENCES[audience], payload)


def _payload_from(message: pb.Event, kind: str | None) -> Payload:
    """The engine's payload of an Event whose payload is ``kind``, a play's aside
    (:func:`event_from_message`); :class:`WireError` for one without a payload this side knows
    (a newer contract's kind is never dropped in silence)."""
    match kind:
        case "trick_won":
            return TrickWon(message.trick_won.seat, message.trick_won.points)
        case "hand_begun":
            begun = message.hand_begun
            dealer = begun.dealer if begun.HasField("dealer") else None
            return HandBegun(_rank_from(begun.level), dealer, _pair(begun.progress))
        case "dealt":
            return Dealt(message.dealt.seat, cards_from(message.dealt.cards))
        case "declared":
            return Declared(message.declared.seat, _maybe_bid(message.declared))
        case "fried":
            return Fried(message.fried.seat, _maybe_bid(message.fried))
        case "passed":
            return Passed(message.passed.seat, _phase_from(message.passed.stage))
        case "dealer_fixed":
            return DealerFixed(message.dealer_fixed.seat)
        case "kitty_taken":
            return KittyTaken(message.kitty_taken.seat, cards_from(message.kitty_taken.cards))
        case "took_kitty":
            return TookKitty(message.took_kitty.seat)
        case "buried_cards":
            return BuriedCards(message.buried_cards.seat, cards_from(message.buried_cards.cards))
        case "buried":
            return Buried(message.buried.seat)
        case "redealt":
            return Redealt(message.redealt.redeals)
        case "kitty_turned":
            turned = message.kitty_turned
            return KittyTurned(cards_from(turned.cards), _suit_from(turned.suit))
        case "bids_revealed":
            return BidsRevealed(tuple(_bid_record_from(r) for r in message.bids_revealed.bids))
        case "trump_fixed":
            fixed = message.trump_fixed
            return TrumpFixed(_rank_from(fixed.level), _suit_from(fixed.suit), fixed.dealer)
        case "hand_over":
            over = message.hand_over
            return HandOver(
                total=over.total,
                kitty=cards_from(over.kitty),
                dealt=tuple(cards_from(d.cards) for d in over.dealt),
                progress=_pair(over.progress),
                next_dealer=over.next_dealer,
                note=over.note,
                result=_result_from(over.result),
            )
        case _:
            raise WireError(f"event {message.seq} has no payload this SDK knows ({kind})")


def _maybe_bid(message: pb.Declared | pb.Fried) -> Bid | None:
    """A Declared's or Fried's bid (``None``: hidden from this seat)."""
    return _bid_from(message.bid) if message.HasField("bid") else None


# -- legal actions and actions ----------------------------------------------------------------


def legal_message(legal: LegalActions) -> pb.LegalActions:
    """The engine's legal actions in the protocol's compact, exact form."""
    message = pb.LegalActions(
        phase=_PHASES[legal.phase],
        seat=legal.seat,
        can_pass=legal.can_pass,
        bids=[_bid(b) for b in legal.bids],
    )
    if legal.cards is not None:
        message.options_disjoint = legal.cards.disjoint
        message.card_options.extend(
            pb.CardOption(
                forced=_numbers(o.forced), pool=_numbers(o.pool), k_min=o.k_min, k_max=o.k_max
            )
            for o in legal.cards.options
        )
    return message


def legal_from_message(message: pb.LegalActions) -> LegalActions:
    """A Decision's legal actions back as the engine's :class:`LegalActions` (bids too)."""
    options = tuple(
        [
            Option(cards_from(o.forced), cards_from(o.pool), o.k_min, o.k_max)
            for o in message.card_options
        ]
    )
    bids = message.bids
    return LegalActions(
        _phase_from(message.phase),
        message.seat,
        message.can_pass,
        tuple([_bid_from(b) for b in bids]) if bids else (),
        LegalPlays(options, message.options_disjoint) if options else None,
    )


def action_message(action: Action) -> pb.Action:
    """An engine action as a protocol Action."""
    message = pb.Action()
    _write_action(message, action)
    return message


def _write_action(message: pb.Action, action: Action) -> None:
    """``action`` written into ``message`` in place (an Action inside another message is
    built where it lies: a message built apart is copied in whole when put in its place)."""
    match action:
        case Pass():
            message.pass_turn.SetInParent()
        case Declare(bid=bid):
            message.declare.CopyFrom(_bid(bid))
        case Fry(bid=bid):
            message.fry.CopyFrom(_bid(bid))
        case Bury(cards=cards):
            message.bury.cards.extend(_numbers(cards))
        case Play(cards=cards):
            message.play.cards.extend(_numbers(cards))
        case _:
            assert_never(action)


def action_from_message(message: pb.Action) -> Action:
    """A protocol Action as the engine's; :class:`WireError` says what is wrong with it."""
    kind = message.WhichOneof("action")
    if kind is None:
        raise WireError("the action sets none of pass_turn, declare, fry, bury, play")
    if kind == "pass_turn":
        return PASS
    # the other fields are named after their phase
    if kind in ("declare", "fry"):
        return bid_action(Phase(kind), _bid_from(getattr(message, kind)))
    return card_action(Phase(kind), tuple(sorted(cards_from(getattr(message, kind).cards))))


# -- a seat's whole view ----------------------------------------------------------------------


def snapshot_message(view: SeatView, events: Iterable[pb.Event] | None = None) -> pb.Snapshot:
    """A seat's view (:func:`chaodipi.engine.view.observe`) as a Snapshot, without its legal actions
    (they come with the Decision). ``events``: the view's events already converted (the
    table keeps each event's message), else they are converted here."""
    message = pb.Snapshot(
        seat=view.seat,
        preset=view.preset.name,
        hand_number=view.hand_number,
        phase=_PHASES[view.phase],
        progress=view.progress,
        must_played=[pb.Levels(progress=sorted(team)) for team in view.must_played],
        level=_rank(view.level),
        hand=_numbers(view.hand),
        tricks_done=view.tricks_done,
        defenders_points=view.defenders_points,
        throw_penalties=view.throw_penalties,
        history=[_hand_record(r) for r in view.history],
        events=[event_message(e) for e in view.events] if events is None else events,
        cursor=view.cursor,
        over=view.over,
        reward=view.reward,
    )
    for field, value in (("to_act", view.to_act), ("dealer", view.dealer)):
        if value is not None:
            setattr(message, field, value)
    if view.winner is not None:
        message.winner = view.winner
    if view.trump is not None:
        message.trump.CopyFrom(pb.Trump(level=_rank(view.trump.level), suit=_suit(view.trump.suit)))
    if view.trick is not None:
        plays = [pb.TrickPlay(seat=s, cards=_numbers(c)) for s, c in view.trick.plays]
        message.trick.CopyFrom(pb.TableTrick(leader=view.trick.leader, plays=plays))
    return message


def view_from_snapshot(message: pb.Snapshot) -> SeatView:
    """A Snapshot back as the engine's :class:`~chaodipi.engine.view.SeatView` (``legal`` None)."""
    try:
        rules = preset(message.preset)
    except ValueError as err:
        raise WireError(f"{err} (is this SDK older than the server?)") from None
    trump = None
    if message.HasField("trump"):
        level, suit = _rank_from(message.trump.level), _suit_from(message.trump.suit)
        trump = Trump(level, suit, rules.card)
    trick = None
    if message.HasField("trick"):
        plays = tuple((p.seat, cards_from(p.cards)) for p in message.trick.plays)
        trick = TableTrick(message.trick.leader, plays)
    must = [frozenset(levels.progress) for levels in message.must_played]
    return SeatView(
        seat=message.seat,
        preset=rules,
        hand_number=message.hand_number,
        phase=_phase_from(message.phase),
        to_act=_optional(message, "to_act"),
        dealer=_optional(message, "dealer"),
        progress=_pair(message.progress),
        must_played=(must[0], must[1]) if len(must) == 2 else (frozenset(), frozenset()),
        level=_rank_from(message.level),
        hand=cards_from(message.hand),
        trump=trump,
        trick=trick,
        tricks_done=message.tricks_done,
        defenders_points=message.defenders_points,
        throw_penalties=message.throw_penalties,
        history=tuple(_hand_record_from(r) for r in message.history),
        events=tuple(event_from_message(e) for e in message.events),
        cursor=message.cursor,
        legal=None,
        over=message.over,
        winner=_optional(message, "winner"),
        reward=message.reward,
    )


# -- the streams' messages --------------------------------------------------------------------


def _ms(seconds: float) -> int:
    """Seconds as the whole milliseconds a message carries (cut down: never promise more)."""
    return max(0, int(seconds * 1000))


def unsupported_version(version: int) -> str | None:
    """Why a ``Hello`` or ``EnterRequest`` of protocol ``version`` is refused (None: ours)."""
    if version == PROTOCOL_VERSION:
        return None
    return f"protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}"


def enter_request(
    token: str, *, bot_name: str, capacity: int, instance: str, bot_version: str = ""
) -> pb.EnterRequest:
    """A session's request to enter: its token, the seats it plays at once, the id it keeps
    across reconnects (the same process coming back) and the bot's version."""
    return pb.EnterRequest(
        token=token,
        protocol_version=PROTOCOL_VERSION,
        bot_name=bot_name,
        capacity=capacity,
        instance=instance,
        bot_version=bot_version,
    )


def entered(session: str, capacity: int) -> pb.EnterResponse:
    """The answer to an ``EnterRequest``: the session's name, the seats it is given at once."""
    message = pb.Entered(session=session, capacity=capacity, protocol_version=PROTOCOL_VERSION)
    return pb.EnterResponse(entered=message)


def seat_offer(ticket: str, seat: int, preset: str) -> pb.EnterResponse:
    """A seat for a session to play, on a ``Play`` stream of its own with ``ticket``."""
    return pb.EnterResponse(seat=pb.SeatOffer(ticket=ticket, seat=seat, preset=preset))


def hello(ticket: str, bot_name: str = "") -> pb.PlayRequest:
    """A ``Play`` stream's first message: the seat's ticket, this protocol's version."""
    message = pb.Hello(ticket=ticket, protocol_version=PROTOCOL_VERSION, bot_name=bot_name)
    return pb.PlayRequest(hello=message)


def watch_request(table: str, token: str) -> pb.WatchRequest:
    """A spectator's request to follow ``table``, with the server's spectator token."""
    return pb.WatchRequest(table=table, token=token)


def answer(
    decision_id: int, action: Action, note: str = "", *, fallback: bool = False
) -> pb.PlayRequest:
    """A bot's answer to the Decision ``decision_id``, with its ``note`` (at most
    :data:`NOTE_MAX_BYTES` bytes of UTF-8; ``ValueError`` if longer); ``fallback``: the bot did
    not choose ``action``, its kit answered for it (``Answer.fallback``).

    >>> answer(7, Pass(), fallback=True).answer.fallback
    True
    """
    request = pb.PlayRequest()  # built in place (see _write_action)
    message = request.answer
    message.decision_id = decision_id
    _write_action(message.action, action)
    if note:
        message.note = check_note(note)
    message.fallback = fallback
    return request


def fallback_answer(decision_id: int, legal: LegalActions) -> pb.PlayRequest:
    """The answer a kit sends for a bot that has none (too late, no action, refused): the safe
    legal action a Strike would play (``legal.default()``), marked ``fallback``."""
    return answer(decision_id, legal.default(), fallback=True)


def check_note(note: str) -> str:
    """``note`` if it fits an answer (:data:`NOTE_MAX_BYTES` bytes of UTF-8), else
    :class:`WireError` (a ``ValueError``) saying how long it is.

    >>> check_note("+0.3 ♠A")
    '+0.3 ♠A'
    >>> try:
    ...     check_note("é" * 200)
    ... except WireError as err:
    ...     print(err)
    the answer's note is 400 bytes of UTF-8; at most 256 are allowed
    """
    size = len(note.encode("utf-8", errors="replace"))
    if size > NOTE_MAX_BYTES:
        raise WireError(
            f"the answer's note is {size} bytes of UTF-8; at most {NOTE_MAX_BYTES} are allowed"
        )
    return note


def note_from_answer(message: pb.Answer) -> str:
    """The note of an Answer ('' for none); :class:`WireError` when it is too long."""
    return check_note(message.note)


def welcome(
    seat: int,
    *,
    table: str,
    preset: str,
    decision_ms: int,
    bank_s: float,
    max_strikes: int,
    max_hands: int | None,
    resumed: bool,
) -> pb.PlayResponse:
    """The answer to Hello: the seat (and its partner), the table, the clocks (``bank_s``:
    what is left of the seat's bank now), the strikes that forfeit, the hand cap if any."""
    message = pb.Welcome(
        seat=seat,
        partner=partner(seat),
        table=table,
        preset=preset,
        protocol_version=PROTOCOL_VERSION,
        decision_ms=decision_ms,
        bank_ms=_ms(bank_s),
        max_strikes=max_strikes,
        max_hands=max_hands or 0,
        resumed=resumed,
    )
    return pb.PlayResponse(welcome=message)


def snapshot(view: SeatView, events: Iterable[pb.Event] | None = None) -> pb.PlayResponse:
    """The seat's whole view, sent on every connect (:func:`snapshot_message`)."""
    return pb.PlayResponse(snapshot=snapshot_message(view, events))


def decision(
    decision_id: int,
    *,
    events: Iterable[pb.Event],
    legal: pb.LegalActions,
    deadline_s: float,
    bank_s: float,
    strikes: int,
    cursor: int,
) -> pb.PlayResponse:
    """The seat's turn: the events it has not been sent (converted once, by
    :func:`event_message`), its legal actions (:func:`legal_message`), the time left now and
    the log's cursor the events bring the seat up to.

    Built in place, inside its PlayResponse: a Decision built apart and then wrapped would be
    copied once more (a table sends one per decision; in place costs about half)."""
    response = pb.PlayResponse()
    message = response.decision
    message.decision_id = decision_id
    message.events.extend(events)
    message.legal.CopyFrom(legal)
    message.deadline_ms = _ms(deadline_s)
    message.bank_ms = _ms(bank_s)
    message.strikes = strikes
    message.cursor = cursor
    return response


@dataclass(frozen=True, slots=True)
class OpenDecision:
    """A Decision as the engine's values (:func:`decision_from_message`)."""

    decision_id: int
    events: tuple[Event, ...]
    legal: LegalActions
    deadline_s: float
    bank_s: float
    strikes: int
    cursor: int


def decision_from_message(message: pb.Decision) -> OpenDecision:
    """A Decision back as values; :class:`WireError` if its events or legal set mean nothing."""
    return OpenDecision(
        decision_id=message.decision_id,
        events=tuple(map(event_from_message, message.events)),
        legal=legal_from_message(message.legal),
        deadline_s=message.deadline_ms / 1000,
        bank_s=message.bank_ms / 1000,
        strikes=message.strikes,
        cursor=message.cursor,
    )


def strike(decision_id: int, played: Action, strikes: int, max_strikes: int) -> pb.PlayResponse:
    """The seat's clock ran out on ``decision_id``: the table played ``played`` for it."""
    message = pb.Strike(
        decision_id=decision_id,
        played=action_message(played),
        strikes=strikes,
        max_strikes=max_strikes,
    )
    return pb.PlayResponse(strike=message)


def refused(decision_id: int, code: int, reason: str) -> pb.PlayResponse:
    """What the bot sent about ``decision_id`` was not taken (``code``: a ``RefusalCode``)."""
    return pb.PlayResponse(refused=pb.Refused(decision_id=decision_id, code=code, reason=reason))


def outcome_message(outcome: Outcome, events: Iterable[pb.Event] = ()) -> pb.MatchOver:
    """How the game ended, as a MatchOver, with the events its seat has not been sent (none
    for a spectator)."""
    message = pb.MatchOver(
        events=events,
        ending=_ENDINGS[outcome.ending],
        reason=outcome.reason,
        hands=outcome.hands,
        progress=outcome.progress,
        reward=outcome.reward,
    )
    if outcome.winner is not None:
        message.winner = outcome.winner
    if outcome.forfeited_by is not None:
        message.forfeited_by = outcome.forfeited_by
    return message


def match_over(outcome: Outcome, events: Iterable[pb.Event]) -> pb.PlayResponse:
    """A seat's last message (:func:`outcome_message`); its stream then ends."""
    return pb.PlayResponse(match_over=outcome_message(outcome, events))


def outcome_from_message(message: pb.MatchOver) -> tuple[Outcome, tuple[Event, ...]]:
    """A MatchOver back as how the game ended, and its events (an ending this side does not
    know reads as ``STOPPED``: the game is over, undecided as far as it can tell)."""
    outcome = Outcome(
        ending=_ENDING_OF.get(message.ending, Ending.STOPPED),
        reason=message.reason,
        winner=_optional(message, "winner"),
        hands=message.hands,
        progress=tuple(message.progress),
        forfeited_by=_optional(message, "forfeited_by"),
        reward=message.reward,
    )
    return outcome, tuple(event_from_message(e) for e in message.events)


@dataclass(frozen=True, slots=True)
class Spectating:
    """What a spectator is told as it is taken in (``Attached``): whether the table's events
    are held back (a tournament's, until every game on its deal has ended) and the bots' names
    by seat (``()`` when the server was not told them)."""

    held_back: bool
    bots: tuple[str, ...] = ()


def attached(spectating: Spectating) -> pb.WatchResponse:
    """A spectator's first message.

    >>> spectating_from_message(attached(Spectating(True, ("a#1", "b#1") * 2)).attached)
    Spectating(held_back=True, bots=('a#1', 'b#1', 'a#1', 'b#1'))
    """
    return pb.WatchResponse(
        attached=pb.Attached(held_back=spectating.held_back, bots=spectating.bots)
    )


def spectating_from_message(message: pb.Attached) -> Spectating:
    """An ``Attached`` back as a value (names for 4 seats, else none)."""
    bots = tuple(message.bots)
    return Spectating(message.held_back, bots if len(bots) == 4 else ())


def watched(item: pb.Event | pb.MatchOver) -> pb.WatchResponse:
    """A message on a spectator's stream: a public event, or the match's end."""
    if isinstance(item, pb.Event):
        return pb.WatchResponse(event=item)
    return pb.WatchResponse(match_over=item)
