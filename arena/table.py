"""A table: four seats, one match, the clocks, and everything each seat is sent.

A table is one trio task that plays the match decision by decision; bots' messages arrive
through :meth:`Table.receive` (called by the bridge), which refuses what does not answer the
open decision and hands the rest to that task over a bounded channel. A decision's deadline is
a cancel scope (``move_on_after``): per-decision time plus the seat's match bank plus a small
grace. On timeout the table plays a deterministic default move, records a strike and tells the
bot; after ``max_strikes`` the seat forfeits the match for its team.

Everything a seat is sent comes from ``engine.view.observe(match, seat)`` or from events
whose audience includes that seat: nothing else of the state is read on the way out.

Events reach a seat in order, batched: all that is pending goes just before the seat's own
decision, to every seat when a hand ends, and to every seat once a decision has been open for
``EVENT_HOLD_S`` (so a bot that thinks on others' time follows the game within that delay).
Fast tables thus send each seat one message per decision of its own instead of one per move. A
bot that asked for ``events_in_decisions`` gets its pending events inside the Decision itself
(``Decision.new_events`` counts them) and nothing on hold: one message per decision. Messages go
out as bytes assembled from events serialized once (:mod:`arena.wire`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import trio

from arena import wire
from arena.bridge import Connection
from arena.logs import get_logger
from arena.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    action_from_message,
    event_message,
    legal_message,
    observation_message,
)
from arena.v1 import arena_pb2 as pb
from engine.actions import Action, Bury, LegalActions, Pass, Play
from engine.errors import IllegalAction
from engine.events import HandOver
from engine.match import Match, team_of
from engine.presets import Preset
from engine.replay import replay_lines
from engine.view import observe

__all__ = [
    "SeatStats",
    "Table",
    "TableConfig",
    "TableResult",
    "default_action",
    "forced_action",
    "released_message",
]

EVENT_HOLD_S = 1.0
"""How long events may wait for a seat while another seat thinks."""

FLOOD_BURST = 1000
"""Unasked messages (ones that get a Refused) a bot may send at once before it is cut off."""
FLOOD_REFILL_PER_S = 100.0
"""...and how many more per second it may send over time. Answers never count."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """How a table plays: the rules, the deal seed, the clocks, where the replay goes."""

    preset: Preset
    seed: int | str = 0
    max_hands: int | None = None
    decision_ms: int = 1000
    bank_ms: int = 30_000
    grace_ms: int = 50
    max_strikes: int = 3
    connect_timeout_s: float = 30.0
    replay_dir: Path | None = None


@dataclass(slots=True)
class SeatStats:
    """What one seat did, for reports."""

    name: str = ""
    decisions: int = 0
    think_s: float = 0.0
    strikes: int = 0
    illegal: int = 0
    malformed: int = 0
    connects: int = 0


@dataclass(frozen=True, slots=True)
class TableResult:
    """How a table's match ended."""

    table: str
    winner: int | None
    hands: int
    progress: tuple[int, int]
    reward: int
    forfeited_by: int | None
    reason: str
    seats: tuple[SeatStats, ...]
    replay: Path | None


@dataclass(slots=True)
class _Seat:
    ticket: str
    connection: Connection | None = None
    bank_s: float = 0.0
    stats: SeatStats = field(default_factory=SeatStats)


@dataclass(slots=True)
class _Open:
    seat: int
    id: int
    legal: LegalActions
    opened: float
    budget_s: float


def released_message(table: str) -> str:
    """What a late Play or Watch of a released table is told."""
    return f"table {table!r} is over and released (its result and replay are written)"


def default_action(legal: LegalActions) -> Action:
    """The move played for a seat whose clock ran out: pass if it may, else the first cards the
    legal set lists (deterministic, so replays do not depend on chance)."""
    if legal.can_pass:
        return Pass()
    assert legal.cards is not None
    option = legal.cards.options[0]
    cards = tuple(sorted(option.forced + option.pool[: option.k_min]))
    return Bury(cards) if legal.phase.value == "bury" else Play(cards)


