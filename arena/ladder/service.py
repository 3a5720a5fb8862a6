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
import json
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.abc

from chaodipi.arena.deals import DealKey
from chaodipi.arena.files import make_private_folder
from chaodipi.arena.ladder import matchmaking, ratings
from chaodipi.arena.ladder.config import HostedBot, LadderConfig
from chaodipi.arena.ladder.entries import (
    Bot,
    BotKind,
    Pair,
    PairKind,
    PairState,
    Version,
    VersionState,
)
from chaodipi.arena.ladder.judging import pair_outcome, validation_verdict
from chaodipi.arena.ladder.live import LadderEvent, Live, Playing
from chaodipi.arena.ladder.matchmaking import Candidate, MatchmakingSettings
from chaodipi.arena.ladder.on_ray import RayTables
from chaodipi.arena.ladder.operator import LadderError
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import RefitRow, Store
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE, GameKey
from chaodipi.arena.serving import ArenaServer, Door, Session, Table, open_server, token_digest
from chaodipi.arena.tournament import (
    BotSpec,
    GameResult,
    Games,
    Instances,
)
from chaodipi.arena.v2 import arena_pb2 as pb

__all__ = ["SEATS_PER_PAIR", "Ladder"]

T = TypeVar("T")

SEATS_PER_PAIR = 4
"""A pair (and a validation game) seats four copies of each of its versions, each in a process
of its own that never sees another seat of the deal."""

TICK_S = 1.0
"""The scheduler looks again at least this often (a resident session's room can change
without an event the ladder sees)."""


@dataclass(slots=True)
class _Entry:
    """A version the ladder may play now: its bot, its pool's spec, its live rating."""

    version: Version
    bot: Bot
    rating: LiveRating
    spec: BotSpec
    pairs_played: int = 0
    last_played: float | None = None
    in_flight: int = 0
    """Its pairs (or validation game) playing now."""
    reserved: int = 0
    """Seats promised to games it starts that are not taken from its pool yet."""
    external: bool = False
    """A resident version: its processes are its owner's."""


