"""What a ladder played and rated, as its pages, its status and its scheduler read it: each
stored game (:class:`StoredGame`) with its record and review, each version's faults
(:class:`FaultCounts`) and pairs played, its live rating after each pair, and the refits
(:class:`RefitRow`). :class:`PlayedReads` is the part of :class:`~chaodipi.arena.ladder.store
.Store` that reads them (a few grouped queries however many versions, games or pairs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, RowMapping

from chaodipi.arena.ladder.entries import PairKind, PairState
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.schema import (
    GAME_COUNTS,
    bots,
    games,
    pairs,
    ratings,
    refit_ratings,
    refits,
    versions,
)
from chaodipi.arena.results import GameKey, GameRow

__all__ = ["FaultCounts", "PlayedReads", "RefitRow", "StoredGame"]


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as stored: its row (bot names are version names) and its pair."""

    id: int
    pair_id: int
    version_a: int
    version_b: int
    row: GameRow
    finished_at: float
    has_review: bool


@dataclass(frozen=True, slots=True)
class FaultCounts:
    """A version's faults over its stored games (each game counts its own team's)."""

    games: int = 0
    strikes: int = 0
    illegal: int = 0
    crashes: int = 0
    fallbacks: int = 0
    forfeits: int = 0
    faulty_games: int = 0
    """Games with any strike, illegal answer, crash or fallback of its team."""

    @property
    def rate(self) -> float:
        """The share of its games with a fault (0 with no game)."""
        return self.faulty_games / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class RefitRow:
    """One version's rating in a refit."""

    version: int
    elo: float
    low: float
    high: float
    pairs: int


