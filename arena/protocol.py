"""The one place where engine values and protocol messages meet.

Engine types never leak into protobuf and protobuf never leaks into the engine: the server and
the bots' SDK convert here. Observations come only from :func:`engine.observation.observe`, so a
message to a seat carries exactly what that seat may know.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc
from engine.actions import Action, Bury, Declare, Fry, Pass, Play
from engine.bidding import Bid
from engine.cards import Rank, parse_cards
from engine.hand import Event as EngineEvent
from engine.hand import LegalActions, Phase
from engine.legal import LegalPlays, Option
from engine.match import Match
from engine.observation import observe
from engine.rules import CardRules

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


_EVENT_FIELDS = ("cards", "bid", "hidden")


def event_message(event: EngineEvent | Mapping[str, Any], sequence: int, hand: int) -> pb.Event:
    """An engine event (or its observed dict form) as a protocol Event."""
    if isinstance(event, EngineEvent):
        kind, seat, data = event.kind, event.seat, dict(event.data)
    else:
        data = dict(event)
        kind, seat = str(data.pop("kind")), int(str(data.pop("seat")))
    cards = data.get("cards")
    message = pb.Event(sequence=sequence, kind=kind, seat=seat, hand=hand)
    if isinstance(cards, list):
        message.cards.extend(str(c) for c in cards)
    if "bid" in data:
        message.bid = str(data["bid"])
    message.hidden = bool(data.get("hidden", False))
    details = {k: v for k, v in data.items() if k not in _EVENT_FIELDS}
    if details:
        message.details_json = json.dumps(details, ensure_ascii=False, sort_keys=True)
    return message


def observation_message(
    seen: Mapping[str, Any], events: Iterable[pb.Event] | None = None
) -> pb.Observation:
    """The engine's ``observe(match, seat)`` dict as a protocol Observation.

    ``events``: the same events as ``seen["events"]``, already converted (the table keeps them,
    so a decision does not convert the hand's whole history again)."""
    message = pb.Observation(
        seat=seen["seat"],
        preset=seen["preset"],
        hand_number=seen["hand_number"],
        phase=seen["phase"],
        to_act=seen["to_act"],
        dealer=-1 if seen["dealer"] is None else seen["dealer"],
        level=seen["level"] or "",
    )
    message.progress.extend(seen["progress"])
    message.levels.extend(seen["levels"])
    message.hand.extend(seen["hand"])
    trump = seen.get("trump")
    if trump is not None:
        message.trump_known = True
        message.trump_level = trump["level"] or ""
        message.trump_suit = trump["suit"] or ""
    trick = seen.get("trick")
    if trick is not None:
        message.trick_leader = trick["leader"]
        for seat, cards in trick["plays"]:
            message.trick.append(
                pb.TrickPlay(seat=seat, cards=[str(c) for c in parse_cards(cards)])
            )
        message.tricks_done = seen["tricks_done"]
        message.defenders_points = seen["defenders_points"]
        message.throw_penalties = seen["throw_penalties"]
    else:
        message.trick_leader = -1
    if events is not None:
        message.events.extend(events)
    else:
        for number, event in enumerate(seen["events"]):
            message.events.append(event_message(event, number, seen["hand_number"]))
    for record in seen["history"]:
        message.history.append(
            pb.HandSummary(
                number=record["number"],
                dealer=record["dealer"],
                level=record["level"] or "",
                trump_suit=record["trump"] or "",
                defenders_points=record["defenders_points"],
                progress=record["progress"],
                note=record["note"],
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
