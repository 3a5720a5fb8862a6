"""The one place where engine values and protocol messages meet.

Engine types never leak into protobuf and protobuf never leaks into the engine: the server and
the bots' SDK convert here. Observations come only from :func:`engine.view.observe`, so a
message to a seat carries exactly what that seat may know.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc
from engine.actions import Action, Bury, Declare, Fry, LegalActions, Pass, Play
from engine.bidding import Bid
from engine.cards import Rank, card_names, parse_cards, print_order
from engine.events import (
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Event,
    Fried,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Payload,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from engine.legal import LegalPlays, Option
from engine.levels import level_name
from engine.match import Match
from engine.phase import Phase
from engine.rules import CardRules
from engine.view import SeatView, observe

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolError",
    "action_from_message",
    "action_to_message",
    "arena_stub",
    "decision_message",
    "event_message",
    "legal_from_message",
    "legal_message",
    "observation_message",
]

PROTOCOL_VERSION = 1


class ProtocolError(ValueError):
    """A message that does not say anything the table can act on."""


def _event_details(payload: Payload, message: pb.Event) -> dict[str, object]:
    """Fill the Event's typed fields from the payload; return the rest (``details_json``)."""
    match payload:
        case Dealt(cards=cards) | KittyTaken(cards=cards) | BuriedCards(cards=cards):
            message.cards.extend(card_names(cards))
        case Declared(bid=bid) | Fried(bid=bid):
            if bid is None:
                message.hidden = True
            else:
                message.bid = str(bid)
        case Passed(stage=stage):
            return {"stage": stage.value}
        case Redealt(redeals=redeals):
            return {"redeals": redeals}
        case KittyTurned(cards=cards, suit=suit):
            message.cards.extend(card_names(cards))
            return {"trump": "NT" if suit is None else suit.symbol}
        case BidsRevealed(bids=bids):
            return {
                "bids": [
                    {"seat": r.seat, "stage": r.stage.value, "bid": str(r.bid), "stood": r.stood}
                    for r in bids
                ]
            }
        case TrumpFixed(level=level, suit=suit, dealer=dealer):
            return {
                "level": None if level is None else str(level),
                "suit": None if suit is None else suit.symbol,
                "dealer": dealer,
            }
        case Played(cards=cards, attempted=attempted, penalty=penalty):
            message.cards.extend(card_names(cards))
            if attempted is not None:
                return {"attempted": card_names(attempted), "penalty": penalty}
        case TrickWon(points=points):
            return {"points": points}
        case HandOver():
            return {
                "total": payload.total,
                "kitty": card_names(payload.kitty),
                "dealt": [card_names(cards) for cards in payload.dealt],
                "progress": list(payload.progress),
                "next_dealer": payload.next_dealer,
                "note": payload.note,
            }
        case DealerFixed() | TookKitty() | Buried():
            pass
    return {}


def event_message(event: Event) -> pb.Event:
    """An engine event as a protocol Event: its kind by name, ``seat`` -1 for the table, cards
    and bids as text, other details as a JSON object."""
    seat = event.seat
    message = pb.Event(
        sequence=event.seq,
        kind=event.kind.value,
        seat=-1 if seat is None else seat,
        hand=event.hand,
    )
    details = _event_details(event.payload, message)
    if details:
        message.details_json = json.dumps(details, ensure_ascii=False, sort_keys=True)
    return message


def observation_message(view: SeatView, events: Iterable[pb.Event] | None = None) -> pb.Observation:
    """A seat's view (:func:`engine.view.observe`) as a protocol Observation.

    ``events``: the view's events, already converted (the table keeps them, so a decision does
    not convert the hand's whole history again); by default they are converted here."""
    circuits = view.preset.match.circuits
    message = pb.Observation(
        seat=view.seat,
        preset=view.preset.name,
        hand_number=view.hand_number,
        phase=view.phase.value,
        to_act=-1 if view.to_act is None else view.to_act,
        dealer=-1 if view.dealer is None else view.dealer,
        level="" if view.level is None else str(view.level),
    )
    message.progress.extend(view.progress)
    message.levels.extend(level_name(p, circuits) for p in view.progress)
    message.hand.extend(card_names(view.hand))
    trump = view.trump
    if trump is not None:
        message.trump_known = True
        message.trump_level = "" if trump.level is None else str(trump.level)
        message.trump_suit = "" if trump.suit is None else trump.suit.symbol
    trick = view.trick
    if trick is not None:
        message.trick_leader = trick.leader
        for seat, cards in trick.plays:
            # v1 lists a play's cards in the order they print (format_cards)
            message.trick.append(pb.TrickPlay(seat=seat, cards=card_names(print_order(cards))))
        message.tricks_done = view.tricks_done
        message.defenders_points = view.defenders_points
        message.throw_penalties = view.throw_penalties
    else:
        message.trick_leader = -1
    if events is None:
        events = (event_message(event) for event in view.events)
    message.events.extend(events)
    for record in view.history:
        message.history.append(
            pb.HandSummary(
                number=record.number,
                dealer=record.dealer,
                level="" if record.level is None else str(record.level),
                trump_suit="" if record.trump is None else record.trump.symbol,
                defenders_points=record.total,
                progress=record.progress_after,
                note=record.note,
            )
        )
    return message


