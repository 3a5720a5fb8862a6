"""A table: four seats, one match, the clocks, and everything each seat is sent.

A table is one task (anyio, on the server's event loop) that plays the match decision by
decision. It knows each seat's stream as a port (:mod:`chaodipi.arena.serving.port`: send,
close, peer), nothing of gRPC: bots' messages arrive through :meth:`Table.receive` (called by
the gRPC layer, or a test), which refuses what does not answer the open decision and hands the
rest to that task through a small :class:`~chaodipi.arena.serving.mailbox.Mailbox`. The table
owns each seat's allowance of unasked messages (:mod:`chaodipi.arena.serving.flood`), made
fresh whenever a stream attaches, and cuts off a stream that floods. A decision's deadline is
a cancel scope's: the moment its Decision is sent, plus per-decision time, the seat's match
bank and a small grace. On timeout the table plays a deterministic default move, records a
strike and tells the bot; after ``max_strikes`` the seat forfeits the match for its team.
A seat may instead be an in-process bot's (:mod:`chaodipi.arena.serving.in_process`), whose
``decide`` the table calls itself with the seat's view; its answer is judged by the same rules
(:meth:`Table._ask`), and it is sent nothing.

A match is void (:class:`Void`, no result) only when a seat's bot never took its seat: it never
connected, so it was never sent its hand. From the moment a seat has been sent its Snapshot
(:meth:`Table.seated`), every failure of its bot counts as it would later in the match
(:meth:`Table.void` refuses such a seat), so that no bot can look at its cards and then make the
deal no result. ``arena run`` and ``arena serve`` both void by this rule.

Everything a seat is sent comes from ``chaodipi.engine.view.observe(match, seat)`` (the Snapshot, on
every connect) or from events whose audience includes that seat: nothing else of the state is
read on the way out. Events reach a seat one way only: each rides, once and in order, on the
seat's next Decision (or its MatchOver), read from the match's log by the seat's cursor
(``match.events_since``). Each event is converted to its message once, when it happens; every
message is built by the contract's conversion (:mod:`chaodipi.arena.v2.convert`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import assert_never

import anyio

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.clock import loop_clock
from chaodipi.arena.serving.flood import FloodGuard
from chaodipi.arena.serving.in_process import Chosen, Hung, InProcessSeat, NoAction, Raised
from chaodipi.arena.serving.mailbox import Mailbox
from chaodipi.arena.serving.port import Port, StreamEnd
from chaodipi.arena.serving.spectators import Spectators, Watcher
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.arena.v2.convert import WireError
from chaodipi.engine import (
    Ending,
    HandOver,
    HandRecord,
    IllegalAction,
    LegalActions,
    Match,
    Outcome,
    Preset,
    observe,
)
from chaodipi.records import FORCED, Turn

ANSWERS_WAITING = 16
"""Answers to the open decision a table holds before it reads them; one more is refused
("answer one at a time")."""

_ILLEGAL, _MALFORMED = pb.REFUSAL_CODE_ILLEGAL, pb.REFUSAL_CODE_MALFORMED
_STALE, _NOT_YOUR_TURN = pb.REFUSAL_CODE_STALE, pb.REFUSAL_CODE_NOT_YOUR_TURN

__all__ = [
    "SeatStats",
    "Table",
    "TableConfig",
    "TableResult",
    "Void",
]


@dataclass(frozen=True, slots=True)
class TableConfig:
    """How a table plays: the rules, the shuffle seed, the clocks."""

    preset: Preset
    seed: int | str = 0
    max_hands: int | None = None
    decision_ms: int = 1000
    bank_ms: int = 30_000
    grace_ms: int = 50
    max_strikes: int = 3
    connect_timeout_s: float = 30.0
    bots: tuple[str, ...] = ()
    """The bots' names by seat, as the operator named them, told to spectators; ``()`` when
    not known (any bot with a ticket may take a seat)."""


@dataclass(slots=True)
class SeatStats:
    """What one seat did, for reports."""

    name: str = ""
    decisions: int = 0
    think_s: float = 0.0
    strikes: int = 0
    illegal: int = 0
    malformed: int = 0
    fallbacks: int = 0
    """Answers the bot's kit chose for it (``Answer.fallback``: too late, no action, refused)."""
    connects: int = 0
    drops: int = 0
    """Its streams that ended while the match was playing (a crash, a lost connection)."""
    first_refusal: str = ""
    """Why the table first refused what the seat sent ('' if it never did): what a bot's
    author needs to see first (a standing ladder shows it when a validation game fails)."""


