"""Who plays which seat: a pool of bot processes per bot, and the one rule they are seated by.

**No process ever holds two seats of one deal**: not its partner's seat, not a seat of the
other game of the duplicate pair, not a seat of another pairing's game on the same deal, not
even one after the other. So no process can carry a hidden card from one seat to another in
its memory, and a bot may remember anything it saw. Each :class:`Instance` keeps the deals it
has held a seat of; :meth:`Instances.seat` only gives a seat of deal ``d`` to an instance that has
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
told (:meth:`Instance.hold`'s callback): each is void if its seat was never taken, else that seat's
forfeit (:meth:`chaodipi.arena.serving.table.Table.void`).
"""

from __future__ import annotations

import functools
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

__all__ = ["MAX_DEFAULT_PROCESSES", "Instance", "Instances", "seats_per_deal"]

MAX_DEFAULT_PROCESSES = 16
"""The most processes a bot's pool holds unless its config says ``processes``."""

EXIT_GRACE_S = 3.0
"""How long processes may take to exit by themselves once the arena wants no more games."""

_UNSEEN_DEAL = -1
"""A deal number no instance has held a seat of (deal numbers are never negative)."""

OnExit = Callable[["Instance", int | None], None]
"""Told when an instance holding a seat goes: (the instance, its exit code or None)."""


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
    """A seat an instance holds: the table, the seat, the deal, and whom to tell if it goes."""

    table: Table
    seat: int
    deal: int
    on_exit: OnExit


@dataclass(eq=False, slots=True)
class Instance:
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
    external: bool = False
    """A session its bot's operator runs (a token in the config, a ladder's resident bot):
    given seats only while it is connected."""

    @property
    def capacity(self) -> int:
        """Seats it may hold at once: what its session asked for once it entered, else 1."""
        if self.session is not None and self.session.entered.is_set():
            return self.session.capacity
        return 1

    def can_take(self, deal: int) -> bool:
        if self.gone or deal in self.deals or self.busy >= self.capacity:
            return False
        if self.external and self.session is not None:
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
    """One bot's instances."""

    spec: BotSpec
    limit: int
    """The most processes alive at once (a command bot's)."""
    seats_per_deal: int
    """The seats the bot plays on one deal (what a message asks an external bot to run)."""
    instances: list[Instance] = field(default_factory=list)
    external: bool = False
    """Its instances are sessions its operator runs (:meth:`Instances.adopt`), not processes
    started here."""
    door: Door | None = None
    """An external bot's door, when the pool opened it (its config's token); command
    processes have a door each."""
    count: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def live(self) -> list[Instance]:
        return [p for p in self.instances if not p.gone]


@dataclass(eq=False, slots=True)
class _Choice:
    """A seat's instance: one there is, or one to start (replacing ``retire`` if set)."""

    instance: Instance | None = None
    retire: Instance | None = None


