"""The ladder's database: its bots, their versions, every pair and game, and every rating.

SQLite by default (one file beside the config, owner-only), PostgreSQL when the config names a
URL: one schema, written with SQLAlchemy Core, so the same statements run on both. Each change
that must hold together is one transaction: a pair's two games, its state, its score and both
versions' new ratings are committed at once (:meth:`Store.finish_pair`), so a ladder killed at
any moment keeps every finished pair once, rated once, and a pair that was playing is found
``playing`` when it starts again and abandoned (:meth:`Store.recover`): its deal is never dealt
again.

A pair's id is its deal number: ids are never reused, so no deal is dealt twice. The deals come
from the ladder's secret key (:mod:`chaodipi.arena.deals`), kept in the ``meta`` table.

One ladder writes a database at a time (:meth:`Store.claim`: an exclusive lock on the SQLite
file's lock file, or a PostgreSQL advisory lock held by the store's own connection).

>>> store = Store.open("sqlite://")  # in memory
>>> bot = store.add_bot("alice", BotKind.RESIDENT, at=0.0, token_digest="d" * 64)
>>> version = store.version_of(bot, "v1", at=1.0)
>>> version.name, version.state.value
('alice@1', 'validating')
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine, RowMapping

from chaodipi.arena.deals import DealKey
from chaodipi.arena.errors import DatabaseError
from chaodipi.arena.ladder.entries import (
    Bot,
    BotKind,
    Pair,
    PairKind,
    PairState,
    Version,
    VersionState,
)
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.schema import (
    GAME_COUNTS,
    SCHEMA_VERSION,
    bots,
    games,
    meta,
    metadata,
    pairs,
    ratings,
    refit_ratings,
    refits,
    versions,
)
from chaodipi.arena.results import GameKey, GameRow

__all__ = ["FaultCounts", "RefitRow", "Store", "StoredGame", "database_url"]


def database_url(storage: str, folder: Path) -> str:
    """The SQLAlchemy URL of the config's ``storage``: a PostgreSQL URL as it is (its driver
    made psycopg's), else a SQLite file's path, relative to the config's folder.

    >>> database_url("ladder.sqlite", Path("/srv/class"))
    'sqlite:////srv/class/ladder.sqlite'
    >>> database_url("postgresql://ladder@/ladder?host=/run/pg", Path("."))
    'postgresql+psycopg://ladder@/ladder?host=/run/pg'
    """
    if storage.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + storage.split("://", 1)[1]
    if storage.startswith("postgresql+"):
        return storage
    path = Path(storage).expanduser()
    return f"sqlite:///{path if path.is_absolute() else (folder / path).resolve()}"


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


_LOCK_ID = 48151623
"""The PostgreSQL advisory lock a ladder holds on its database."""


class Store:
    """The ladder's database (:func:`Store.open`). Every method is a transaction of its own
    and may block: the ladder calls them off its event loop."""

    def __init__(self, engine: Engine, url: str) -> None:
        self.engine = engine
        self.url = url
        self._lock: IO[bytes] | None = None
        self._held: Connection | None = None

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, create: bool = True) -> Store:
        """Open the database at ``url`` (a SQLite file is made owner-only; its schema is
        created when ``create`` and it is new). A file that is not a ladder's, or a schema of
        another version, is a :class:`DatabaseError` naming it."""
        sqlite = url.startswith("sqlite")
        if sqlite:
            path = _sqlite_path(url)
            if path is not None:
                if not create and not path.exists():
                    raise DatabaseError(f"no ladder database at {path}")
                if create:
                    _make_private(path)
        engine = sa.create_engine(url, future=True)
        if sqlite:
            sa.event.listen(engine, "connect", _sqlite_pragmas)
        store = cls(engine, url)
        try:
            store._prepare(create)
        except sa.exc.SQLAlchemyError as err:
            engine.dispose()
            raise DatabaseError(
                f"cannot open the ladder database {store.where}: {_why(err)}"
            ) from None
        return store

    @property
    def where(self) -> str:
        """The database as a message names it (a URL without its password)."""
        return sa.engine.make_url(self.url).render_as_string(hide_password=True)

    def _prepare(self, create: bool) -> None:
        inspector = sa.inspect(self.engine)
        names = set(inspector.get_table_names())
        if not names:
            if not create:
                raise DatabaseError(f"{self.where} holds no ladder")
            metadata.create_all(self.engine)
            with self.engine.begin() as db:
                db.execute(sa.insert(meta).values(key="schema", value=str(SCHEMA_VERSION)))
            return
        if "meta" not in names:
            raise DatabaseError(f"{self.where} is not a ladder's database (it has no meta table)")
        with self.engine.connect() as db:
            schema = db.execute(sa.select(meta.c.value).where(meta.c.key == "schema")).scalar()
        if schema != str(SCHEMA_VERSION):
            raise DatabaseError(
                f"{self.where} holds a ladder of schema {schema}, this arena writes schema "
                f"{SCHEMA_VERSION}"
            )
        missing = set(metadata.tables) - names
        if missing:
            raise DatabaseError(f"{self.where} lacks the tables {', '.join(sorted(missing))}")

    def claim(self) -> None:
        """Hold the database against a second ladder writing it, until :meth:`close`; a
        :class:`DatabaseError` at once if another holds it."""
        held = f"{self.where} is in use by another ladder (one ladder writes a database at a time)"
        if self.engine.dialect.name == "sqlite":
            path = _sqlite_path(self.url)
            if path is None:
                return
            lock = open(path.with_name(path.name + ".lock"), "ab")  # noqa: SIM115
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.close()
                raise DatabaseError(held) from None
            self._lock = lock
            return
        connection = self.engine.connect()
        if not connection.execute(sa.text(f"SELECT pg_try_advisory_lock({_LOCK_ID})")).scalar():
            connection.close()
            raise DatabaseError(held)
        connection.commit()
        self._held = connection

    def running(self) -> bool:
        """Whether a ladder holds the database now (:meth:`claim`), as another process sees
        it."""
        if self._lock is not None or self._held is not None:
            return True
        if self.engine.dialect.name == "sqlite":
            path = _sqlite_path(self.url)
            if path is None:
                return False
            try:
                probe = open(path.with_name(path.name + ".lock"), "rb")  # noqa: SIM115
            except FileNotFoundError:
                return False
            with probe:
                try:
                    fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                fcntl.flock(probe, fcntl.LOCK_UN)
                return False
        with self.engine.connect() as connection:
            free = connection.execute(sa.text(f"SELECT pg_try_advisory_lock({_LOCK_ID})")).scalar()
            if free:
                connection.execute(sa.text(f"SELECT pg_advisory_unlock({_LOCK_ID})"))
            return not free

    def close(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.engine.dispose()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as db:
                yield db
        except sa.exc.IntegrityError:
            raise
        except sa.exc.OperationalError as err:
            raise DatabaseError(
                f"cannot write the ladder database {self.where}: {_why(err)}"
            ) from None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        try:
            with self.engine.connect() as db:
                yield db
        except sa.exc.OperationalError as err:
            raise DatabaseError(
                f"cannot read the ladder database {self.where}: {_why(err)}"
            ) from None

    # -- meta ---------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        with self._read() as db:
            value = db.execute(sa.select(meta.c.value).where(meta.c.key == key)).scalar()
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as db:
            db.execute(sa.delete(meta).where(meta.c.key == key))
            db.execute(sa.insert(meta).values(key=key, value=value))

    def deal_key(self) -> DealKey:
        """The ladder's secret deal key, made on first use."""
        with self._write() as db:
            text = db.execute(sa.select(meta.c.value).where(meta.c.key == "deal_key")).scalar()
            if text is None:
                key = DealKey.new()
                db.execute(sa.insert(meta).values(key="deal_key", value=key.hex()))
                return key
        return DealKey.from_hex(str(text))

    def season(self) -> dict[str, Any] | None:
        """The season's freeze (``{"frozen_at": …, "final_pairs": N}``), or None."""
        text = self.get_meta("season")
        return None if text is None else dict(json.loads(text))

    def freeze(self, at: float, final_pairs: int) -> None:
        self.set_meta("season", json.dumps({"frozen_at": at, "final_pairs": final_pairs}))

    # -- bots and versions --------------------------------------------------------------------

    def add_bot(
        self,
        name: str,
        kind: BotKind,
        *,
        at: float,
        token_digest: str | None = None,
        command: str | None = None,
        max_sessions: int | None = None,
        max_tables: int | None = None,
    ) -> Bot:
        """A new bot; a :class:`DatabaseError` if the name is taken."""
        try:
            with self._write() as db:
                db.execute(
                    sa.insert(bots).values(
                        name=name,
                        kind=kind.value,
                        token_digest=token_digest,
                        command=command,
                        created_at=at,
                        retired=False,
                        max_sessions=max_sessions,
                        max_tables=max_tables,
                    )
                )
        except sa.exc.IntegrityError:
            raise DatabaseError(f"the ladder has a bot named {name!r} already") from None
        found = self.bot(name)
        assert found is not None
        return found

    def bot(self, name: str) -> Bot | None:
        with self._read() as db:
            row = db.execute(sa.select(bots).where(bots.c.name == name)).mappings().first()
        return None if row is None else _bot(row)

    def bots(self) -> list[Bot]:
        with self._read() as db:
            rows = db.execute(sa.select(bots).order_by(bots.c.id)).mappings().all()
        return [_bot(r) for r in rows]

    def bot_by_digest(self, digest: str) -> Bot | None:
        with self._read() as db:
            row = db.execute(sa.select(bots).where(bots.c.token_digest == digest)).mappings()
            found = row.first()
        return None if found is None else _bot(found)

    def update_bot(self, bot_id: int, **values: Any) -> None:
        """Set a bot's ``command``, ``paused``, ``retired``, ``max_sessions`` or
        ``max_tables``."""
        allowed = {"command", "paused", "retired", "max_sessions", "max_tables", "token_digest"}
        if not set(values) <= allowed:
            raise ValueError(f"a bot has no column {sorted(set(values) - allowed)}")
        with self._write() as db:
            db.execute(sa.update(bots).where(bots.c.id == bot_id).values(**values))

    def version_of(
        self, bot: Bot, label: str, *, at: float, pinned_elo: float | None = None
    ) -> Version:
        """The bot's version called ``label``: the one stored, or a new one (numbered after
        the bot's others, ``validating``; a rung's is ``active`` at once). A new version
        supersedes the bot's versions still scheduled or validating."""
        with self._write() as db:
            row = (
                db.execute(
                    sa.select(versions).where(
                        versions.c.bot_id == bot.id, versions.c.label == label
                    )
                )
                .mappings()
                .first()
            )
            if row is not None:
                return _version(row, bot.name)
            number = db.execute(
                sa.select(sa.func.coalesce(sa.func.max(versions.c.number), 0)).where(
                    versions.c.bot_id == bot.id
                )
            ).scalar_one()
            db.execute(
                sa.update(versions)
                .where(
                    versions.c.bot_id == bot.id,
                    versions.c.state.in_(
                        [
                            VersionState.ACTIVE.value,
                            VersionState.VALIDATING.value,
                            VersionState.PAUSED.value,
                        ]
                    ),
                )
                .values(state=VersionState.SUPERSEDED.value, reason=f"replaced by {label!r}")
            )
            state = VersionState.ACTIVE if bot.kind is BotKind.RUNG else VersionState.VALIDATING
            db.execute(
                sa.insert(versions).values(
                    bot_id=bot.id,
                    number=int(number) + 1,
                    label=label,
                    state=state.value,
                    created_at=at,
                    reason="",
                    detail="",
                    pinned_elo=pinned_elo,
                )
            )
            row = (
                db.execute(
                    sa.select(versions).where(
                        versions.c.bot_id == bot.id, versions.c.label == label
                    )
                )
                .mappings()
                .one()
            )
        return _version(row, bot.name)

    def set_version_state(
        self,
        version_id: int,
        state: VersionState,
        reason: str = "",
        detail: str = "",
        *,
        was: VersionState | None = None,
    ) -> bool:
        """Set a version's state (with why, and what shows it); with ``was``, only if that is
        its state now (a version superseded meanwhile stays superseded). Whether it was set."""
        query = sa.update(versions).where(versions.c.id == version_id)
        if was is not None:
            query = query.where(versions.c.state == was.value)
        with self._write() as db:
            done = db.execute(query.values(state=state.value, reason=reason, detail=detail))
            return bool(done.rowcount)

    def versions(self, *, bot_id: int | None = None) -> list[Version]:
        query = sa.select(versions, bots.c.name).join(bots, bots.c.id == versions.c.bot_id)
        if bot_id is not None:
            query = query.where(versions.c.bot_id == bot_id)
        with self._read() as db:
            rows = db.execute(query.order_by(versions.c.id)).mappings().all()
        return [_version(r, str(r["name"])) for r in rows]

    def version(self, version_id: int) -> Version:
        query = (
            sa.select(versions, bots.c.name)
            .join(bots, bots.c.id == versions.c.bot_id)
            .where(versions.c.id == version_id)
        )
        with self._read() as db:
            row = db.execute(query).mappings().first()
        if row is None:
            raise DatabaseError(f"{self.where} has no version {version_id}")
        return _version(row, str(row["name"]))

    # -- pairs --------------------------------------------------------------------------------

    def start_pair(self, kind: PairKind, version_a: int, version_b: int, *, at: float) -> Pair:
        """A new pair, ``playing``: its id is its deal, never dealt before."""
        with self._write() as db:
            result = db.execute(
                sa.insert(pairs).values(
                    kind=kind.value,
                    version_a=version_a,
                    version_b=version_b,
                    state=PairState.PLAYING.value,
                    started_at=at,
                    reason="",
                )
            )
            key = result.inserted_primary_key
            assert key is not None
            pair_id = int(key[0])
        return Pair(pair_id, kind, version_a, version_b, PairState.PLAYING, at)

    def finish_pair(
        self,
        pair: Pair,
        played: Sequence[tuple[GameRow, bytes | None]],
        *,
        at: float,
        state: PairState,
        score_a: float | None = None,
        reason: str = "",
        rated: Mapping[int, LiveRating] | None = None,
    ) -> Pair:
        """Store a pair's games (each row with its record), its state and score, and the live
        ratings it gave, in one transaction. A pair already finished is left as it is (its
        first finish stands) and returned as stored."""
        with self._write() as db:
            stored = db.execute(sa.select(pairs.c.state).where(pairs.c.id == pair.id)).scalar()
            if stored != PairState.PLAYING.value:
                return self._pair(db, pair.id)
            for row, record in played:
                db.execute(
                    sa.insert(games).values(
                        pair_id=pair.id,
                        version_a=pair.version_a,
                        version_b=pair.version_b,
                        swapped=row.key.swapped,
                        finished_at=at,
                        record=record,
                        review=None,
                        **{column: getattr(row, column) for column in GAME_COUNTS},
                    )
                )
            db.execute(
                sa.update(pairs)
                .where(pairs.c.id == pair.id)
                .values(state=state.value, finished_at=at, score_a=score_a, reason=reason)
            )
            for version, rating in (rated or {}).items():
                db.execute(
                    sa.insert(ratings).values(
                        version_id=version,
                        pair_id=pair.id,
                        at=at,
                        mu=rating.mu,
                        sigma=rating.sigma,
                    )
                )
            return self._pair(db, pair.id)

    def recover(self, *, at: float) -> list[Pair]:
        """Abandon the pairs that were playing when the ladder stopped (their deals are never
        dealt again, nothing of them is rated); returns them."""
        with self._write() as db:
            rows = (
                db.execute(sa.select(pairs).where(pairs.c.state == PairState.PLAYING.value))
                .mappings()
                .all()
            )
            db.execute(
                sa.update(pairs)
                .where(pairs.c.state == PairState.PLAYING.value)
                .values(
                    state=PairState.ABANDONED.value,
                    finished_at=at,
                    reason="the ladder stopped while it played",
                )
            )
        return [_pair(r) for r in rows]

    def _pair(self, db: Connection, pair_id: int) -> Pair:
        row = db.execute(sa.select(pairs).where(pairs.c.id == pair_id)).mappings().one()
        return _pair(row)

    def pair(self, pair_id: int) -> Pair | None:
        with self._read() as db:
            row = db.execute(sa.select(pairs).where(pairs.c.id == pair_id)).mappings().first()
        return None if row is None else _pair(row)

    def pairs(
        self,
        *,
        version: int | None = None,
        kinds: Sequence[PairKind] = (PairKind.RATED, PairKind.FINAL),
        states: Sequence[PairState] = (PairState.DONE,),
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[Pair]:
        """Pairs of these kinds and states (a version's, if given), oldest first."""
        query = sa.select(pairs).where(
            pairs.c.kind.in_([k.value for k in kinds]), pairs.c.state.in_([s.value for s in states])
        )
        if version is not None:
            query = query.where(sa.or_(pairs.c.version_a == version, pairs.c.version_b == version))
        query = query.order_by(pairs.c.id.desc() if newest_first else pairs.c.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as db:
            rows = db.execute(query).mappings().all()
        return [_pair(r) for r in rows]

    def last_met(self) -> dict[frozenset[int], float]:
        """When each two versions last started a rated pair."""
        query = (
            sa.select(pairs.c.version_a, pairs.c.version_b, sa.func.max(pairs.c.started_at))
            .where(pairs.c.kind != PairKind.VALIDATION.value)
            .group_by(pairs.c.version_a, pairs.c.version_b)
        )
        met: dict[frozenset[int], float] = {}
        with self._read() as db:
            for a, b, when in db.execute(query):
                couple = frozenset((int(a), int(b)))
                met[couple] = max(met.get(couple, float(when)), float(when))
        return met

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


def _bot(row: RowMapping) -> Bot:
    return Bot(
        int(row["id"]),
        str(row["name"]),
        BotKind(row["kind"]),
        float(row["created_at"]),
        None if row["paused"] is None else str(row["paused"]),
        bool(row["retired"]),
        None if row["command"] is None else str(row["command"]),
        None if row["max_sessions"] is None else int(row["max_sessions"]),
        None if row["max_tables"] is None else int(row["max_tables"]),
        None if row["token_digest"] is None else str(row["token_digest"]),
    )


def _version(row: RowMapping, bot: str) -> Version:
    return Version(
        int(row["id"]),
        int(row["bot_id"]),
        bot,
        int(row["number"]),
        str(row["label"]),
        VersionState(row["state"]),
        float(row["created_at"]),
        str(row["reason"]),
        str(row["detail"]),
        None if row["pinned_elo"] is None else float(row["pinned_elo"]),
    )


def _pair(row: RowMapping) -> Pair:
    return Pair(
        int(row["id"]),
        PairKind(row["kind"]),
        int(row["version_a"]),
        int(row["version_b"]),
        PairState(row["state"]),
        float(row["started_at"]),
        None if row["finished_at"] is None else float(row["finished_at"]),
        None if row["score_a"] is None else float(row["score_a"]),
        str(row["reason"]),
    )


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


def _sqlite_path(url: str) -> Path | None:
    database = sa.engine.make_url(url).database
    if not database or database == ":memory:":
        return None
    return Path(database)


def _make_private(path: Path) -> None:
    """The SQLite file and its folder, owner-only whatever the umask (the file holds the deal
    key and every game)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    os.fchmod(descriptor, 0o600)
    os.close(descriptor)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _why(err: sa.exc.SQLAlchemyError) -> str:
    """The driver's own words, on one line."""
    origin = getattr(err, "orig", None) or err
    return " ".join(str(origin).split())