def forced_action(legal: LegalActions) -> Action | None:
    """The only legal action, if there is just one (the table plays it without asking)."""
    if legal.cards is None:
        return Pass() if not legal.bids and legal.can_pass else None
    if len(legal.cards.options) == 1 and legal.cards.options[0].is_single:
        return default_action(legal)
    return None


class Table:
    """One table's seats and match. Create it, then ``await run()`` in a nursery (and, for a
    table with an embargo, ``await embargo()`` beside it)."""

    def __init__(
        self,
        name: str,
        config: TableConfig,
        start: trio.Event | None = None,
        spectators_after: trio.Event | None = None,
    ) -> None:
        """``start``: when given, the match begins only once it is set (and every seat is
        connected), so that many tables can begin together. ``spectators_after``: when given,
        spectators receive nothing of this table until it is set; they then get the public
        events held back so far, and the rest live."""
        self.name = name
        self.config = config
        self.match = Match(config.preset, config.seed, config.max_hands)
        self.seats = [
            _Seat(secrets.token_urlsafe(24), bank_s=config.bank_ms / 1000) for _ in range(4)
        ]
        self.spectators: set[Connection] = set()
        self.finished = trio.Event()
        self.result: TableResult | None = None
        self.released = False
        """Set by :meth:`release`: the server has dropped the table; nobody may join it."""
        self._answers_send, self._answers_receive = trio.open_memory_channel[
            tuple[int, Connection, pb.Action]
        ](16)
        self._spectators_after = spectators_after
        self._held: list[bytes] | None = [] if spectators_after is not None else None
        """The public events held back from spectators (while an embargo lasts, and after it,
        for those who come later); None for a table without an embargo."""
        self._last_hand_over: bytes | None = None
        self._match_over_event: bytes | None = None
        self._embargo_scope = trio.CancelScope()
        self.connected = trio.Event()
        """Set when every seat has connected (or its bot is known to be gone)."""
        self._start = start
        self._absent: set[int] = set()
        self._decision: _Open | None = None
        self._decisions = 0
        self._cursor = 0
        """The match's event log has been encoded up to this sequence number."""
        self._hand_number = 0
        self._seen: list[list[bytes]] = [[], [], [], []]
        """Per seat, the current hand's events it may see, encoded for its observation."""
        self._pending: list[list[wire.EncodedEvent]] = [[], [], [], []]
        """Per seat, the events not yet sent to it."""
        self._forfeit: tuple[int, str] | None = None
        self._scope = trio.CancelScope()
        self.latencies: list[float] = []
        """Seconds from sending each answered decision to receiving its legal answer."""
        self._log = get_logger(table=name)

    # -- identity -----------------------------------------------------------------------------

    def ticket(self, seat: int) -> str:
        """The seat's ticket: ``table/seat/secret`` (only the secret part is secret)."""
        return f"{self.name}/{seat}/{self.seats[seat].ticket}"

    def check_secret(self, seat: int, secret: str) -> bool:
        return secrets.compare_digest(self.seats[seat].ticket.encode(), secret.encode())

    # -- connections (called from the bridge, in trio) -----------------------------------------

    def attach(self, seat: int, connection: Connection, bot_name: str) -> None:
        """A bot presented this seat's ticket: the newest connection wins."""
        state = self.seats[seat]
        old = state.connection
        if old is not None:
            old.close(grpc.StatusCode.ABORTED, f"seat {seat} was taken over by a newer connection")
        state.connection = connection
        state.stats.connects += 1
        state.stats.name = bot_name or state.stats.name
        self._log.info(
            "seat_connected",
            seat=seat,
            bot=bot_name,
            peer=connection.peer,
            resumed=old is not None or state.stats.connects > 1,
        )
        config = self.config
        connection.send(
            pb.ServerMessage(
                welcome=pb.Welcome(
                    seat=seat,
                    partner=(seat + 2) % 4,
                    table=self.name,
                    preset=config.preset.name,
                    protocol_version=PROTOCOL_VERSION,
                    decision_ms=config.decision_ms,
                    bank_ms=int(state.bank_s * 1000),
                    max_strikes=config.max_strikes,
                    max_hands=config.max_hands or 0,
                    resumed=state.stats.connects > 1,
                )
            )
        )
        if self.result is not None:
            connection.send(pb.ServerMessage(match_over=self._match_over()))
            connection.close()
            return
        connection.send(wire.snapshot_bytes(self._observation(seat)))
        self._pending[seat].clear()  # the snapshot has them
        if self._decision is not None and self._decision.seat == seat:
            self._send_decision()
        self._check_ready()

    def detach(self, seat: int, connection: Connection) -> None:
        state = self.seats[seat]
        if state.connection is connection:
            state.connection = None
            self._log.info("seat_disconnected", seat=seat)

    def receive(self, seat: int, connection: Connection, message: pb.BotMessage) -> None:
        """A message from a bot's stream: an answer to the seat's open decision goes to the
        table's task; anything else is refused with the reason."""
        connection.handled += 1
        state = self.seats[seat]
        if state.connection is not connection or self._cut_off(connection):
            return  # left over from a replaced (or cut off) connection
        if message.WhichOneof("message") != "action":
            state.stats.malformed += 1
            self._refuse(seat, connection, 0, "malformed", "after Hello, send only Action messages")
            return
        action = message.action
        decision = self._decision
        if decision is not None and decision.seat == seat and action.decision_id == decision.id:
            try:
                self._answers_send.send_nowait((seat, connection, action))
            except trio.WouldBlock:
                self._refuse(
                    seat, connection, action.decision_id, "malformed", "answer one at a time"
                )
        elif 0 < action.decision_id <= self._decisions:
            self._refuse_stale(seat, connection, action.decision_id)
        elif decision is None or decision.seat != seat:
            self._refuse(
                seat, connection, action.decision_id, "not_your_turn", "it is not your turn"
            )
        else:
            self._refuse_stale(seat, connection, action.decision_id)

    def _refuse_stale(self, seat: int, connection: Connection, decision_id: int) -> None:
        decision = self._decision
        now_open = (
            f"decision {decision.id} is"
            if decision is not None and decision.seat == seat
            else "none of yours is"
        )
        self._refuse(
            seat,
            connection,
            decision_id,
            "stale",
            f"decision {decision_id} is not open; {now_open}",
        )

    # -- spectators (called from the bridge, in trio) --------------------------------------------

    def watch(self, connection: Connection) -> None:
        """A spectator joins: it gets what it may see now, then the public events live; once
        the match is over (and no embargo holds it back), its last events and the end."""
        if self.released:
            connection.close(grpc.StatusCode.NOT_FOUND, released_message(self.name))
            return
        if not self._embargoed():
            for raw in self._held or ():
                connection.send(raw)
            if self.result is not None:
                self._send_the_end(connection)
                return
        self.spectators.add(connection)

    def unwatch(self, connection: Connection) -> None:
        self.spectators.discard(connection)

    async def embargo(self) -> None:
        """Wait for ``spectators_after`` (if the table has one), then show the spectators what
        was held back. Runs beside :meth:`run`; :meth:`release` ends it."""
        after = self._spectators_after
        if after is None:
            return
        with self._embargo_scope:
            await after.wait()
            self._lift_embargo()

    def _embargoed(self) -> bool:
        after = self._spectators_after
        return after is not None and not after.is_set()

    def _lift_embargo(self) -> None:
        for spectator in list(self.spectators):
            for raw in self._held or ():
                spectator.send(raw)
            if self.result is not None:
                self._send_the_end(spectator)
        if self.result is not None:
            self.spectators.clear()

    def _send_the_end(self, spectator: Connection) -> None:
        """A spectator of a finished match: the last hand's result (unless the held events
        had it), the match's end, and the end of the stream."""
        if self._held is None:  # the held events (if any) end with these already
            if self._last_hand_over is not None:
                spectator.send(self._last_hand_over)
            if self._match_over_event is not None:
                spectator.send(self._match_over_event)
        spectator.close()

    def release(self) -> None:
        """The server drops this table (its match is over): close what still watches it and
        let go of everything the match kept."""
        after = self._spectators_after
        if after is not None and after.is_set() and not self._embargo_scope.cancel_called:
            self._lift_embargo()  # the embargo task may not have run yet: spectators first
        self.released = True
        self._embargo_scope.cancel()
        for spectator in list(self.spectators):
            spectator.close(grpc.StatusCode.NOT_FOUND, released_message(self.name))
        self.spectators.clear()
        self._held = None
        self._seen = [[], [], [], []]
        self._pending = [[], [], [], []]

    def seat_gone(self, seat: int) -> None:
        """This seat's bot died before connecting: stop waiting for it (its turns time out)."""
        self._absent.add(seat)
        self._check_ready()

    def _check_ready(self) -> None:
        if all(s.connection is not None or i in self._absent for i, s in enumerate(self.seats)):
            self.connected.set()

    def stop(self, reason: str) -> None:
        """End the match now, undecided (the server is shutting down)."""
        if self.result is None:
            self._forfeit = (-1, reason)
            self._scope.cancel()

    def forfeit(self, seat: int, reason: str) -> None:
        """End the match now, lost by ``seat``'s team (its bot is gone for good: a process that
        crashed cannot come back, so waiting out its clock would only cost time)."""
        if self.result is None:
            self._forfeit = (seat, reason)
            self._scope.cancel()

    # -- the match ------------------------------------------------------------------------------

    async def run(self) -> TableResult:
        """Play the match to its end (or a forfeit) and return the result."""
        try:
            with self._scope:
                with trio.move_on_after(self.config.connect_timeout_s):
                    await self.connected.wait()
                if self._start is not None:
                    await self._start.wait()
                await self._play()
        except Exception as err:
            self._forfeit = (-1, f"the table failed: {type(err).__name__}: {err}")
            raise
        finally:
            if self.result is None:
                self._forfeit = self._forfeit or (-1, "the table stopped")
                self._finish()
        assert self.result is not None
        return self.result

    async def _play(self) -> None:
        match = self.match
        while not match.over and self._forfeit is None:
            self._convert_pending()
            seat = match.to_play
            legal = match.legal_actions(seat)
            forced = forced_action(legal)
            if forced is not None:
                match.apply(seat, forced)
                continue
            await self._decide(seat, legal)
        self._finish()

    async def _decide(self, seat: int, legal: LegalActions) -> None:
        state = self.seats[seat]
        decision_s = self.config.decision_ms / 1000
        self._decisions += 1
        opened = trio.current_time()
        budget = decision_s + state.bank_s
        self._decision = _Open(seat, self._decisions, legal, opened, budget)
        self._send_decision()
        with trio.move_on_after(budget + self.config.grace_ms / 1000) as scope:
            with trio.move_on_after(EVENT_HOLD_S) as hold:
                await self._answer(seat)
            if hold.cancelled_caught:
                # the seat is thinking: the others may follow along
                self._flush_events(streaming_only=True)
                await self._answer(seat)
        used = trio.current_time() - opened
        self._decision = None
        self._refuse_leftover_answers()
        state.stats.decisions += 1
        state.stats.think_s += used
        state.bank_s = max(0.0, state.bank_s - max(0.0, used - decision_s))
        if scope.cancelled_caught:
            self._strike(seat, legal)

    async def _answer(self, seat: int) -> None:
        """Wait for the open decision's legal answer and apply it (refusing the others)."""
        state = self.seats[seat]
        hand = self.match.hand
        assert self._decision is not None
        opened = self._decision.opened
        while True:
            answer_seat, connection, message = await self._answers_receive.receive()
            if answer_seat != seat or message.decision_id != self._decisions:
                self._refuse_stale(answer_seat, connection, message.decision_id)
                continue
            try:
                action = action_from_message(message, hand.phase, hand.level, hand.preset.card)
                self.match.apply(seat, action)
            except ProtocolError as err:
                state.stats.malformed += 1
                self._refuse(seat, connection, message.decision_id, "malformed", str(err))
                continue
            except IllegalAction as err:
                state.stats.illegal += 1
                self._refuse(seat, connection, message.decision_id, "illegal", str(err))
                continue
            self.latencies.append(trio.current_time() - opened)
            return

    def _refuse_leftover_answers(self) -> None:
        """Answers that reached the channel while the decision was open but after its answer
        (an answer sent twice, say): each gets its Refused now, none is dropped unseen."""
        while True:
            try:
                seat, connection, message = self._answers_receive.receive_nowait()
            except trio.WouldBlock:
                return
            self._refuse_stale(seat, connection, message.decision_id)

    def _strike(self, seat: int, legal: LegalActions) -> None:
        state = self.seats[seat]
        action = default_action(legal)
        self.match.apply(seat, action)
        state.stats.strikes += 1
        self._log.warning("timeout", seat=seat, strikes=state.stats.strikes, played=str(action))
        self._send(
            seat,
            pb.ServerMessage(
                strike=pb.Strike(
                    decision_id=self._decisions,
                    played=str(action),
                    strikes=state.stats.strikes,
                    max_strikes=self.config.max_strikes,
                )
            ),
        )
        if state.stats.strikes >= self.config.max_strikes:
            self._forfeit = (seat, f"seat {seat} timed out {state.stats.strikes} times")

    def _send_decision(self) -> None:
        decision = self._decision
        assert decision is not None
        seat = decision.seat
        left = max(0.0, decision.budget_s - (trio.current_time() - decision.opened))
        decision_s = self.config.decision_ms / 1000
        fixed = pb.Decision(
            decision_id=decision.id,
            legal=legal_message(decision.legal),
            deadline_ms=int(min(left, decision_s) * 1000),
            bank_ms=int(max(0.0, left - decision_s) * 1000),
            strikes=self.seats[seat].stats.strikes,
        )
        observation = self._observation(seat)
        if self._events_in_decisions(seat):
            # the pending events are the observation's last ones (a hand's end flushed the rest)
            fixed.new_events = len(self._pending[seat])
            self._pending[seat] = []
        else:
            self._flush_seat(seat)
        self._send(seat, wire.decision_bytes(fixed, observation))

    def _observation(self, seat: int) -> bytes:
        """What ``seat`` may know, encoded: ``observe(match, seat)`` with its events, each
        serialized once when it happened."""
        self._convert_pending()
        events = self._seen[seat]
        fixed = observation_message(observe(self.match, seat), ())
        return wire.observation_bytes(fixed, events)

    def _refuse(
        self, seat: int, connection: Connection, decision_id: int, code: str, reason: str
    ) -> None:
        """Refuse what ``connection`` sent, and count it against the bot's allowance of
        unasked messages: past it, the bot floods and is cut off."""
        if self._cut_off(connection):
            return
        guard = connection.flood
        if guard is not None and not guard.take(trio.current_time()):
            guard.tripped = True
            self._log.warning(
                "flood_cut_off",
                seat=seat,
                peer=connection.peer,
                burst=guard.burst,
                per_s=guard.refill_per_s,
            )
            connection.close(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"flooding: more than {guard.burst:g} messages the table did not ask for "
                f"(each got a Refused), beyond {guard.refill_per_s:g} a second: cut off. Send "
                "one answer per Decision, and answer again only after a Refused",
            )
            return
        refused = pb.Refused(decision_id=decision_id, reason=reason, code=code)
        connection.send(pb.ServerMessage(refused=refused))

    @staticmethod
    def _cut_off(connection: Connection) -> bool:
        return connection.flood is not None and connection.flood.tripped

    def _send(self, seat: int, message: pb.ServerMessage | bytes) -> None:
        connection = self.seats[seat].connection
        if connection is not None:
            connection.send(message)

    # -- events and the end ---------------------------------------------------------------------

    def _convert_pending(self) -> None:
        """Encode the events the engine recorded since last time, once: queue them for the
        seats that may see them, and send the public ones to spectators at once."""
        for event in self.match.log.all_since(self._cursor):
            if event.hand != self._hand_number:
                for seat in range(4):  # the hand's end is news, and the next hand's Decisions
                    self._flush_seat(seat)  # carry only that hand's events
                self._hand_number = event.hand
                self._seen = [[], [], [], []]
            encoded = wire.EncodedEvent.of(event_message(event))
            for seat in event.audience:
                self._seen[seat].append(encoded.in_observation)
                self._pending[seat].append(encoded)
            if event.public:
                self._show_spectators(encoded.raw)
            payload = event.payload
            if isinstance(payload, HandOver):
                self._last_hand_over = encoded.raw
                self._log.info(
                    "hand_over",
                    hand=event.hand,
                    dealer=self.match.records[event.hand].dealer,
                    defenders_points=payload.total,
                    progress=list(payload.progress),
                    note=payload.note,
                )
            self._cursor = event.seq

    def _show_spectators(self, raw: bytes) -> None:
        """A public event: to the spectators now, or held back while an embargo lasts."""
        if self._held is not None:
            self._held.append(raw)
        if not self._embargoed():
            for spectator in list(self.spectators):
                spectator.send(raw)

    def _flush_seat(self, seat: int) -> None:
        """Send the seat what is pending for it, in one message."""
        pending = self._pending[seat]
        if pending:
            self._send(seat, wire.event_batch_bytes(pending))
            self._pending[seat] = []

    def _flush_events(self, *, streaming_only: bool = False) -> None:
        """Send every seat what is pending for it (``streaming_only``: not to the seats that
        take their events inside their Decisions)."""
        self._convert_pending()
        for seat in range(4):
            if not (streaming_only and self._events_in_decisions(seat)):
                self._flush_seat(seat)

    def _events_in_decisions(self, seat: int) -> bool:
        """The seat's bot asked for its events inside its Decisions (in its Hello)."""
        connection = self.seats[seat].connection
        return connection is not None and connection.events_in_decisions

    def _match_over(self) -> pb.MatchOver:
        result = self.result
        assert result is not None
        return pb.MatchOver(
            winner=-1 if result.winner is None else result.winner,
            hands=result.hands,
            progress=list(result.progress),
            forfeited_by=-1 if result.forfeited_by is None else result.forfeited_by,
            reason=result.reason,
            reward=result.reward,
        )

    def _finish(self) -> None:
        if self.result is not None:
            return
        self._flush_events()
        match = self.match
        forfeit = self._forfeit
        if forfeit is not None and forfeit[0] >= 0:
            winner: int | None = 1 - team_of(forfeit[0])
            reason = forfeit[1]
        elif forfeit is not None:
            winner, reason = None, forfeit[1]
        else:
            winner, reason = match.winner, "played to the end"
        replay = self._write_replay(forfeit)
        self.result = TableResult(
            table=self.name,
            winner=winner,
            hands=len(match.records),
            progress=(match.progress[0], match.progress[1]),
            reward=match.reward if forfeit is None else 0,
            forfeited_by=None if forfeit is None or forfeit[0] < 0 else forfeit[0],
            reason=reason,
            seats=tuple(s.stats for s in self.seats),
            replay=replay,
        )
        self._log.info(
            "match_over",
            winner=winner,
            hands=self.result.hands,
            reason=reason,
            strikes=[s.stats.strikes for s in self.seats],
        )
        match_over = self._match_over()
        over = pb.ServerMessage(match_over=match_over)
        for state in self.seats:
            if state.connection is not None:
                state.connection.send(over)
                state.connection.close()
        self._match_over_event = self._spectator_match_over(match_over)
        if self._held is not None:
            self._held.append(self._match_over_event)
        if not self._embargoed():
            for spectator in list(self.spectators):
                spectator.send(self._match_over_event)
                spectator.close()
            self.spectators.clear()
        self.finished.set()

    def _spectator_match_over(self, over: pb.MatchOver) -> bytes:
        """The match's end as the last Event a spectator gets (kind ``match_over``), numbered
        after the match's last event."""
        details = {
            "winner": over.winner,
            "hands": over.hands,
            "progress": list(over.progress),
            "forfeited_by": over.forfeited_by,
            "reason": over.reason,
            "reward": over.reward,
        }
        event = pb.Event(
            sequence=self.match.log.cursor + 1,
            kind="match_over",
            seat=-1,
            hand=self._hand_number,
            details_json=json.dumps(details, ensure_ascii=False, sort_keys=True),
        )
        return event.SerializeToString()

    def _write_replay(self, forfeit: tuple[int, str] | None) -> Path | None:
        directory = self.config.replay_dir
        if directory is None:
            return None
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for line in replay_lines(self.match):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            if forfeit is not None:
                row: dict[str, Any] = {"forfeit": forfeit[0], "reason": forfeit[1]}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return path