@dataclass(slots=True)
class Ladder:
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
    _entries: dict[int, _Entry] = field(default_factory=dict)
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
                await self._schedule()
            finally:
                with anyio.CancelScope(shield=True):
                    await self._db(self.store.recover, at=self.clock())
                    await instances.close(grace=False)
                nursery.cancel_scope.cancel()

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

    def _enter(self, version: Version, bot: Bot, rating: LiveRating | None) -> _Entry:
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
        entry = self._entries[version.id] = _Entry(version, bot, rating, spec, external=external)
        self._change()
        return entry

    def _leave(self, entry: _Entry) -> None:
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
            if self._final_left is not None:  # a final pair counts once it starts
                self._final_playing += 1
                for entry in (a, b):
                    self._final_left[entry.version.id] = max(
                        0, self._final_left[entry.version.id] - 1
                    )
            self._playing += 1
            kind = PairKind.RATED if self._final_left is None else PairKind.FINAL
            self._nursery.start_soon(self._play_pair, a, b, kind)

    def _reserve(self, entry: _Entry) -> None:
        entry.in_flight += 1
        entry.reserved += SEATS_PER_PAIR

    def _room(self, entry: _Entry) -> bool:
        """Whether a new deal's four seats of the version can be taken now."""
        if 2 * (self._tables_of(entry.bot) + 2) > 2 * self._tables_cap(entry.bot):
            return False
        if self.ray is not None and not entry.external:
            return True  # its pairs with other hosted versions are played on the cluster
        return self._instances.room(entry.spec.name) - entry.reserved >= SEATS_PER_PAIR

    def _tables_of(self, bot: Bot) -> int:
        """Tables the bot's versions play now (a pair is two)."""
        return sum(2 * e.in_flight for e in self._entries.values() if e.bot.id == bot.id)

    def _schedulable(self) -> list[_Entry]:
        entries = [
            e
            for e in self._entries.values()
            if e.version.state is VersionState.ACTIVE and e.bot.paused is None and not e.bot.retired
        ]
        if self._final_left is None:
            return entries
        wanting = [e for e in entries if self._final_left[e.version.id] > 0]
        return entries if len(wanting) == 1 else wanting

    def _choose(self) -> tuple[_Entry, _Entry] | None:
        entries = self._schedulable()
        if len(entries) < 2:
            return None
        candidates = [
            Candidate(
                version=e.version.name,
                bot=e.bot.name,
                rating=e.rating,
                pairs=e.pairs_played,
                last_played=e.last_played,
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

    async def _validate(self, entry: _Entry) -> None:
        """Four copies of a new version play one secret deal: it passes, or fails with why."""
        assert self._games is not None and self._server is not None
        version = entry.version
        log = get_logger(version=version.name)
        reserved = True
        try:
            pair = await self._db(
                self.store.start_pair, PairKind.VALIDATION, version.id, version.id, at=self.clock()
            )
            self.live.started(
                Playing(pair.id, "validation", version.name, version.name, pair.started_at)
            )
            key = GameKey(version.name, version.name, pair.id, False)
            bots = {version.name: entry.spec}
            seated = await self._games.seat(key, bots)
            entry.reserved -= SEATS_PER_PAIR
            reserved = False
            over = anyio.Event()
            result, table = await self._games.play(key, bots, spectators_after=over, seated=seated)
            over.set()
            assert table.result is not None, "a table's game has ended once it is played"
            verdict = validation_verdict(result, table.result)
            self._server.release(table)
            await self._db(
                self.store.finish_pair,
                pair,
                [(result.row, result.record)],
                at=self.clock(),
                state=PairState.DONE,
                reason="passed" if verdict.passed else verdict.reason,
            )
            state = VersionState.ACTIVE if verdict.passed else VersionState.FAILED
            await self._db(
                self.store.set_version_state,
                version.id,
                state,
                verdict.reason,
                verdict.detail,
                was=VersionState.VALIDATING,  # unless a newer version superseded it meanwhile
            )
            entry.version = await self._db(self.store.version, version.id)
            log.info("validated", passed=verdict.passed, reason=verdict.reason or None)
            self.live.finished(
                pair.id,
                {
                    "kind": "validation",
                    "version": version.name,
                    "passed": verdict.passed,
                    "reason": verdict.reason,
                },
            )
            self._announce(entry.version)
            if not verdict.passed:
                self._leave(entry)
        finally:
            if reserved:
                entry.reserved -= SEATS_PER_PAIR
            entry.in_flight -= 1
            self._playing -= 1
            self._change()

    async def _play_pair(self, a: _Entry, b: _Entry, kind: PairKind) -> None:
        """One new deal twice, the seats swapped, both games at once (here, or on the Ray
        cluster when both versions are hosted and the config names one); then all of the pair
        stored in one transaction, and each version's faults checked."""
        unreserved, final_over = False, False

        def unreserve() -> None:
            nonlocal unreserved
            if not unreserved:
                unreserved = True
                a.reserved -= SEATS_PER_PAIR
                b.reserved -= SEATS_PER_PAIR

        try:
            pair = await self._db(
                self.store.start_pair, kind, a.version.id, b.version.id, at=self.clock()
            )
            self._met[frozenset((a.version.name, b.version.name))] = pair.started_at
            get_logger(pair=pair.id).info("pair_started", a=a.version.name, b=b.version.name)
            self.live.started(
                Playing(pair.id, kind.value, a.version.name, b.version.name, pair.started_at)
            )
            keys = [GameKey(a.version.name, b.version.name, pair.id, s) for s in (False, True)]
            if self.ray is not None and not (a.external or b.external):
                unreserve()  # its processes are the cluster's
                assert self._deal_key is not None
                results = await self.ray.play(keys, [a.spec, b.spec], self._deal_key)
            else:
                results = await self._play_here(pair.id, keys, a, b, unreserve)
            await self._pair_over(pair.id, kind, a, b, results)
            if kind is PairKind.FINAL:
                final_over = True
                self._final_playing -= 1
                if not self._schedulable_final() and not self._final_playing:
                    await self._season_over()
        finally:
            if kind is PairKind.FINAL and not final_over:
                self._final_playing -= 1
            unreserve()
            a.in_flight -= 1
            b.in_flight -= 1
            self._playing -= 1
            for entry in (a, b):
                if entry.version.id not in self._entries and not entry.in_flight:
                    self._instances.remove(entry.spec.name)
            self._change()

    async def _play_here(
        self,
        pair_id: int,
        keys: list[GameKey],
        a: _Entry,
        b: _Entry,
        seated: Callable[[], None],
    ) -> list[GameResult]:
        """A pair's two games on this ladder's table server: each game's four seats taken from
        the pools at once (then ``seated()``), both games at once, their tables released once
        both are over (their spectators wait for that)."""
        assert self._games is not None and self._server is not None
        bots = {a.version.name: a.spec, b.version.name: b.spec}
        seats = [await self._games.seat(key, bots) for key in keys]
        seated()
        over = anyio.Event()
        played: dict[bool, tuple[GameResult, Table]] = {}

        async def game(key: GameKey, chosen: Any) -> None:
            assert self._games is not None
            played[key.swapped] = await self._games.play(
                key, bots, spectators_after=over, seated=chosen
            )
            self.live.game_over(pair_id)

        async with anyio.create_task_group() as both:
            for key, chosen in zip(keys, seats, strict=True):
                both.start_soon(game, key, chosen)
        over.set()  # the deal is over: its games may be watched
        for _, table in played.values():
            self._server.release(table)
        return [played[False][0], played[True][0]]

    async def _pair_over(
        self, pair_id: int, kind: PairKind, a: _Entry, b: _Entry, results: list[GameResult]
    ) -> None:
        score, why = pair_outcome([r.row for r in results])
        rated: dict[int, LiveRating] = {}
        if score is not None:
            new_a, new_b = ratings.rate_pair(a.rating, b.rating, score)
            rated = {e.version.id: r for e, r in ((a, new_a), (b, new_b)) if not r.pinned}
        pair = await self._db(self.store.pair, pair_id)
        assert pair is not None
        stored = await self._db(
            self.store.finish_pair,
            pair,
            [(r.row, r.record) for r in results],
            at=self.clock(),
            state=PairState.DONE if score is not None else PairState.VOID,
            score_a=score,
            reason=why,
            rated=rated,
        )
        if score is not None:
            a.rating, b.rating = new_a, new_b
            for entry in (a, b):
                entry.pairs_played += 1
                entry.last_played = stored.finished_at
        if score is None and kind is PairKind.FINAL and self._final_left is not None:
            self._final_left.update((a.version.id, b.version.id))  # a void pair is played again
        get_logger(pair=pair_id).info(
            "pair_over", a=a.version.name, b=b.version.name, score_a=score, void=why or None
        )
        self.live.finished(
            pair_id,
            {
                "kind": kind.value,
                "version_a": a.version.name,
                "version_b": b.version.name,
                "score_a": score,
                "void": why or None,
            },
        )
        for entry in (a, b):
            await self._check_faults(entry)

    async def _check_faults(self, entry: _Entry) -> None:
        """Pause a version once its share of faulty games passed the ladder's rate."""
        if entry.version.state is not VersionState.ACTIVE:
            return
        faults = await self._db(self.store.faults, entry.version.id)
        if faults.games < self.config.fault_games or faults.rate <= self.config.fault_rate:
            return
        reason = (
            f"faults in {faults.faulty_games} of its {faults.games} games ({faults.rate:.0%}, "
            f"over this ladder's {self.config.fault_rate:.0%}): {faults.strikes} strikes, "
            f"{faults.illegal} illegal answers, {faults.crashes} crashes, {faults.fallbacks} "
            "fallbacks; a new version, or `arena ladder resume`, brings it back"
        )
        await self._db(
            self.store.set_version_state,
            entry.version.id,
            VersionState.PAUSED,
            reason,
            was=VersionState.ACTIVE,
        )
        entry.version = await self._db(self.store.version, entry.version.id)
        get_logger(version=entry.version.name).warning("version_paused", reason=reason)
        self._announce(entry.version)
        self._leave(entry)

    # -- ratings ---------------------------------------------------------------------------------

    async def _refits(self) -> None:
        """The order-free refit, now and every ``refit_minutes``."""
        while True:
            await self.refit()
            await anyio.sleep(self.config.refit_minutes * 60)

    async def refit(self) -> None:
        """Fit every rated pair again (in a worker thread) and publish it."""
        pairs = await self._db(self.store.pairs)
        if not pairs:
            return
        versions = {v.id: v for v in await self._db(self.store.versions)}
        counts = Counter[int]()
        results = []
        for pair in pairs:
            if pair.score_a is None:
                continue
            counts.update((pair.version_a, pair.version_b))
            a, b = versions[pair.version_a].name, versions[pair.version_b].name
            results.append((a, b, pair.score_a))
        rated = [v for v in versions.values() if counts[v.id]]
        pinned = {v.name: v.pinned_elo for v in rated if v.pinned_elo is not None}
        names = [v.name for v in rated]
        fitted = await anyio.to_thread.run_sync(ratings.refit, names, results, pinned)
        rows = [
            RefitRow(v.id, r.elo, r.elo - r.error, r.elo + r.error, counts[v.id])
            for v in rated
            for r in (fitted[v.name],)
        ]
        await self._db(self.store.add_refit, self.clock(), len(results), rows)
        self.live.publish(LadderEvent("refit", {"pairs": len(results)}))

    # -- the season ------------------------------------------------------------------------------

    def _plan_final(self, final_pairs: int, final_played: Sequence[Pair] = ()) -> None:
        """Each active version's final pairs, less those played."""
        left = Counter[int]()
        for entry in self._entries.values():
            if entry.version.state is VersionState.ACTIVE:
                left[entry.version.id] = final_pairs
        for pair in final_played:
            for version in (pair.version_a, pair.version_b):
                if left[version] > 0:
                    left[version] -= 1
        self._final_left = left

    def _schedulable_final(self) -> bool:
        return self._final_left is not None and any(n > 0 for n in self._final_left.values())

    async def _season_over(self) -> None:
        """Every version has played its final pairs: the final table is the refit of the
        whole season."""
        if await self._db(self.store.get_meta, "final") is not None:
            return
        await self.refit()
        latest = await self._db(self.store.latest_refit)
        if latest is None:
            return
        at, count, rows = latest
        table = sorted(rows.values(), key=lambda r: -r.elo)
        final = [
            {"version": r.version, "elo": r.elo, "low": r.low, "high": r.high, "pairs": r.pairs}
            for r in table
        ]
        document = json.dumps({"at": at, "pairs": count, "table": final})
        await self._db(self.store.set_meta, "final", document)
        self.live.publish(LadderEvent("refit", {"final": True, "pairs": count}))

    # -- the operator (chaodipi.arena.ladder.operator.Operator) ---------------------------------

    async def add_bot(
        self, name: str, *, max_sessions: int | None = None, max_tables: int | None = None
    ) -> str:
        if not BOT_NAME.fullmatch(name):
            raise LadderError(f"bot name {name!r}: {BOT_NAME_RULE}")
        for limit, key in ((max_sessions, "max_sessions"), (max_tables, "max_tables")):
            if limit is not None and limit < SEATS_PER_PAIR:
                raise LadderError(
                    f"{key}: must be at least {SEATS_PER_PAIR} (a pair seats four copies of a "
                    f"bot), not {limit}"
                )
        if await self._db(self.store.bot, name) is not None:
            raise LadderError(f"the ladder has a bot named {name!r} already", 409)
        token = secrets.token_urlsafe(32)
        bot = await self._db(
            self.store.add_bot,
            name,
            BotKind.RESIDENT,
            at=self.clock(),
            token_digest=token_digest(token),
            max_sessions=max_sessions,
            max_tables=max_tables,
        )
        self._bots[bot.id] = bot
        self._labels[bot.id] = set()
        self._open_door(bot)
        get_logger(bot=name).info("bot_added")
        return token

    async def _bot_named(self, name: str) -> Bot:
        bot = await self._db(self.store.bot, name)
        if bot is None:
            raise LadderError(f"the ladder has no bot named {name!r}", 404)
        return bot

    async def pause(self, name: str, reason: str) -> None:
        bot = await self._bot_named(name)
        why = reason or "paused by the operator"
        await self._db(self.store.update_bot, bot.id, paused=why)
        self._refresh_bot(await self._bot_named(name))
        get_logger(bot=name).info("bot_paused", reason=why)

    async def resume(self, name: str) -> None:
        bot = await self._bot_named(name)
        if bot.retired:
            raise LadderError(f"bot {name} is retired: it does not come back", 409)
        await self._db(self.store.update_bot, bot.id, paused=None)
        for version in await self._db(self.store.versions, bot_id=bot.id):
            if version.state is VersionState.PAUSED:
                await self._db(self.store.set_version_state, version.id, VersionState.ACTIVE)
                fresh = await self._db(self.store.version, version.id)
                live = await self._db(self.store.live_ratings)
                self._enter(fresh, bot, live.get(version.id))
        self._refresh_bot(await self._bot_named(name))
        get_logger(bot=name).info("bot_resumed")

    async def retire(self, name: str) -> None:
        bot = await self._bot_named(name)
        await self._db(self.store.update_bot, bot.id, retired=True)
        for version in await self._db(self.store.versions, bot_id=bot.id):
            if version.state in (VersionState.ACTIVE, VersionState.VALIDATING, VersionState.PAUSED):
                await self._db(
                    self.store.set_version_state, version.id, VersionState.RETIRED, "retired"
                )
        for entry in [e for e in self._entries.values() if e.bot.id == bot.id]:
            self._leave(entry)
        door = self._doors.pop(bot.id, None)
        if door is not None and self._server is not None:
            self._server.close_door(door)
        self._refresh_bot(await self._bot_named(name))
        get_logger(bot=name).info("bot_retired")

    async def freeze(self, final_pairs: int) -> None:
        if final_pairs < 1:
            raise LadderError(f"final_pairs: must be at least 1, not {final_pairs}")
        if self._final_left is not None:
            raise LadderError("the season is frozen already", 409)
        await self._db(self.store.freeze, self.clock(), final_pairs)
        self._plan_final(final_pairs)
        get_logger(ladder=self.config.name).info("season_frozen", final_pairs=final_pairs)
        self.live.publish(LadderEvent("refit", {"frozen": True, "final_pairs": final_pairs}))

    def _refresh_bot(self, bot: Bot) -> None:
        self._bots[bot.id] = bot
        for entry in self._entries.values():
            if entry.bot.id == bot.id:
                entry.bot = bot
        self._change()
