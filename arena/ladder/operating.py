"""The operator's actions on a running ladder (:class:`~chaodipi.arena.ladder.operator
.Operator`: add a resident bot, pause, resume, retire, freeze the season), the season's final
schedule and table, and the order-free refit.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from collections.abc import Sequence

import anyio

from chaodipi.arena.ladder import ratings
from chaodipi.arena.ladder.core import SEATS_PER_PAIR, Core
from chaodipi.arena.ladder.entries import Bot, BotKind, Pair, VersionState
from chaodipi.arena.ladder.live import LadderEvent
from chaodipi.arena.ladder.operator import LadderError
from chaodipi.arena.ladder.played import RefitRow
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE
from chaodipi.arena.serving import token_digest

__all__ = ["OperatorActions"]


class OperatorActions(Core):
    """The ladder's operator's actions, season and refit (a part of
    :class:`~chaodipi.arena.ladder.service.Ladder`)."""

    __slots__ = ()
    _final_left: Counter[int] | None

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
        left: Counter[int] = Counter()
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