@dataclass(frozen=True, slots=True)
class Void:
    """Why a match is no result: the bots of ``seats`` never took them (never connected, so
    never sent their hands)."""

    seats: tuple[int, ...]
    why: str
    """What happened, as a person reads it (``seat 3 did not connect within 60 s``)."""

    @property
    def reason(self) -> str:
        """The match's reason, as its MatchOver says it (ending ``ENDING_STOPPED``)."""
        return f"void: {self.why}"


@dataclass(frozen=True, slots=True)
class TableResult:
    """How a table's game ended (its :class:`~chaodipi.engine.Outcome`, as every MatchOver
    says it), and what only the table knows of it."""

    table: str
    outcome: Outcome
    seats: tuple[SeatStats, ...]
    hand_records: tuple[HandRecord, ...] = ()
    """Each finished hand's summary (dealer, level, trump, points, progress), in order."""
    turns: tuple[Turn, ...] = ()
    """How each action of ``match.actions`` was taken (the clock, strikes, the bot's note):
    with the match, the game's record (:mod:`chaodipi.records`)."""
    void: Void | None = None
    """Set when the match is no result: a seat's bot never took its seat."""


@dataclass(frozen=True, slots=True)
class _Cut:
    """Why a match ended before its end: lost by the team of the seat ``forfeited_by``, or
    undecided (stopped, ``void``, or ``failed``)."""

    reason: str
    forfeited_by: int | None = None
    void: Void | None = None
    failed: bool = False

    def outcome(self, match: Match) -> Outcome:
        """The match as it stands, ended for this reason."""
        if self.forfeited_by is not None:
            return match.cut_short(Ending.FORFEIT, self.reason, self.forfeited_by)
        return match.cut_short(Ending.FAILED if self.failed else Ending.STOPPED, self.reason)


@dataclass(slots=True)
class _Seat:
    ticket: str
    connection: Port | None = None
    guard: FloodGuard = field(default_factory=FloodGuard)
    """The allowance of unasked messages of the connection attached now (made fresh with it)."""
    bank_s: float = 0.0
    stats: SeatStats = field(default_factory=SeatStats)
    bot: InProcessSeat | None = None
    """Its in-process bot, whose ``decide`` the table calls itself (None: a stream's seat)."""


@dataclass(slots=True)
class _Open:
    seat: int
    id: int
    legal: LegalActions
    opened: float
    budget_s: float
    legal_message: pb.LegalActions | None = None
    """The legal set as a message, made when the Decision is first sent."""


