"""Who plays which seat: a pool of bot processes per bot, and the one rule they are seated by.

**No process ever holds two seats of one deal**: not its partner's seat, not a seat of the
other game of the duplicate pair, not a seat of another pairing's game on the same deal, not
even one after the other. So no process can carry a hidden card from one seat to another in
its memory, and a bot may remember anything it saw. Each :class:`Player` keeps the deals it
has held a seat of; :meth:`Players.seat` only gives a seat of deal ``d`` to a player that has
never held one, and seats a whole game at once or not at all.

A command bot's pool grows lazily up to its limit (``processes`` in the config; by default the
seats the bot plays on one deal, so that no process ever needs replacing, at most 16). When
every live process has held a seat of the deal and the pool is full, an idle one is retired
(its session ends and it is killed) and a fresh process takes its place: a fresh process has
seen nothing. A bot with ``fresh = true`` gets a new process for every seat (with a ticket).
An external bot's pool is the sessions its processes opened with its token; a game waits for
enough of them. When an external session's stream ends with seats open, those seats are
offered to another live session of the same bot that has held no seat of their deal (a
process its operator restarted enters with a new instance id and is such a session); the
session itself gets them back if it returns first. Meanwhile the seat's clock runs, and only
if no session takes it before its strikes run out does its team forfeit.

A process that dies is replaced when a seat next needs it; the games it held seats in are
told (:meth:`Player.hold`'s callback): each is void if its seat was never taken, else that seat's
forfeit (:meth:`chaodipi.arena.serving.table.Table.void`).
"""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.abc

from chaodipi.arena.errors import NoSeat
from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving import ArenaServer, Door, Session, Table
from chaodipi.arena.tournament.config import BotSpec, TournamentConfig
from chaodipi.arena.tournament.processes import BotProcess, launch

__all__ = ["MAX_DEFAULT_PROCESSES", "Player", "Players", "seats_per_deal"]

MAX_DEFAULT_PROCESSES = 16
"""The most processes a bot's pool holds unless its config says ``processes``."""

EXIT_GRACE_S = 3.0
"""How long processes may take to exit by themselves once the arena wants no more games."""

OnExit = Callable[["Player", int | None], None]
"""Told when a player holding a seat goes: (the player, its exit code or None)."""


def seats_per_deal(config: TournamentConfig) -> Counter[str]:
    """How many seats each bot plays on one deal: 4 per pairing it is in (two games, two
    seats each). A pool this big never has to replace a process."""
    seats: Counter[str] = Counter()
    for a, b in config.pairings():
        seats[a] += 4
        seats[b] += 4
    return seats


@dataclass(frozen=True, slots=True)
class Held:
    """A seat a player holds: the table, the seat, the deal, and whom to tell if it goes."""

    table: Table
    seat: int
    deal: int
    on_exit: OnExit


@dataclass(eq=False, slots=True)
class Player:
    """One bot process (or one session of an external bot) that plays seats."""

    spec: BotSpec
    name: str
    """``random#3``: the pool's count of processes, for logs and its stderr file."""
    session: Session | None = None
    """Its session (None for a fresh process, which is given a ticket)."""
    process: BotProcess | None = None
    """Its process (None for an external bot's session)."""
    stderr: Path | None = None
    deals: set[int] = field(default_factory=set)
    """Every deal it has held a seat of."""
    holding: dict[tuple[str, int], Held] = field(default_factory=dict)
    """Its open seats, by (table name, seat)."""
    refused_before: int | None = None
    """The server's refusals for lack of room when its process was launched (None: not
    launched here)."""
    promised: int = 0
    """Seats it was chosen for whose table does not exist yet."""
    launched: anyio.Event | None = None
    """Set once its process started (or failed to): None until a start began."""
    gone: bool = False
    """Dead, retired or left for good: it is given no more seats."""
    retired: bool = False
    """The arena ended it (to give a deal to a fresh process, or at the run's end)."""

    @property
    def capacity(self) -> int:
        """Seats it may hold at once: what its session asked for once it entered, else 1."""
        if self.session is not None and self.session.entered.is_set():
            return self.session.capacity
        return 1

    def can_take(self, deal: int) -> bool:
        if self.gone or deal in self.deals or self.busy >= self.capacity:
            return False
        if self.spec.token is not None and self.session is not None:
            return self.session.connected  # an external session: only while it is there
        return True

    @property
    def busy(self) -> int:
        """Seats it holds or was promised."""
        return len(self.holding) + self.promised

    def hold(self, held: Held) -> None:
        """Play a seat: offered on its session (or given as the ticket when a fresh process
        starts)."""
        self.holding[(held.table.name, held.seat)] = held
        self.deals.add(held.deal)
        if self.session is not None:
            self.session.offer(held.table, held.seat)

    def let_go(self, table: Table, seat: int) -> None:
        """The seat's game is over."""
        self.holding.pop((table.name, seat), None)
        if self.session is not None:
            self.session.seat_over(table, seat)