class PlayedReads:
    """Reading what was played and rated (a part of :class:`~chaodipi.arena.ladder.store
    .Store`, which opens the connections)."""

    __slots__ = ()

    def _read(self) -> AbstractContextManager[Connection]:
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Connection]:
        raise NotImplementedError

    # -- games --------------------------------------------------------------------------------

    def games(
        self, *, pair_id: int | None = None, version: int | None = None, limit: int | None = None
    ) -> list[StoredGame]:
        """Stored games (a pair's, or a version's), newest first when limited."""
        query = sa.select(games.c.id)
        if pair_id is not None:
            query = query.where(games.c.pair_id == pair_id)
        if version is not None:
            query = query.where(sa.or_(games.c.version_a == version, games.c.version_b == version))
        query = query.order_by(games.c.id.desc() if limit is not None else games.c.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as db:
            ids = [int(i) for i in db.execute(query).scalars()]
            return self._games(db, ids)

    def games_of_pairs(self, pair_ids: Iterable[int]) -> dict[int, list[StoredGame]]:
        """The stored games of each of these pairs (a pair stored without games: none), in
        the order they were stored."""
        wanted = sorted(set(pair_ids))
        found: dict[int, list[StoredGame]] = {pair: [] for pair in wanted}
        if not wanted:
            return found
        query = sa.select(games.c.id).where(games.c.pair_id.in_(wanted)).order_by(games.c.id)
        with self._read() as db:
            for game in self._games(db, [int(i) for i in db.execute(query).scalars()]):
                found[game.pair_id].append(game)
        return found

    def game(self, game_id: int) -> StoredGame | None:
        with self._read() as db:
            found = self._games(db, [game_id])
        return found[0] if found else None

    def _games(self, db: Connection, ids: Sequence[int]) -> list[StoredGame]:
        """These games (those stored), in the order of ``ids``: two queries, whatever their
        number."""
        if not ids:
            return []
        columns = [c for c in games.c if c.name not in ("record", "review")]
        rows = {
            int(row["id"]): row
            for row in db.execute(
                sa.select(*columns, (games.c.review.is_not(None)).label("reviewed")).where(
                    games.c.id.in_(list(ids))
                )
            ).mappings()
        }
        names = _version_names(
            db, [int(row[side]) for row in rows.values() for side in ("version_a", "version_b")]
        )
        return [_stored_game(rows[i], names) for i in ids if i in rows]

    def record(self, game_id: int) -> bytes | None:
        """A stored game's record (zlib JSON lines), or None."""
        with self._read() as db:
            blob = db.execute(sa.select(games.c.record).where(games.c.id == game_id)).scalar()
        return None if blob is None else bytes(blob)

    def review(self, game_id: int) -> dict[str, Any] | None:
        with self._read() as db:
            blob = db.execute(sa.select(games.c.review).where(games.c.id == game_id)).scalar()
        return None if blob is None else dict(json.loads(bytes(blob)))

    def set_review(self, game_id: int, review: Mapping[str, Any]) -> None:
        with self._write() as db:
            db.execute(
                sa.update(games)
                .where(games.c.id == game_id)
                .values(review=json.dumps(review).encode("utf-8"))
            )

    def faults(self, version: int) -> FaultCounts:
        """A version's faults over its stored games."""
        with self._read() as db:
            return _faults(db, version).get(version, FaultCounts())

    def all_faults(self) -> dict[int, FaultCounts]:
        """Each version's faults over its stored games (a version with no game: none), in a
        few grouped queries, however many versions."""
        with self._read() as db:
            return _faults(db, None)

    def pairs_played(self) -> dict[int, tuple[int, float]]:
        """For each version that finished a rated pair (a final pair counts): how many it
        finished, and when its last one finished."""
        done = (pairs.c.state == PairState.DONE.value) & pairs.c.kind.in_(
            [PairKind.RATED.value, PairKind.FINAL.value]
        )
        played: dict[int, tuple[int, float]] = {}
        with self._read() as db:
            for side in (pairs.c.version_a, pairs.c.version_b):
                query = (
                    sa.select(side, sa.func.count(), sa.func.max(pairs.c.finished_at))
                    .where(done)
                    .group_by(side)
                )
                for version, count, last in db.execute(query):
                    before, when = played.get(int(version), (0, float(last)))
                    played[int(version)] = (before + int(count), max(when, float(last)))
        return played

    # -- ratings ------------------------------------------------------------------------------

    def live_ratings(self) -> dict[int, LiveRating]:
        """Each version's live rating after its last rated pair (a pinned rung's is never
        stored: it does not move)."""
        latest = (
            sa.select(ratings.c.version_id, sa.func.max(ratings.c.pair_id).label("pair_id"))
            .group_by(ratings.c.version_id)
            .subquery()
        )
        query = sa.select(ratings.c.version_id, ratings.c.mu, ratings.c.sigma).join(
            latest,
            sa.and_(
                ratings.c.version_id == latest.c.version_id, ratings.c.pair_id == latest.c.pair_id
            ),
        )
        with self._read() as db:
            return {
                int(v): LiveRating(float(mu), float(sigma)) for v, mu, sigma in db.execute(query)
            }

    def rating_history(self, version: int) -> list[tuple[int, float, LiveRating]]:
        """A version's live rating after each of its pairs: (pair, time, rating), in order."""
        query = (
            sa.select(ratings.c.pair_id, ratings.c.at, ratings.c.mu, ratings.c.sigma)
            .where(ratings.c.version_id == version)
            .order_by(ratings.c.pair_id)
        )
        with self._read() as db:
            return [
                (int(p), float(at), LiveRating(float(mu), float(sigma)))
                for p, at, mu, sigma in db.execute(query)
            ]

    def add_refit(self, at: float, pairs_count: int, rows: Iterable[RefitRow]) -> int:
        with self._write() as db:
            result = db.execute(sa.insert(refits).values(at=at, pairs=pairs_count))
            key = result.inserted_primary_key
            assert key is not None
            refit_id = int(key[0])
            for row in rows:
                db.execute(
                    sa.insert(refit_ratings).values(
                        refit_id=refit_id,
                        version_id=row.version,
                        elo=row.elo,
                        low=row.low,
                        high=row.high,
                        pairs=row.pairs,
                    )
                )
        return refit_id

    def latest_refit(self) -> tuple[float, int, dict[int, RefitRow]] | None:
        """The last refit: its time, the pairs it saw, and its rating of each version."""
        with self._read() as db:
            head = db.execute(
                sa.select(refits.c.id, refits.c.at, refits.c.pairs).order_by(refits.c.id.desc())
            ).first()
            if head is None:
                return None
            rows = db.execute(
                sa.select(refit_ratings).where(refit_ratings.c.refit_id == head[0])
            ).mappings()
            found = {
                int(r["version_id"]): RefitRow(
                    int(r["version_id"]),
                    float(r["elo"]),
                    float(r["low"]),
                    float(r["high"]),
                    int(r["pairs"]),
                )
                for r in rows
            }
        return float(head[1]), int(head[2]), found


def _stored_game(row: RowMapping, names: Mapping[int, str]) -> StoredGame:
    key = GameKey(
        names[int(row["version_a"])],
        names[int(row["version_b"])],
        int(row["pair_id"]),
        bool(row["swapped"]),
    )
    values = {column: row[column] for column in GAME_COUNTS}
    return StoredGame(
        int(row["id"]),
        int(row["pair_id"]),
        int(row["version_a"]),
        int(row["version_b"]),
        GameRow(key=key, id=int(row["id"]), **values),
        float(row["finished_at"]),
        bool(row["reviewed"]),
    )


def _faults(db: Connection, version: int | None) -> dict[int, FaultCounts]:
    """The faults of ``version`` (None: of every version) over its stored games: each game
    counts its own team's, a validation game (both teams the version) only its forfeit."""
    totals: dict[int, list[int]] = {}
    for side, other in (("a", "b"), ("b", "a")):
        column = games.c[f"version_{side}"]
        strikes = games.c[f"strikes_{side}"]
        illegal = games.c[f"illegal_{side}"]
        crashes = games.c[f"crashes_{side}"]
        fallbacks = games.c[f"fallbacks_{side}"]
        query = (
            sa.select(
                column,
                sa.func.count(),
                sa.func.coalesce(sa.func.sum(strikes), 0),
                sa.func.coalesce(sa.func.sum(illegal), 0),
                sa.func.coalesce(sa.func.sum(crashes), 0),
                sa.func.coalesce(sa.func.sum(fallbacks), 0),
                sa.func.coalesce(
                    sa.func.sum(sa.case((strikes + illegal + crashes + fallbacks > 0, 1), else_=0)),
                    0,
                ),
            )
            .where(column != games.c[f"version_{other}"])
            .group_by(column)
        )
        if version is not None:
            query = query.where(column == version)
        for found, *counts in db.execute(query):
            summed = totals.setdefault(int(found), [0] * 7)
            for index, count in enumerate(counts):
                summed[index] += int(count)
    # a forfeit names the version (its name as the game's row gives it)
    names = sa.select(versions.c.id, versions.c.number, bots.c.name).join(
        bots, bots.c.id == versions.c.bot_id
    )
    if version is not None:
        names = names.where(versions.c.id == version)
    ids = {f"{name}@{number}": int(i) for i, number, name in db.execute(names)}
    forfeits = (
        sa.select(games.c.forfeit, sa.func.count())
        .where(games.c.forfeit.is_not(None))
        .group_by(games.c.forfeit)
    )
    if version is not None:
        forfeits = forfeits.where(
            sa.or_(games.c.version_a == version, games.c.version_b == version)
        )
    for name, count in db.execute(forfeits):
        if name in ids:
            totals.setdefault(ids[name], [0] * 7)[6] += int(count)
    return {
        found: FaultCounts(
            games=c[0],
            strikes=c[1],
            illegal=c[2],
            crashes=c[3],
            fallbacks=c[4],
            forfeits=c[6],
            faulty_games=c[5],
        )
        for found, c in totals.items()
    }


def _version_names(db: Connection, ids: Iterable[int]) -> dict[int, str]:
    query = (
        sa.select(versions.c.id, versions.c.number, bots.c.name)
        .join(bots, bots.c.id == versions.c.bot_id)
        .where(versions.c.id.in_(list(set(ids))))
    )
    return {int(i): f"{name}@{number}" for i, number, name in db.execute(query)}
