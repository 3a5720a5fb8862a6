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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
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
from chaodipi.arena.ladder.played import PlayedReads
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
    versions,
)
from chaodipi.arena.results import GameRow

__all__ = ["Store", "database_url"]


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


_LOCK_ID = 48151623
"""The PostgreSQL advisory lock a ladder holds on its database."""


class Store(PlayedReads):
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
