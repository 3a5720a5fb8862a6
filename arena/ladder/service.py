"""The running ladder (``arena ladder serve``): it keeps every bot that can play playing, rates
each pair as it ends, and serves its pages, until it is stopped.

```
 resident bots ──Enter(token, bot_version)──► the table server (gRPC, the config's address):
                                              a door per bot, by its token's digest; each
                                              session joins its version's pool
 hosted bots (rungs, [bots.NAME]) ◄─ started by their version's pool
 Ladder.run: abandon what was playing, register the hosted bots, open the resident bots'
   doors, serve the pages; then until stopped:
     schedule (on every change, and each second): validations first, then pairs from the
       matchmaking, up to `concurrency` at once
     a pair: one new deal, two games at once (the seats swapped) → one transaction (both
       games, the score, both live ratings) → each version's faults checked → pages told
     refit: every refit_minutes, order-free, over every rated pair
```

Everything runs on one asyncio loop with the table server; the database is written in a
worker thread, one write at a time (:class:`~chaodipi.arena.ladder.store.Store` blocks).
Nothing of a pair is stored until both its games have ended, and then all of it at once, so a
ladder killed at any moment keeps each finished pair once, rated once, and abandons (never
replays) what was playing.
"""

from __future__ import annotations

import functools
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.abc

from chaodipi.arena.deals import DealKey
from chaodipi.arena.files import make_private_folder
from chaodipi.arena.ladder import matchmaking, ratings
from chaodipi.arena.ladder.config import HostedBot, LadderConfig
from chaodipi.arena.ladder.core import SEATS_PER_PAIR, Entry
from chaodipi.arena.ladder.entries import (
    Bot,
    BotKind,
    PairKind,
    Version,
    VersionState,
)
from chaodipi.arena.ladder.live import LadderEvent, Live
from chaodipi.arena.ladder.matchmaking import Candidate, MatchmakingSettings
from chaodipi.arena.ladder.on_ray import RayTables
from chaodipi.arena.ladder.operating import OperatorActions
from chaodipi.arena.ladder.operator import LadderError
from chaodipi.arena.ladder.playing import PairPlaying
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving import ArenaServer, Door, Session, open_server
from chaodipi.arena.tournament import (
    BotSpec,
    Games,
    Instances,
    bound_stderr,
)
from chaodipi.arena.v2 import arena_pb2 as pb

__all__ = ["Ladder"]

T = TypeVar("T")

TICK_S = 1.0
"""The scheduler looks again at least this often (a resident session's room can change
without an event the ladder sees)."""

STDERR_CHECK_S = 60.0
"""How often the bots' stderr files are checked against their bound."""


