"""Playing what the ladder scheduled: a new version's validation game, and a pair (one new deal
twice, the seats swapped, both games at once, here or on a Ray cluster), then everything of it
stored in one transaction, the live ratings moved, and each version's faults checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from chaodipi.arena.ladder import ratings
from chaodipi.arena.ladder.core import SEATS_PER_PAIR, Core, Entry
from chaodipi.arena.ladder.entries import PairKind, PairState, VersionState
from chaodipi.arena.ladder.judging import pair_outcome, validation_verdict
from chaodipi.arena.ladder.live import Playing as PlayingNow
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey
from chaodipi.arena.serving import Table
from chaodipi.arena.tournament import GameResult

__all__ = ["PairPlaying"]


class PairPlaying(Core):
    """The ladder's playing (a part of :class:`~chaodipi.arena.ladder.service.Ladder`)."""

    __slots__ = ()

    async def _validate(self, entry: Entry) -> None:
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
                PlayingNow(pair.id, "validation", version.name, version.name, pair.started_at)
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
            self._instances.forget_deal(pair.id)
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

    async def _play_pair(self, a: Entry, b: Entry, kind: PairKind) -> None:
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
                PlayingNow(pair.id, kind.value, a.version.name, b.version.name, pair.started_at)
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
        a: Entry,
        b: Entry,
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
        self._instances.forget_deal(pair_id)  # never dealt again
        return [played[False][0], played[True][0]]

    async def _pair_over(
        self, pair_id: int, kind: PairKind, a: Entry, b: Entry, results: list[GameResult]
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

    async def _check_faults(self, entry: Entry) -> None:
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
