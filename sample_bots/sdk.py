"""A small SDK for Python bots: connect with a ticket, follow the stream, answer decisions.

Write one function, ``decide(decision) -> Action``, and call :func:`play`::

    from sample_bots.sdk import play, random_action
    play("127.0.0.1:50051", ticket, lambda d: random_action(d, rng))

``decision`` is the protocol's Decision message (observation, legal moves, clock); return the
protocol's Action (see :func:`pass_action`, :func:`bid_action`, :func:`cards_action`). The SDK
answers refusals by asking ``decide`` again (with ``decision.refusals`` filled in), and returns
the MatchOver message when the match ends.
"""

from __future__ import annotations

import os
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc

from arena.protocol import PROTOCOL_VERSION, arena_stub, legal_from_message
from arena.v1 import arena_pb2 as pb

__all__ = [
    "Turn",
    "bid_action",
    "cards_action",
    "pass_action",
    "play",
    "random_action",
    "safe_action",
]


@dataclass(slots=True)
class Turn:
    """A decision to make, with the refusals already received for it."""

    decision: pb.Decision
    refusals: list[pb.Refused] = field(default_factory=list)


def pass_action(decision_id: int) -> pb.Action:
    action = pb.Action(decision_id=decision_id)
    setattr(action, "pass", True)
    return action


def bid_action(decision_id: int, bid: str) -> pb.Action:
    return pb.Action(decision_id=decision_id, bid=bid)


def cards_action(decision_id: int, cards: list[str]) -> pb.Action:
    return pb.Action(decision_id=decision_id, cards=pb.Cards(cards=cards))


def random_action(turn: Turn, rng: random.Random) -> pb.Action:
    """A uniformly random legal move (pass or a bid; or cards from the exact legal set)."""
    decision = turn.decision
    legal = decision.legal
    if legal.card_options:
        cards = legal_from_message(legal).cards
        assert cards is not None
        return cards_action(decision.decision_id, [str(c) for c in cards.sample(rng)])
    choice = rng.randrange(len(legal.bids) + (1 if legal.can_pass else 0))
    if choice == len(legal.bids):
        return pass_action(decision.decision_id)
    return bid_action(decision.decision_id, legal.bids[choice])


def safe_action(decision: pb.Decision) -> pb.Action:
    """A legal move found at once: pass if allowed, else the first cards the legal set lists."""
    legal = decision.legal
    if legal.can_pass:
        return pass_action(decision.decision_id)
    if legal.card_options:
        option = legal.card_options[0]
        return cards_action(decision.decision_id, [*option.forced, *option.pool[: option.k_min]])
    return bid_action(decision.decision_id, legal.bids[0])


def _within_deadline(decide: Callable[[Turn], pb.Action], turn: Turn, margin_s: float) -> pb.Action:
    """Ask ``decide`` in a worker thread; past the deadline (less a margin) answer safely."""
    answers: queue.Queue[pb.Action | BaseException] = queue.Queue(1)

    def think() -> None:
        try:
            answers.put(decide(turn))
        except BaseException as err:  # handed to the caller's thread below
            answers.put(err)

    threading.Thread(target=think, daemon=True, name="decide").start()
    budget = max(0.02, turn.decision.deadline_ms / 1000 - margin_s)
    try:
        answer = answers.get(timeout=budget)
    except queue.Empty:
        return safe_action(turn.decision)  # the late answer is dropped, never sent
    if isinstance(answer, BaseException):
        raise answer
    return answer


_RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}


def play(
    address: str,
    ticket: str,
    decide: Callable[[Turn], pb.Action],
    *,
    name: str = "python-bot",
    root_certificate: bytes | None = None,
    on_message: Callable[[pb.ServerMessage], None] | None = None,
    reconnects: int = 5,
    margin_ms: int = 150,
    events_in_decisions: bool = True,
) -> pb.MatchOver:
    """Play one seat until the match ends; return its MatchOver.

    ``decide`` runs in a worker thread: if it has not answered ``margin_ms`` before the
    decision's deadline, a safe legal move goes instead. A dropped connection is retried with
    the same ticket up to ``reconnects`` times (the server resends what the seat needs).
    ``events_in_decisions`` (the default) asks the server to put new events inside each
    Decision rather than stream them: ``decide`` reads everything from the Decision anyway;
    pass False to have ``on_message`` see every event as it happens.
    Raises ``grpc.RpcError`` when the server refuses the seat (a wrong ticket, say)."""
    attempt = 0
    hello = pb.Hello(
        ticket=ticket,
        protocol_version=PROTOCOL_VERSION,
        bot_name=name,
        events_in_decisions=events_in_decisions,
    )
    while True:
        try:
            return _play_once(
                address, hello, decide, root_certificate, on_message, margin_ms / 1000
            )
        except grpc.RpcError as err:
            if err.code() not in _RETRY or attempt >= reconnects:
                raise
        except ConnectionError:
            if attempt >= reconnects:
                raise
        attempt += 1
        time.sleep(min(2.0, 0.1 * 2**attempt))


def _play_once(
    address: str,
    hello: pb.Hello,
    decide: Callable[[Turn], pb.Action],
    root_certificate: bytes | None,
    on_message: Callable[[pb.ServerMessage], None] | None,
    margin_s: float,
) -> pb.MatchOver:
    if root_certificate is not None:
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificate))
    else:
        channel = grpc.insecure_channel(address)
    outgoing: queue.Queue[pb.BotMessage | None] = queue.Queue()

    def requests() -> Iterator[pb.BotMessage]:
        yield pb.BotMessage(hello=hello)
        while (message := outgoing.get()) is not None:
            yield message

    with channel:
        stub = arena_stub(channel)
        turn: Turn | None = None
        try:
            for message in stub.Play(requests()):
                if on_message is not None:
                    on_message(message)
                kind = message.WhichOneof("message")
                if kind == "decision":
                    turn = Turn(message.decision)
                    outgoing.put(pb.BotMessage(action=_within_deadline(decide, turn, margin_s)))
                elif kind == "refused" and turn is not None:
                    if message.refused.decision_id == turn.decision.decision_id:
                        turn.refusals.append(message.refused)
                        answer = _within_deadline(decide, turn, margin_s)
                        if len(turn.refusals) > 3:
                            answer = safe_action(turn.decision)
                        outgoing.put(pb.BotMessage(action=answer))
                elif kind == "match_over":
                    over: pb.MatchOver = message.match_over
                    return over
        finally:
            outgoing.put(None)
    raise ConnectionError("the server ended the stream before the match was over")


def ticket_from_environment() -> str:
    ticket = os.environ.get("ARENA_TICKET", "")
    if not ticket:
        raise SystemExit("no ticket: pass --ticket or set ARENA_TICKET")
    return ticket