class Table:
    """One table's seats and match. Create it, then ``await run()`` in a task group (and, for a
    table with an embargo, ``await embargo()`` beside it)."""

    def __init__(
        self,
        name: str,
        config: TableConfig,
        start: anyio.Event | None = None,
        spectators_after: anyio.Event | None = None,
        in_process: Sequence[InProcessSeat | None] = (),
    ) -> None:
        """``start``: when given, the match begins only once it is set (and every seat is
        connected), so that many tables can begin together. ``spectators_after``: when given,
        spectators receive nothing of this table until it is set; they then get the public
        events held back so far, and the rest live. ``in_process``: each seat's in-process bot
        (:mod:`chaodipi.arena.serving.in_process`), or None for a seat a stream takes; a bot
        given takes its seat at once."""
        self.name = name
        self.config = config
        self.match = Match(config.preset, config.seed, config.max_hands)
        self.seats = [
            _Seat(secrets.token_urlsafe(24), bank_s=config.bank_ms / 1000) for _ in range(4)
        ]
        self.gallery = Spectators(name, spectators_after, config.bots)
        self.finished = anyio.Event()
        self.result: TableResult | None = None
        self._answers: Mailbox[tuple[int, Port, pb.Answer]] = Mailbox(ANSWERS_WAITING)
        """Answers to the open decision, as :meth:`receive` hands them to the table's task."""
        self.connected = anyio.Event()
        """Set when every seat has connected (or its bot is known to be gone)."""
        self._start = start
        self._absent: set[int] = set()
        self._decision: _Open | None = None
        self._decisions = 0
        self._messages: list[pb.Event] = []
        """Each event of the match's log as its message, converted once (index: seq - 1)."""
        self._sent = [0, 0, 0, 0]
        """Per seat, the log's cursor up to which the seat has been sent what it may see."""
        self._cut: _Cut | None = None
        """Why the match ended before its end, once it has."""
        self._scope = anyio.CancelScope()
        self.latencies: list[float] = []
        """Seconds from sending each answered decision to receiving its legal answer."""
        self.turns: list[Turn] = []
        """How each action of the match was taken, in order (one per ``match.actions``)."""
        self._log = get_logger(table=name)
        self._now: Callable[[], float] = anyio.current_time
        """The loop's clock (:func:`loop_clock`, once the match runs)."""
        self._read = 0
        """The log's events read so far (each converted, unless nothing may be sent them)."""
        for seat, bot in enumerate(in_process):
            if bot is not None:
                self._seat_in_process(seat, bot)
        self._wired = any(s.bot is None for s in self.seats)
        """Some seat takes a stream, so events are converted to messages; at a table whose
        every seat is in-process, nothing is (no seat can be sent one, and such a table is
        served to no spectator: it plays in a worker, docs/architecture.md)."""
        self._check_ready()

    # -- identity -----------------------------------------------------------------------------

    def ticket(self, seat: int) -> str:
        """The seat's ticket: ``table/seat/secret`` (only the secret part is secret)."""
        return f"{self.name}/{seat}/{self.seats[seat].ticket}"

    def check_secret(self, seat: int, secret: str) -> bool:
        return secrets.compare_digest(self.seats[seat].ticket.encode(), secret.encode())

    # -- connections (called on the table's loop: from the gRPC layer, or a test) --------------

    def attach(self, seat: int, connection: Port, bot_name: str) -> None:
        """A bot presented this seat's ticket: the newest connection wins."""
        state = self.seats[seat]
        old = state.connection
        if old is not None:
            old.close(StreamEnd.TAKEN_OVER, f"seat {seat} was taken over by a newer connection")
        state.connection = connection
        state.guard = FloodGuard()
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
            convert.welcome(
                seat,
                table=self.name,
                preset=config.preset.name,
                decision_ms=config.decision_ms,
                bank_s=self._clock(seat)[1],
                max_strikes=config.max_strikes,
                max_hands=config.max_hands,
                resumed=state.stats.connects > 1,
            )
        )
        if self.result is not None:
            connection.send(convert.match_over(self.result.outcome, self._news(seat)))
            connection.close()
            return
        self._convert_events()
        view = observe(self.match, seat)
        events = [self._messages[e.seq - 1] for e in view.events]
        connection.send(convert.snapshot(view, events))
        self._sent[seat] = view.cursor  # the snapshot has what came before
        if self._decision is not None and self._decision.seat == seat:
            self._send_decision()
        self._check_ready()

    def _seat_in_process(self, seat: int, bot: InProcessSeat) -> None:
        """The seat's in-process bot takes it: sent nothing, it is seated from the start."""
        state = self.seats[seat]
        state.bot = bot
        state.stats.connects += 1
        state.stats.name = bot.name
        self._log.info("seat_in_process", seat=seat, bot=bot.name)

    def _bot_gone(self, seat: int, bot: InProcessSeat, error: BaseException) -> None:
        """The seat's in-process bot raised: from now on the seat is one whose stream ended
        (its clock runs, its turns strike), and its game is told (which forfeits it, as a
        crashed process's)."""
        state = self.seats[seat]
        state.bot = None
        state.stats.drops += 1
        if not self._wired:  # its seat may now be sent messages: the events so far, converted
            self._wired = True
            self._messages = [convert.event_message(e) for e in self.match.log.all_since(0)]
            self._read = len(self._messages)
        self._log.info("in_process_gone", seat=seat, error=type(error).__name__)
        bot.gone(error)

    def detach(self, seat: int, connection: Port) -> None:
        state = self.seats[seat]
        if state.connection is connection:
            state.connection = None
            if self.result is None:
                state.stats.drops += 1
            self._log.info("seat_disconnected", seat=seat)

    def receive(self, seat: int, connection: Port, message: pb.PlayRequest) -> None:
        """A message from a bot's stream: an answer to the seat's open decision goes to the
        table's task; anything else is refused with the reason."""
        state = self.seats[seat]
        if state.connection is not connection or state.guard.tripped:
            return  # left over from a replaced (or cut off) connection
        if message.WhichOneof("request") != "answer":
            state.stats.malformed += 1
            self._refuse(seat, connection, 0, _MALFORMED, "after Hello, send only Answer messages")
            return
        answer = message.answer
        decision = self._decision
        if decision is not None and decision.seat == seat and answer.decision_id == decision.id:
            try:
                self._answers.send_nowait((seat, connection, answer))
            except anyio.WouldBlock:
                self._refuse(
                    seat, connection, answer.decision_id, _MALFORMED, "answer one at a time"
                )
        elif 0 < answer.decision_id <= self._decisions or (
            decision is not None and decision.seat == seat
        ):
            self._refuse_stale(seat, connection, answer.decision_id)
        else:
            self._refuse(
                seat, connection, answer.decision_id, _NOT_YOUR_TURN, "it is not your turn"
            )

    def _refuse_stale(self, seat: int, connection: Port, decision_id: int) -> None:
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
            _STALE,
            f"decision {decision_id} is not open; {now_open}",
        )

    # -- spectators (called on the table's loop: from the gRPC layer, or a test) ----------------

    @property
    def spectators(self) -> set[Watcher]:
        """Who watches the table now (:mod:`chaodipi.arena.serving.spectators`)."""
        return self.gallery.connections

    @property
    def released(self) -> bool:
        """The server has dropped the table: nobody may join it."""
        return self.gallery.released

    def watch(self, connection: Watcher) -> None:
        """A spectator: the match's public events so far, then the rest live
        (:meth:`Spectators.join`)."""
        self.gallery.join(connection)

    def unwatch(self, connection: Watcher) -> None:
        self.gallery.leave(connection)

    async def embargo(self) -> None:
        """Runs beside :meth:`run` for a table with ``spectators_after``
        (:meth:`Spectators.embargo`)."""
        await self.gallery.embargo()

    def release(self) -> None:
        """The server drops this table (its match is over): close what still watches it and
        let go of everything the match kept."""
        self.gallery.release()
        self._messages = []

    def seat_gone(self, seat: int) -> None:
        """This seat's bot died before connecting: stop waiting for it (its turns time out)."""
        self._absent.add(seat)
        self._check_ready()

    def _check_ready(self) -> None:
        if all(
            s.connection is not None or s.bot is not None or i in self._absent
            for i, s in enumerate(self.seats)
        ):
            self.connected.set()

    def seated(self, seat: int) -> bool:
        """The seat's bot took its seat: it has been sent its hand (the Snapshot of its first
        connect). From then on, nothing its bot does makes the match void."""
        return self.seats[seat].stats.connects > 0

    async def wait_seated(self, timeout_s: float) -> list[int]:
        """Wait up to ``timeout_s`` seconds for every seat to be taken; the seats that are not
        (their bots never took them: :meth:`void` the match with them), none when all are."""
        with anyio.move_on_after(timeout_s):
            await self.connected.wait()
        return [seat for seat in range(len(self.seats)) if not self.seated(seat)]

    def void(self, seats: Sequence[int], why: str) -> Void | None:
        """End the match now as no result: the bots of ``seats`` never took them; the
        :class:`Void` it got. ``ValueError`` for a seat that has been sent its hand: its bot's
        failures count (a strike, an illegal answer, a forfeit), never void the match. A match
        that ended, or is ending for another reason, keeps that one (None)."""
        taken = [seat for seat in seats if self.seated(seat)]
        if taken:
            raise ValueError(f"seat {taken[0]} was sent its hand: its match cannot be void")
        if self.result is not None or self._cut is not None:
            return None
        void = Void(tuple(seats), why)
        self._cut = _Cut(void.reason, void=void)
        self._scope.cancel()
        return void

    def stop(self, reason: str) -> None:
        """End the match now, undecided (the server is shutting down)."""
        if self.result is None:
            self._cut = _Cut(reason)
            self._scope.cancel()

    def forfeit(self, seat: int, reason: str) -> None:
        """End the match now, lost by ``seat``'s team (its bot is gone for good: a process that
        crashed cannot come back, so waiting out its clock would only cost time); a match
        being voided stays void."""
        if self.result is None and (self._cut is None or self._cut.void is None):
            self._cut = _Cut(reason, forfeited_by=seat)
            self._scope.cancel()

    # -- the match ------------------------------------------------------------------------------

    async def run(self) -> TableResult:
        """Play the match to its end (or a forfeit) and return the result."""
        self._now = loop_clock()
        try:
            with self._scope:
                with anyio.move_on_after(self.config.connect_timeout_s):
                    await self.connected.wait()
                if self._start is not None:
                    await self._start.wait()
                await self._play()
        except Exception as err:
            self._cut = _Cut(f"the table failed: {type(err).__name__}: {err}", failed=True)
            raise
        finally:
            if self.result is None:
                self._cut = self._cut or _Cut("the table stopped")
                self._finish()
        assert self.result is not None
        return self.result

    async def _play(self) -> None:
        match = self.match
        while not match.over and self._cut is None:
            self._convert_events()
            seat = match.to_play
            legal = match.legal_actions(seat)
            forced = legal.forced()
            if forced is not None:
                cursor = match.log.cursor
                match.apply(seat, forced)
                self.turns.append(replace(FORCED, cursor=cursor))
                continue
            await self._decide(seat, legal)
        self._finish()

    async def _decide(self, seat: int, legal: LegalActions) -> None:
        state = self.seats[seat]
        decision_s = self.config.decision_ms / 1000
        self._decisions += 1
        opened = self._now()
        budget = decision_s + state.bank_s
        deadline = opened + budget + self.config.grace_ms / 1000
        self._decision = _Open(seat, self._decisions, legal, opened, budget)
        refused_before = state.stats.illegal + state.stats.malformed
        cursor = self.match.log.cursor  # nothing is recorded until this seat's action
        bot = state.bot
        asked = None if bot is None else self._ask(seat, bot, legal, deadline)
        if asked is None:  # the seat's stream answers (or nothing does, by the deadline)
            note, fallback = "", False
            self._send_decision()
            with anyio.CancelScope(deadline=deadline) as scope:
                note, fallback = await self._answer(seat)
            struck = scope.cancelled_caught
        else:
            struck, note, fallback = asked
        used = self._now() - opened
        self._decision = None
        if asked is None:
            self._refuse_leftover_answers()
        state.stats.decisions += 1
        state.stats.think_s += used
        state.bank_s = max(0.0, state.bank_s - max(0.0, used - decision_s))
        if struck:
            self._strike(seat, legal)
        elif fallback:
            state.stats.fallbacks += 1
            # info, as a strike: the record keeps each turn's, `arena run` says a game's once
            self._log.info("fallback", seat=seat, fallbacks=state.stats.fallbacks)
        self.turns.append(
            Turn(
                ms=round(used * 1000),
                struck=struck,
                strikes=state.stats.strikes,
                refused=state.stats.illegal + state.stats.malformed - refused_before,
                note=note,
                cursor=cursor,
                fallback=fallback and not struck,
            )
        )
        if bot is not None and bot.hung and self._cut is None:
            self._cut = _Cut(
                f"seat {seat} timed out: its decide was still running when its strikes would "
                f"have reached {self.config.max_strikes}",
                seat,
            )

    def _ask(
        self, seat: int, bot: InProcessSeat, legal: LegalActions, deadline: float
    ) -> tuple[bool, str, bool] | None:
        """The open decision answered by the seat's in-process bot, by the rules a stream's
        answer is judged by: (struck, note, fallback), the action played unless struck (then
        :meth:`_strike` plays it); None when the bot is gone (its ``decide`` raised).

        An answer after the deadline is struck, as a stream's that comes too late. A ``decide``
        still running when the seat would have struck out, had it stopped answering (the
        deadline, then the decision time and grace of each strike left), is stopped there, by
        the seat's guard: a strike, and the seat's team forfeits. An illegal action is refused
        (counted) and the safe action played as a fallback, as the SDK answers a Refused; what
        is no action is a fallback at once."""
        state = self.seats[seat]
        config = self.config
        left = config.max_strikes - state.stats.strikes - 1
        hang = deadline + left * (config.decision_ms + config.grace_ms) / 1000
        asked = bot.ask(self.match, seat, legal, hang - self._now())
        if self._now() > deadline and not isinstance(asked, Raised):
            return True, "", False  # too late: struck (a hung decide too)
        match asked:
            case Chosen(action, note):
                try:
                    self.match.apply(seat, action)
                except IllegalAction as err:
                    state.stats.illegal += 1
                    if not state.stats.first_refusal:
                        state.stats.first_refusal = str(err)
                    bot.refused(str(err))
                else:
                    assert self._decision is not None
                    self.latencies.append(self._now() - self._decision.opened)
                    return False, note, False
            case NoAction():
                pass
            case Raised(error):
                self._bot_gone(seat, bot, error)
                return None
            case Hung():
                return True, "", False
            case unknown:
                assert_never(unknown)
        self.match.apply(seat, legal.default())
        return False, "", True

    async def _answer(self, seat: int) -> tuple[str, bool]:
        """Wait for the open decision's legal answer and apply it (refusing the others);
        return the answer's note (kept for the record, never sent to anyone) and whether the
        bot's kit chose it (``Answer.fallback``)."""
        state = self.seats[seat]
        assert self._decision is not None
        opened = self._decision.opened
        while True:
            answer_seat, connection, message = await self._answers.receive()
            if answer_seat != seat or message.decision_id != self._decisions:
                self._refuse_stale(answer_seat, connection, message.decision_id)
                continue
            try:
                note = convert.note_from_answer(message)
                self.match.apply(seat, convert.action_from_message(message.action))
            except WireError as err:
                state.stats.malformed += 1
                self._refuse(seat, connection, message.decision_id, _MALFORMED, str(err))
                continue
            except IllegalAction as err:
                state.stats.illegal += 1
                self._refuse(seat, connection, message.decision_id, _ILLEGAL, str(err))
                continue
            self.latencies.append(self._now() - opened)
            return note, message.fallback

    def _refuse_leftover_answers(self) -> None:
        """Answers that reached the mailbox while the decision was open but after its answer
        (an answer sent twice, say), or as its deadline passed: each gets its Refused now, none
        is dropped unseen."""
        while True:
            try:
                seat, connection, message = self._answers.receive_nowait()
            except anyio.WouldBlock:
                return
            self._refuse_stale(seat, connection, message.decision_id)

    def _strike(self, seat: int, legal: LegalActions) -> None:
        state = self.seats[seat]
        action = legal.default()
        self.match.apply(seat, action)
        state.stats.strikes += 1
        self._log.info("timeout", seat=seat, strikes=state.stats.strikes, played=str(action))
        self._send(
            seat,
            convert.strike(self._decisions, action, state.stats.strikes, self.config.max_strikes),
        )
        if state.stats.strikes >= self.config.max_strikes:
            self._cut = _Cut(f"seat {seat} timed out {state.stats.strikes} times", seat)

    def _send_decision(self) -> None:
        """The open decision to its seat, with the events the seat has not been sent yet."""
        decision = self._decision
        assert decision is not None
        seat = decision.seat
        deadline_s, bank_s = self._clock(seat)
        self._convert_events()
        cursor = self.match.log.cursor
        if decision.legal_message is None:
            decision.legal_message = convert.legal_message(decision.legal)
        message = convert.decision(
            decision.id,
            events=self._news(seat),
            legal=decision.legal_message,
            deadline_s=deadline_s,
            bank_s=bank_s,
            strikes=self.seats[seat].stats.strikes,
            cursor=cursor,
        )
        self._send(seat, message)

    def _clock(self, seat: int) -> tuple[float, float]:
        """What is left now of ``seat``'s clock: (per-decision time, match bank), in seconds.
        While a decision of the seat is open, its time runs: the per-decision allowance first,
        then the bank (so a Decision sent again after a reconnect, and the Welcome before it,
        say what is left at that moment, not what there was when the decision opened)."""
        state = self.seats[seat]
        decision = self._decision
        decision_s = self.config.decision_ms / 1000
        if decision is None or decision.seat != seat:
            return decision_s, state.bank_s
        used = self._now() - decision.opened
        return max(0.0, decision_s - used), max(0.0, min(state.bank_s, decision.budget_s - used))

    def _news(self, seat: int) -> list[pb.Event]:
        """The events ``seat`` may see that it has not been sent, as messages; from now on it
        has been sent them (whether or not it is connected: a reconnect gets a snapshot)."""
        news = self.match.events_since(self._sent[seat], seat)
        self._sent[seat] = self.match.log.cursor
        return [self._messages[e.seq - 1] for e in news]

    def _refuse(
        self, seat: int, connection: Port, decision_id: int, code: int, reason: str
    ) -> None:
        """Refuse what ``connection`` sent, and count it against the bot's allowance of
        unasked messages: past it, the bot floods and is cut off."""
        state = self.seats[seat]
        guard = state.guard
        if state.connection is not connection or guard.tripped:
            return  # no longer the seat's stream (ended, or replaced and closed), or cut off
        if not state.stats.first_refusal:
            state.stats.first_refusal = reason
        if not guard.take(self._now()):
            guard.tripped = True
            self._log.warning(
                "flood_cut_off",
                seat=seat,
                peer=connection.peer,
                burst=guard.burst,
                per_s=guard.refill_per_s,
            )
            connection.close(
                StreamEnd.FLOODING,
                f"flooding: more than {guard.burst:g} messages the table did not ask for "
                f"(each got a Refused), beyond {guard.refill_per_s:g} a second: cut off. Send "
                "one answer per Decision, and answer again only after a Refused",
            )
            return
        connection.send(convert.refused(decision_id, code, reason))

    def _send(self, seat: int, message: pb.PlayResponse) -> None:
        connection = self.seats[seat].connection
        if connection is not None:
            connection.send(message)

    # -- events and the end ---------------------------------------------------------------------

    def _convert_events(self) -> None:
        """Convert the events the engine recorded since last time, once each, and show the
        public ones to the spectators (:meth:`Spectators.show`), unless every seat is
        in-process; log each hand's end."""
        messages = self._messages
        for event in self.match.log.all_since(self._read):
            self._read += 1
            if self._wired:
                message = convert.event_message(event)
                messages.append(message)
                if event.public:
                    self.gallery.show(message)
            payload = event.payload
            if isinstance(payload, HandOver):
                self._log.info(
                    "hand_over",
                    hand=event.hand,
                    dealer=payload.result.dealer,
                    defenders_points=payload.total,
                    progress=list(payload.progress),
                    note=payload.note,
                )

    def _finish(self) -> None:
        if self.result is not None:
            return
        self._convert_events()
        match = self.match
        cut = self._cut
        outcome = match.outcome() if cut is None else cut.outcome(match)
        assert outcome is not None, "a table ends uncut only once its match is over"
        self.result = TableResult(
            table=self.name,
            outcome=outcome,
            hand_records=tuple(match.records),
            seats=tuple(s.stats for s in self.seats),
            turns=tuple(self.turns),
            void=None if cut is None else cut.void,
        )
        self._log.info(
            "match_over",
            winner=outcome.winner,
            hands=outcome.hands,
            reason=outcome.reason,
            strikes=[s.stats.strikes for s in self.seats],
        )
        for seat, state in enumerate(self.seats):
            if state.connection is not None:
                state.connection.send(convert.match_over(outcome, self._news(seat)))
                state.connection.close()
        self.gallery.end(convert.outcome_message(outcome))
        self.finished.set()