@dataclass(eq=False, slots=True)
class _Pool:
    """One bot's players."""

    spec: BotSpec
    limit: int
    players: list[Player] = field(default_factory=list)
    door: Door | None = None
    """An external bot's door (its token); command processes have a door each."""
    count: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def live(self) -> list[Player]:
        return [p for p in self.players if not p.gone]


@dataclass(eq=False, slots=True)
class _Choice:
    """A seat's player: one there is, or one to start (replacing ``retire`` if set)."""

    player: Player | None = None
    retire: Player | None = None


class Players:
    """Every bot's pool for one run, on one server: seats games, starts and replaces processes,
    and ends them all at the end (:meth:`close`)."""

    def __init__(
        self,
        config: TournamentConfig,
        server: ArenaServer,
        nursery: anyio.abc.TaskGroup,
        log_dir: Path,
        *,
        detach: bool = True,
    ) -> None:
        """``detach``: start processes in a session of their own (False in a Ray
        worker, whose process group Ray kills with it)."""
        self.config = config
        self.server = server
        self.nursery = nursery
        self.log_dir = log_dir
        self.detach = detach
        self.started = 0
        """Processes started in this run."""
        self._fresh: set[Player] = set()
        self._holders: dict[tuple[str, int], Player] = {}
        self._orphans: list[tuple[Player, Held]] = []
        """Seats whose external session left, waiting for a session that may take them."""
        self._changed = anyio.Event()
        self._seats_per_deal = seats_per_deal(config)
        self._pools: dict[str, _Pool] = {}
        for spec in config.bots:
            seats = self._seats_per_deal[spec.name]
            limit = spec.processes or max(2, min(seats, MAX_DEFAULT_PROCESSES))
            pool = self._pools[spec.name] = _Pool(spec, limit)
            if spec.token is not None:
                pool.door = server.open_door(
                    spec.token,
                    spec.name,
                    single=False,
                    on_enter=self._external_entered(pool),
                    on_leave=self._external_left(pool),
                )

    # -- seating ------------------------------------------------------------------------------

    async def seat(self, deal: int, specs: list[BotSpec], *, wait_s: float) -> list[Player]:
        """Players for the four seats of a game on ``deal`` (``specs[seat]`` is each seat's
        bot), none of which has ever held a seat of that deal. Waits while the pools are busy;
        ``NoSeat`` after ``wait_s`` seconds when an external bot has too few sessions."""
        with anyio.move_on_after(wait_s) as waiting:
            while True:
                choices = self._choose(deal, specs)
                if choices is not None:
                    return await self._take(deal, specs, choices)
                changed = self._changed
                if all(self._pools[s.name].door is None for s in specs):
                    waiting.deadline = float("inf")  # command bots: the busy ones will be free
                await changed.wait()
        missing = next(s for s in specs if self._pools[s.name].door is not None)
        raise NoSeat(missing.name, self._too_few_sessions(missing, deal))

    def _choose(self, deal: int, specs: list[BotSpec]) -> list[_Choice] | None:
        """A player (or a process to start) for every seat, or None if the game must wait."""
        choices: list[_Choice] = []
        taken: set[int] = set()
        starting: Counter[str] = Counter()
        retiring: set[int] = set()
        retired: Counter[str] = Counter()
        for spec in specs:
            pool = self._pools[spec.name]
            if spec.fresh:
                choices.append(_Choice())
                continue
            free = [p for p in pool.live() if id(p) not in taken and p.can_take(deal)]
            if free:
                best = min(free, key=lambda p: (p.busy, p.session is None))
                taken.add(id(best))
                choices.append(_Choice(best))
                continue
            if pool.door is not None:
                return None  # an external bot: wait for a session
            if len(pool.live()) + starting[spec.name] - retired[spec.name] < pool.limit:
                starting[spec.name] += 1
                choices.append(_Choice())
                continue
            if any(deal not in p.deals for p in pool.live() if id(p) not in taken):
                return None  # one that may take this deal is busy: wait for it
            idle = [
                p
                for p in pool.live()
                if not p.busy and id(p) not in taken and id(p) not in retiring
            ]
            if not idle:
                return None
            retiring.add(id(idle[0]))
            retired[spec.name] += 1
            starting[spec.name] += 1
            choices.append(_Choice(retire=idle[0]))
        return choices

    async def _take(self, deal: int, specs: list[BotSpec], choices: list[_Choice]) -> list[Player]:
        """Claim the chosen players for the deal (at once, before any await), then start the
        processes the game needs."""
        players: list[Player] = []
        for spec, choice in zip(specs, choices, strict=True):
            if choice.retire is not None:
                self.retire(choice.retire, "a fresh process takes a deal it has seen")
            player = choice.player or self._new_player(spec)
            player.deals.add(deal)
            player.promised += 1
            players.append(player)
        return players

    def _new_player(self, spec: BotSpec) -> Player:
        pool = self._pools[spec.name]
        player = Player(spec, f"{spec.name}#{next(pool.count)}")
        if spec.fresh:
            self._fresh.add(player)
        else:
            pool.players.append(player)
            token = secrets.token_hex(24)  # handed to the process in its environment only
            player.session = self.server.open_door(token, player.name).session()
        return player

    # -- processes ----------------------------------------------------------------------------

    async def start(self, player: Player, *, ticket: str | None = None) -> None:
        """Start the player's process (a session's, or a fresh one with ``ticket``) unless
        it runs already; ``OSError`` if it cannot be started."""
        if player.launched is not None or player.spec.command == ():
            if player.launched is not None:
                await player.launched.wait()  # another game is starting it
                if player.process is None:
                    raise OSError(f"{player.name} could not be started")
            return
        player.launched = anyio.Event()
        try:
            await self._launch(player, ticket)
        finally:
            player.launched.set()

    async def _launch(self, player: Player, ticket: str | None) -> None:
        player.stderr = self.log_dir / f"{player.name}.stderr"
        player.refused_before = self.server.admission.refused
        token = None
        if player.session is not None:
            token = player.session.door.token
        player.process = await launch(
            player.spec,
            address=self.server.address,
            folder=self.config.folder,
            stderr=player.stderr,
            token=token,
            ticket=ticket,
            new_session=self.detach,
        )
        self.started += 1
        get_logger(session=player.name).info("process_started", pid=player.process.process.pid)
        self.nursery.start_soon(self._watch, player, player.process)

    async def _watch(self, player: Player, process: BotProcess) -> None:
        """A process's exit is an event: the games it holds seats in are told."""
        code = await process.process.wait()
        self._gone(player, code)

    def _gone(self, player: Player, code: int | None) -> None:
        if player.gone and not player.holding:
            return
        player.gone = True
        if not player.retired:
            get_logger(session=player.name).info(
                "process_exited", code=code, open_seats=len(player.holding)
            )
        for h in list(player.holding.values()):
            h.on_exit(player, code)
        if player.session is not None and player.process is not None:
            self.server.close_door(player.session.door)
        self._change()

    def retire(self, player: Player, why: str) -> None:
        """End a process: it is given no more seats (a fresh one takes its place when needed)."""
        if player.retired:
            return
        player.retired = player.gone = True
        get_logger(session=player.name).info("process_retired", why=why, deals=len(player.deals))
        if player.session is not None:
            self.server.close_door(player.session.door)
        if player.process is not None:
            self.nursery.start_soon(player.process.kill)

    def hold(self, player: Player, table: Table, seat: int, deal: int, on_exit: OnExit) -> None:
        """``player`` (chosen by :meth:`seat` for ``deal``) plays ``seat`` of ``table``."""
        player.promised = max(0, player.promised - 1)
        player.hold(Held(table, seat, deal, on_exit))
        self._holders[(table.name, seat)] = player

    def holder(self, table: Table, seat: int) -> Player | None:
        """Who plays ``seat`` of ``table`` now (it may have moved to another session)."""
        return self._holders.get((table.name, seat))

    def let_go(self, table: Table, seat: int) -> None:
        """A seat's game is over: its player may be seated again (a fresh process is ended)."""
        player = self._holders.pop((table.name, seat), None)
        if player is None:
            return
        player.let_go(table, seat)
        if player.spec.fresh:
            player.retired = player.gone = True
            self._fresh.discard(player)
            if player.process is not None:
                self.nursery.start_soon(_end_fresh, player.process)
        self._change()

    def _external_entered(self, pool: _Pool) -> Callable[[Session], None]:
        def entered(session: Session) -> None:
            player = Player(pool.spec, session.name, session=session)
            pool.players.append(player)
            get_logger(session=session.name).info("external_session", bot=pool.spec.name)
            self._change()

        return entered

    def _external_left(self, pool: _Pool) -> Callable[[Session], None]:
        def left(session: Session) -> None:
            player = next((p for p in pool.players if p.session is session), None)
            if player is not None:
                for held in player.holding.values():
                    if held.table.result is None:
                        self._orphans.append((player, held))
                get_logger(session=session.name).info(
                    "session_left_seats", open_seats=len(player.holding)
                )
            self._change()

        return left

    def _rehome(self) -> None:
        """Offer each orphaned seat to a live session of its bot that has held no seat of its
        deal (never two seats of one deal per process); a seat whose own session came back
        stays with it."""
        waiting: list[tuple[Player, Held]] = []
        for owner, held in self._orphans:
            key = (held.table.name, held.seat)
            if held.table.result is not None or self._holders.get(key) is not owner:
                continue  # its game is over, or it moved already
            if owner.session is not None and owner.session.connected:
                continue  # the session came back and was offered its seats again
            pool = self._pools[owner.spec.name]
            taker = next(
                (
                    p
                    for p in pool.live()
                    if p.session is not None and p is not owner and p.can_take(held.deal)
                ),
                None,
            )
            if taker is None:
                waiting.append((owner, held))
                continue
            owner.holding.pop(key, None)
            if owner.session is not None:
                owner.session.seat_over(held.table, held.seat)
            taker.hold(held)
            self._holders[key] = taker
            get_logger(table=held.table.name, seat=held.seat).info(
                "seat_moved", session=taker.name, left=owner.name
            )
        self._orphans = waiting

    def _change(self) -> None:
        if self._orphans:
            self._rehome()
        self._changed.set()
        self._changed = anyio.Event()

    def _too_few_sessions(self, spec: BotSpec, deal: int) -> str:
        pool = self._pools[spec.name]
        open_now = sum(1 for p in pool.live() if p.session is not None and p.session.connected)
        needed = self._seats_per_deal[spec.name]
        return (
            f"external bot {spec.name!r}: no session free for this game's deal after "
            f"{self.config.connect_timeout:g} s ({open_now} open; a process is never given two "
            f"seats of one deal, so run {needed} processes with its token, each with its own "
            "session, or at least enough for the games played at once)"
        )

    async def close(self, *, grace: bool = True) -> None:
        """No more games: every session ends (its process should exit), and after a grace
        period (none with ``grace=False``) every process is ended with its process group
        (:meth:`BotProcess.kill`), so that nothing a bot started outlives the run."""
        for pool in self._pools.values():
            if pool.door is not None:
                self.server.close_door(pool.door)
            for player in pool.players:
                if player.session is not None and player.process is not None:
                    self.server.close_door(player.session.door)
                player.retired = True
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(EXIT_GRACE_S if grace else 0):
                for process in self._processes():
                    await process.process.wait()
            async with anyio.create_task_group() as ending:  # each with its whole group
                for process in self._processes():
                    ending.start_soon(process.kill)

    def _processes(self) -> list[BotProcess]:
        players = [p for pool in self._pools.values() for p in pool.players]
        return [p.process for p in [*players, *self._fresh] if p.process is not None]


async def _end_fresh(process: BotProcess) -> None:
    """A fresh process's game is over: it may exit by itself, then it is killed."""
    with anyio.move_on_after(EXIT_GRACE_S):
        await process.process.wait()
    await process.kill()