def decision_message(
    match: Match, seat: int, decision_id: int, legal: LegalActions | None = None
) -> pb.Decision:
    """The Decision for ``seat`` (to play now), built the plain way with a 1 s deadline, for
    bots run in-process and for tests (the table assembles the same message from stored
    bytes, :mod:`arena.wire`, with its clocks)."""
    return pb.Decision(
        decision_id=decision_id,
        observation=observation_message(observe(match, seat)),
        legal=legal_message(legal or match.legal_actions(seat)),
        deadline_ms=1000,
    )


def legal_message(legal: LegalActions) -> pb.LegalMoves:
    """The engine's legal actions in the protocol's compact, exact form."""
    message = pb.LegalMoves(phase=legal.phase.value, can_pass=legal.can_pass)
    message.bids.extend(str(b) for b in legal.bids)
    if legal.cards is not None:
        for option in legal.cards.options:
            message.card_options.append(
                pb.CardOption(
                    forced=[str(c) for c in option.forced],
                    pool=[str(c) for c in option.pool],
                    k_min=option.k_min,
                    k_max=option.k_max,
                )
            )
    return message


def action_from_message(
    message: pb.Action, phase: Phase, level: Rank | None, card_rules: CardRules
) -> Action:
    """Read a bot's Action for the phase it answers; :class:`ProtocolError` says what is wrong."""
    choice = message.WhichOneof("choice")
    if choice is None:
        raise ProtocolError("the action sets none of pass, bid, cards")
    if choice == "pass":
        if not getattr(message, "pass"):  # "pass" is a Python keyword
            raise ProtocolError("pass must be true when it is the choice")
        return Pass()
    if choice == "bid":
        try:
            bid = Bid.parse(message.bid, level, card_rules)
        except ValueError as err:
            raise ProtocolError(str(err)) from None
        if phase is Phase.FRY:
            return Fry(bid)
        return Declare(bid)
    cards = _cards(message.cards.cards)
    return Bury(cards) if phase is Phase.BURY else Play(cards)


def _cards(texts: Iterable[str]) -> tuple[Any, ...]:
    found = []
    for text in texts:
        try:
            parsed = parse_cards(text)
        except ValueError as err:
            raise ProtocolError(str(err)) from None
        if len(parsed) != 1:
            raise ProtocolError(f"{text!r}: write one card per entry")
        found.append(parsed[0])
    return tuple(sorted(found))


def action_to_message(action: Action, decision_id: int) -> pb.Action:
    """An engine action as a protocol Action (for bots written in Python)."""
    message = pb.Action(decision_id=decision_id)
    if isinstance(action, Pass):
        setattr(message, "pass", True)
    elif isinstance(action, Declare | Fry):
        message.bid = str(action.bid)
    else:
        message.cards.cards.extend(str(c) for c in action.cards)
    return message


def legal_from_message(message: pb.LegalMoves) -> LegalActions:
    """A Decision's legal moves back as the engine's value (for Python bots).

    Bids stay text (``Bid.parse`` needs the level); sample them with :meth:`LegalActions.sample`
    only for their count, and answer with ``Action(bid=...)`` using the listed text.
    """
    phase = Phase(message.phase)
    options = tuple(
        Option(
            tuple(sorted(_cards(o.forced))),
            tuple(_cards(o.pool)),
            o.k_min,
            o.k_max,
        )
        for o in message.card_options
    )
    cards = LegalPlays(options, disjoint=False) if options else None
    return LegalActions(phase, -1, can_pass=message.can_pass, cards=cards)


def arena_stub(channel: Any) -> Any:
    """The Arena client stub on a channel (sync ``grpc.Channel`` or ``grpc.aio.Channel``)."""
    return arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]