class Instances:
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
        self._fresh: set[Instance] = set()
        self._holders: dict[tuple[str, int], Instance] = {}
        self._orphans: list[tuple[Instance, Held]] = []
        """Seats whose external session left, waiting for a session that may take them."""
        self._changed = anyio.Event()
        self._pools: dict[str, _Pool] = {}
        seats = seats_per_deal(config)
        for spec in config.bots:
            pool = self.add(spec, seats_per_deal=seats[spec.name], external=spec.token is not None)
            if spec.token is not None:
                pool.door = server.open_door(
                    spec.token,
                    spec.name,
                    single=False,
                    on_enter=functools.partial(self.adopt, spec.name),
                    on_leave=self.left,
                )

    def add(self, spec: BotSpec, *, seats_per_deal: int, external: bool = False) -> _Pool:
        """A pool for one more bot (a ladder's new version), or the pool of a bot back after
        :meth:`remove`. An ``external`` bot's sessions
        join it by :meth:`adopt`; a command bot's processes are started as seats need them
        (at most ``spec.processes``, by default ``seats_per_deal``, at least 2 and at most
        :data:`MAX_DEFAULT_PROCESSES`)."""
        limit = spec.processes or max(2, min(seats_per_deal, MAX_DEFAULT_PROCESSES))
        pool = self._pools.get(spec.name)
        if pool is not None:  # a bot back after :meth:`remove`: its pool plays again
            if pool.spec != spec or pool.external != external:
                raise ValueError(f"the pools have another bot named {spec.name!r}")
            pool.limit = limit
        else:
            pool = self._pools[spec.name] = _Pool(spec, limit, seats_per_deal, external=external)
        self._change()
        return pool

    def remove(self, name: str) -> None:
        """No more games for a bot (a ladder's version superseded or retired): its idle
        processes end now, the others once their games are over; its external sessions stay
        theirs to end."""
        pool = self._pools.get(name)
        if pool is None:
            return
        for instance in pool.live():
            if not instance.external and not instance.busy:
                self.retire(instance, "its bot plays no more games")
        pool.limit = 0
        self._change()

    # -- seating ------------------------------------------------------------------------------

    async def seat(self, deal: int, specs: list[BotSpec], *, wait_s: float) -> list[Instance]:
        """Instances for the four seats of a game on ``deal`` (``specs[seat]`` is each seat's
        bot), none of which has ever held a seat of that deal. Waits while the pools are busy;
        ``NoSeat`` after ``wait_s`` seconds when an external bot has too few sessions."""
        with anyio.move_on_after(wait_s) as waiting:
            while True:
                choices = self._choose(deal, specs)
                if choices is not None:
                    return await self._take(deal, specs, choices)
                changed = self._changed
                if not any(self._pools[s.name].external for s in specs):
                    waiting.deadline = float("inf")  # command bots: the busy ones will be free
                await changed.wait()
        missing = next(s for s in specs if self._pools[s.name].external)
        raise NoSeat(missing.name, self._too_few_sessions(missing, deal))

    def _choose(self, deal: int, specs: list[BotSpec]) -> list[_Choice] | None:
        """An instance (or a process to start) for every seat, or None if the game must wait."""
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
            if pool.external:
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

    async def _take(
        self, deal: int, specs: list[BotSpec], choices: list[_Choice]
    ) -> list[Instance]:
        """Claim the chosen instances for the deal (at once, before any await), then start the
        processes the game needs."""
        instances: list[Instance] = []
        for spec, choice in zip(specs, choices, strict=True):
            if choice.retire is not None:
                self.retire(choice.retire, "a fresh process takes a deal it has seen")
            instance = choice.instance or self._new_instance(spec)
            instance.deals.add(deal)
            instance.promised += 1
            instances.append(instance)
        return instances

    def _new_instance(self, spec: BotSpec) -> Instance:
        pool = self._pools[spec.name]
        instance = Instance(spec, f"{spec.name}#{next(pool.count)}")
        if spec.fresh:
            self._fresh.add(instance)
        else:
            pool.instances.append(instance)
            token = secrets.token_hex(24)  # handed to the process in its environment only
            instance.session = self.server.open_door(token, instance.name).session()
        return instance

    # -- processes ----------------------------------------------------------------------------

    async def start(self, instance: Instance, *, ticket: str | None = None) -> None:
        """Start the instance's process (a session's, or a fresh one with ``ticket``) unless
        it runs already; ``OSError`` if it cannot be started."""
        if instance.launched is not None or instance.spec.command == ():
            if instance.launched is not None:
                await instance.launched.wait()  # another game is starting it
                if instance.process is None:
                    raise OSError(f"{instance.name} could not be started")
            return
        instance.launched = anyio.Event()
        try:
            await self._launch(instance, ticket)
        finally:
            instance.launched.set()

    async def _launch(self, instance: Instance, ticket: str | None) -> None:
        instance.stderr = self.log_dir / f"{instance.name}.stderr"
        instance.refused_before = self.server.admission.refused
        token = None
        if instance.session is not None:
            token = instance.session.door.token
            assert token is not None, "a process the arena starts is handed its token"
        link = None
        if self.config.transport == "local":
            link = await self.server.open_link(instance.name)
        instance.process = await launch(
            instance.spec,
            address=self.server.address,
            folder=self.config.folder,
            stderr=instance.stderr,
            token=token,
            ticket=ticket,
            new_session=self.detach,
            link=link,
        )
        self.started += 1
        get_logger(session=instance.name).info("process_started", pid=instance.process.process.pid)
        self.nursery.start_soon(self._watch, instance, instance.process)

    async def _watch(self, instance: Instance, process: BotProcess) -> None:
        """A process's exit is an event: the games it holds seats in are told."""
        code = await process.process.wait()
        self._gone(instance, code)

    def _gone(self, instance: Instance, code: int | None) -> None:
        if instance.gone and not instance.holding:
            return
        instance.gone = True
        if not instance.retired:
            get_logger(session=instance.name).info(
                "process_exited", code=code, open_seats=len(instance.holding)
            )
        for h in list(instance.holding.values()):
            h.on_exit(instance, code)
        if instance.session is not None and instance.process is not None:
            self.server.close_door(instance.session.door)
        self._change()

    def retire(self, instance: Instance, why: str) -> None:
        """End a process: it is given no more seats (a fresh one takes its place when needed)."""
        if instance.retired:
            return
        instance.retired = instance.gone = True
        log = get_logger(session=instance.name)
        log.info("process_retired", why=why, deals=len(instance.deals))
        if instance.session is not None:
            self.server.close_door(instance.session.door)
        if instance.process is not None:
            self.nursery.start_soon(instance.process.kill)

    def hold(self, instance: Instance, table: Table, seat: int, deal: int, on_exit: OnExit) -> None:
        """``instance`` (chosen by :meth:`seat` for ``deal``) plays ``seat`` of ``table``."""
        instance.promised = max(0, instance.promised - 1)
        instance.hold(Held(table, seat, deal, on_exit))
        self._holders[(table.name, seat)] = instance

    def holder(self, table: Table, seat: int) -> Instance | None:
        """Who plays ``seat`` of ``table`` now (it may have moved to another session)."""
        return self._holders.get((table.name, seat))

    def let_go(self, table: Table, seat: int) -> None:
        """A seat's game is over: its instance may be seated again (a fresh process is ended)."""
        instance = self._holders.pop((table.name, seat), None)
        if instance is None:
            return
        instance.let_go(table, seat)
        if instance.spec.fresh:
            instance.retired = instance.gone = True
            self._fresh.discard(instance)
            if instance.process is not None:
                self.nursery.start_soon(_end_fresh, instance.process)
        self._change()

    def adopt(self, name: str, session: Session) -> None:
        """An external session entered: it plays seats of the bot ``name`` from now on."""
        pool = self._pools[name]
        instance = Instance(pool.spec, session.name, session=session, external=True)
        pool.instances.append(instance)
        get_logger(session=session.name).info("external_session", bot=pool.spec.name)
        self._change()

    def left(self, session: Session) -> None:
        """An external session's stream ended: its open seats wait for it, or for another
        session of its bot that may take them."""
        instance = next(
            (p for pool in self._pools.values() for p in pool.instances if p.session is session),
            None,
        )
        if instance is not None:
            for held in instance.holding.values():
                if held.table.result is None:
                    self._orphans.append((instance, held))
            get_logger(session=session.name).info(
                "session_left_seats", open_seats=len(instance.holding)
            )
        self._change()

    def forget_deal(self, deal: int) -> None:
        """Every game of ``deal`` is over and no seat of it will be given again (a ladder's
        deals are never dealt twice): its instances need not remember it (a long-lived pool
        would otherwise remember every deal it ever played)."""
        for pool in self._pools.values():
            for instance in pool.instances:
                instance.deals.discard(deal)

    def names(self) -> set[str]:
        """The bots with a pool."""
        return set(self._pools)

    def room(self, name: str) -> int:
        """How many seats of a deal none of its instances has seen the bot could take now: its
        instances with room (an external bot's connected sessions), and for a command bot the
        processes it may still start."""
        pool = self._pools.get(name)
        if pool is None:
            return 0
        free = sum(1 for p in pool.live() if p.can_take(_UNSEEN_DEAL))
        if pool.external:
            return free
        return free + max(0, pool.limit - len(pool.live()))

    def _rehome(self) -> None:
        """Offer each orphaned seat to a live session of its bot that has held no seat of its
        deal (never two seats of one deal per process); a seat whose own session came back
        stays with it."""
        waiting: list[tuple[Instance, Held]] = []
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
        needed = pool.seats_per_deal
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
            for instance in pool.instances:
                if instance.session is not None and instance.process is not None:
                    self.server.close_door(instance.session.door)
                instance.retired = True
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(EXIT_GRACE_S if grace else 0):
                for process in self._processes():
                    await process.process.wait()
            async with anyio.create_task_group() as ending:  # each with its whole group
                for process in self._processes():
                    ending.start_soon(process.kill)

    def _processes(self) -> list[BotProcess]:
        instances = [p for pool in self._pools.values() for p in pool.instances]
        return [p.process for p in [*instances, *self._fresh] if p.process is not None]


async def _end_fresh(process: BotProcess) -> None:
    """A fresh process's game is over: it may exit by itself, then it is killed."""
    with anyio.move_on_after(EXIT_GRACE_S):
        await process.process.wait()
    await process.kill()