@dataclass(slots=True)
class Ladder(PairPlaying, OperatorActions):
    """One ladder, from :meth:`run` to its end. ``clock``: seconds since the epoch."""

    config: LadderConfig
    store: Store
    log_dir: Path
    operator_digest: str | None = None
    """The operator token's digest: the pages' operator API compares what it is sent with it."""
    clock: Callable[[], float] = time.time
    live: Live = field(default_factory=Live)
    on_ready: Callable[[str, str], None] | None = None
    """Told (the gRPC address, the pages' address) once both listen."""
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    ray: RayTables | None = None
    """Where pairs of two hosted versions are played, when the config names a Ray cluster."""
    _entries: dict[int, Entry] = field(default_factory=dict)
    """The versions that may play, by id."""
    _bots: dict[int, Bot] = field(default_factory=dict)
    _doors: dict[int, Door] = field(default_factory=dict)
    _labels: dict[int, set[str]] = field(default_factory=dict)
    """Each bot's version labels: a session naming another is a new version."""
    _entering: dict[int, anyio.Lock] = field(default_factory=dict)
    """Each resident bot's sessions are taken in one at a time."""
    _met: dict[frozenset[str], float] = field(default_factory=dict)
    """When each two versions (by name) last began a pair."""
    _final_left: Counter[int] | None = None
    """In a frozen season, the final pairs each version has still to play; None before."""
    _playing: int = 0
    """Pairs and validation games started and not over (each takes a slot of
    ``concurrency``)."""
    _final_playing: int = 0
    """The season's final pairs started and not over."""
    _changed: anyio.Event = field(default_factory=anyio.Event)
    _writes: anyio.CapacityLimiter = field(default_factory=lambda: anyio.CapacityLimiter(1))
    _server: ArenaServer | None = None
    _games: Games | None = None
    _nursery: anyio.abc.TaskGroup | None = None
    _deal_key: DealKey | None = None

    # -- the store, off the loop ---------------------------------------------------------------

    async def _db(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A store call in a worker thread, one at a time."""
        bound = functools.partial(call, *args, **kwargs)
        return await anyio.to_thread.run_sync(bound, limiter=self._writes)

    # -- running -------------------------------------------------------------------------------

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Run the ladder until cancelled; on leaving, what was playing is abandoned (its deals
        never dealt again) and every bot process ends."""
        log = get_logger(ladder=self.config.name)
        abandoned = await self._db(self.store.recover, at=self.clock())
        if abandoned:
            log.info("pairs_abandoned", pairs=[p.id for p in abandoned])
        deal_key = self._deal_key = await self._db(self.store.deal_key)
        make_private_folder(self.log_dir)  # the bots' stderr
        settings = self.config.table_settings()
        tls = self.config.tls
        async with (
            open_server(
                self.config.address,
                plaintext=tls is None,
                tls_cert=None if tls is None else tls[0].read_bytes(),
                tls_key=None if tls is None else tls[1].read_bytes(),
            ) as server,
            anyio.create_task_group() as nursery,
        ):
            self._server, self._nursery = server, nursery
            instances = Instances(settings, server, nursery, self.log_dir)
            self._games = Games(settings, server, instances, deal_key)
            try:
                await self._load()
                web = await nursery.start(self._serve_web) if self.config.web else ""
                if self.on_ready is not None:
                    self.on_ready(server.address, web)
                log.info("ladder_ready", address=server.address, web=web)
                task_status.started()
                nursery.start_soon(self._refits)
                nursery.start_soon(self._bound_stderr)
                await self._schedule()
            finally:
                with anyio.CancelScope(shield=True):
                    await self._db(self.store.recover, at=self.clock())
                    await instances.close(grace=False)
                nursery.cancel_scope.cancel()

    async def _bound_stderr(self) -> None:
        """Every minute, each hosted bot's stderr file cut to its last megabyte once it
        passes eight (:func:`~chaodipi.arena.tournament.processes.bound_stderr`): a season's
        chatty bot cannot fill the disk."""
        while True:
            await anyio.sleep(STDERR_CHECK_S)
            files = sorted(self.log_dir.glob("*.stderr"))
            for path in files:
                cut = await anyio.to_thread.run_sync(bound_stderr, path)
                if cut:
                    get_logger().warning("stderr_cut", file=path.name, bytes=cut)

    async def _serve_web(self, *, task_status: anyio.abc.TaskStatus[str]) -> None:
        from chaodipi.arena.ladder.web import create_app, serve_web

        app = create_app(
            self.store,
            self.live,
            operator=self,
            operator_digest=self.operator_digest,
            title=self.config.name,
            provisional_width=self.config.provisional_width,
        )
        await serve_web(app, self.config.web, tls=self.config.tls, task_status=task_status)

    @property
    def _instances(self) -> Instances:
        assert self._games is not None
        return self._games.instances

    # -- bots and versions -----------------------------------------------------------------------

    async def _load(self) -> None:
        """The hosted bots from the config (a changed command: a new version), the resident
        bots' doors, every version's pool and rating, the season."""
        now = self.clock()
        for hosted in self.config.hosted:
            await self._host(hosted, now)
        live = await self._db(self.store.live_ratings)
        played = Counter[int]()
        last: dict[int, float] = {}
        for pair in await self._db(self.store.pairs):
            for side in (pair.version_a, pair.version_b):
                played[side] += 1
                last[side] = max(last.get(side, 0.0), pair.finished_at or 0.0)
        names = {v.id: v.name for v in await self._db(self.store.versions)}
        met = await self._db(self.store.last_met)
        self._met = {frozenset(names[v] for v in couple): at for couple, at in met.items()}
        for bot in await self._db(self.store.bots):
            self._bots[bot.id] = bot
            versions = await self._db(self.store.versions, bot_id=bot.id)
            self._labels[bot.id] = {v.label for v in versions}
            if bot.kind is BotKind.RESIDENT and not bot.retired:
                self._open_door(bot)
            for version in versions:
                if version.state in (VersionState.ACTIVE, VersionState.VALIDATING):
                    entry = self._enter(version, bot, live.get(version.id))
                    entry.pairs_played = played[version.id]
                    entry.last_played = last.get(version.id)
        season = await self._db(self.store.season)
        if season is not None:
            final = await self._db(self.store.pairs, kinds=(PairKind.FINAL,))
            self._plan_final(int(season["final_pairs"]), final_played=final)

    async def _host(self, hosted: HostedBot, now: float) -> None:
        """A hosted bot's version is its command: a new command is a new version."""
        kind = BotKind.RUNG if hosted.rung else BotKind.HOSTED
        bot = await self._db(self.store.bot, hosted.name)
        if bot is None:
            bot = await self._db(
                self.store.add_bot, hosted.name, kind, at=now, command=hosted.label
            )
        elif bot.kind is BotKind.RESIDENT:
            raise LadderError(
                f"bots.{hosted.name}: the ladder has a resident bot of that name; give the "
                "hosted bot another name"
            )
        known = {v.label for v in await self._db(self.store.versions, bot_id=bot.id)}
        if hosted.label not in known and await self._db(self.store.season) is not None:
            get_logger(bot=bot.name).warning(
                "version_refused", why="the season is frozen: its new command waits for the next"
            )
            return
        pinned = self.config.pinned(hosted.name)
        await self._db(self.store.version_of, bot, hosted.label, at=now, pinned_elo=pinned)

    def _enter(self, version: Version, bot: Bot, rating: LiveRating | None) -> Entry:
        """Give a version a pool and a rating (once)."""
        entry = self._entries.get(version.id)
        if entry is not None:
            return entry
        external = bot.kind is BotKind.RESIDENT
        # a hosted version's label is its command
        spec = BotSpec(version.name) if external else self.config.spec(version.name, version.label)
        tables = min(2 * self.config.concurrency, self._tables_cap(bot))
        self._instances.add(spec, seats_per_deal=2 * tables, external=external)
        if version.pinned_elo is not None:
            rating = LiveRating.pinned_at(version.pinned_elo)  # never moved, never stored
        elif rating is None:
            rating = LiveRating.newcomer()
        entry = self._entries[version.id] = Entry(version, bot, rating, spec, external=external)
        self._change()
        return entry

    def _leave(self, entry: Entry) -> None:
        """A version leaves the schedule (superseded, paused, retired, failed); its pool ends
        once its games in play are over."""
        self._entries.pop(entry.version.id, None)
        if not entry.in_flight:
            self._instances.remove(entry.spec.name)

    def _tables_cap(self, bot: Bot) -> int:
        return bot.max_tables or self.config.tables_per_bot

    def _open_door(self, bot: Bot) -> None:
        """Resident bots come in through a door opened with their token's digest."""
        assert self._server is not None and bot.token_digest is not None
        self._doors[bot.id] = self._server.open_door(
            None,
            bot.name,
            digest=bot.token_digest,
            single=False,
            on_enter=functools.partial(self._session_entered, bot.id),
            on_leave=self._session_left,
            on_refuse=functools.partial(self._refusal, bot.id),
        )

    def _refusal(self, bot_id: int, request: pb.EnterRequest) -> str | None:
        """Why a new session of a resident bot is turned away, if it is."""
        bot = self._bots[bot_id]
        door = self._doors[bot_id]
        open_now = sum(1 for s in door.sessions.values() if s.connected)
        cap = bot.max_sessions or self.config.sessions_per_bot
        if open_now >= cap:
            return (
                f"bot {bot.name} holds {open_now} sessions, the most this ladder allows it "
                "(sessions_per_bot): end one, or ask the operator for more"
            )
        label = request.bot_version[:64]
        if self._final_left is not None and label not in self._labels.get(bot_id, set()):
            return (
                f"the season is frozen: no new versions; bot {bot.name} may play on with a "
                f"version the ladder knows ({', '.join(sorted(self._labels[bot_id])) or 'none'})"
            )
        return None

    def _session_entered(self, bot_id: int, session: Session) -> None:
        assert self._nursery is not None
        self._nursery.start_soon(self._resident_session, bot_id, session)

    async def _resident_session(self, bot_id: int, session: Session) -> None:
        """A resident bot's session entered: it plays for the version it names. A version the
        ladder has not seen is made (validated before it is rated) and supersedes the bot's
        others."""
        bot = self._bots[bot_id]
        label = session.bot_version
        async with self._entering.setdefault(bot_id, anyio.Lock()):  # its sessions in turn
            new = label not in self._labels.setdefault(bot_id, set())
            version = await self._db(self.store.version_of, bot, label, at=self.clock())
            self._labels[bot_id].add(label)
            if new:
                get_logger(bot=bot.name).info("version_new", version=version.name)
                for other in [e for e in self._entries.values() if e.bot.id == bot_id]:
                    if other.version.id != version.id:
                        self._leave(other)
                self._announce(version)
            if version.state in (VersionState.ACTIVE, VersionState.VALIDATING):
                self._enter(version, bot, None)
            if version.name in self._instances.names():
                self._instances.adopt(version.name, session)
        self._change()

    def _session_left(self, session: Session) -> None:
        self._instances.left(session)
        self._change()

    def _announce(self, version: Version) -> None:
        data = {"version": version.name, "state": version.state.value, "reason": version.reason}
        self.live.publish(LadderEvent("version", data))

    # -- scheduling ------------------------------------------------------------------------------

    def _change(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def _schedule(self) -> None:
        """Start what can start; then wait for a change, or a tick."""
        while True:
            changed = self._changed
            self._start_what_can()
            with anyio.move_on_after(TICK_S):
                await changed.wait()

    def _slots_free(self) -> int:
        return self.config.concurrency - self._playing

    def _start_what_can(self) -> None:
        assert self._nursery is not None
        for entry in list(self._entries.values()):  # a new version shows it plays first
            if self._slots_free() <= 0:
                return
            state = entry.version.state
            if state is VersionState.VALIDATING and not entry.in_flight and self._room(entry):
                self._reserve(entry)
                self._playing += 1
                self._nursery.start_soon(self._validate, entry)
        while self._slots_free() > 0:
            chosen = self._choose()
            if chosen is None:
                return
            a, b = chosen
            self._reserve(a)
            self._reserve(b)
            # met from now: the next choice in this loop sees it (the pair's start is stored later)
            self._met[frozenset((a.version.name, b.version.name))] = self.clock()
            if self._final_left is not None:  # a final pair counts once it starts
                self._final_playing += 1
                for entry in (a, b):
                    self._final_left[entry.version.id] = max(
                        0, self._final_left[entry.version.id] - 1
                    )
            self._playing += 1
            kind = PairKind.RATED if self._final_left is None else PairKind.FINAL
            self._nursery.start_soon(self._play_pair, a, b, kind)

    def _reserve(self, entry: Entry) -> None:
        entry.in_flight += 1
        entry.reserved += SEATS_PER_PAIR

    def _room(self, entry: Entry) -> bool:
        """Whether a new deal's four seats of the version can be taken now."""
        if 2 * (self._tables_of(entry.bot) + 2) > 2 * self._tables_cap(entry.bot):
            return False
        if self.ray is not None and not entry.external:
            return True  # its pairs with other hosted versions are played on the cluster
        return self._instances.room(entry.spec.name) - entry.reserved >= SEATS_PER_PAIR

    def _tables_of(self, bot: Bot) -> int:
        """Tables the bot's versions play now (a pair is two)."""
        return sum(2 * e.in_flight for e in self._entries.values() if e.bot.id == bot.id)

    def _schedulable(self) -> list[Entry]:
        entries = [
            e
            for e in self._entries.values()
            if e.version.state is VersionState.ACTIVE and e.bot.paused is None and not e.bot.retired
        ]
        if self._final_left is None:
            return entries
        wanting = [e for e in entries if self._final_left[e.version.id] > 0]
        return entries if len(wanting) == 1 else wanting

    def _choose(self) -> tuple[Entry, Entry] | None:
        entries = self._schedulable()
        if len(entries) < 2:
            return None
        candidates = [
            Candidate(
                version=e.version.name,
                bot=e.bot.name,
                rating=e.rating,
                pairs=e.pairs_played + e.in_flight,  # a pair playing counts, as just played
                last_played=self.clock() if e.in_flight else e.last_played,
                free=self._room(e),
                provisional=ratings.provisional(e.rating, self.config.provisional_width),
            )
            for e in entries
        ]
        settings = MatchmakingSettings(rematch_s=self.config.rematch_minutes * 60)
        picked = matchmaking.next_pairing(candidates, self._met, self.clock(), self.rng, settings)
        if picked is None:
            return None
        by_name = {e.version.name: e for e in entries}
        return by_name[picked.seed], by_name[picked.opponent]

    # -- playing ---------------------------------------------------------------------------------
