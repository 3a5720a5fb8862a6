"""The ladder's database (arena/ladder/store.py): a pair is stored whole or not at all, once;
what was playing when a ladder stopped is abandoned and its deal never dealt again; a new version
supersedes its bot's others; a second ladder cannot write the same database; a database of
another kind or schema is refused in one line. Every test runs on SQLite, and on PostgreSQL when
``tests/postgres_support.py`` can start a server here (``.ci/run`` installs Debian's)."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaodipi.arena.errors import DatabaseError
from chaodipi.arena.ladder import BotKind, LiveRating, PairKind, PairState, Store, VersionState
from chaodipi.arena.results import GameKey, GameRow
from tests.postgres_support import postgres_url


def _row(key: GameKey, score: float | None, **faults: int) -> GameRow:
    counts = {f"{kind}_{side}": 0 for kind in ("strikes", "illegal", "crashes") for side in "ab"}
    counts.update(faults)
    return GameRow(
        key,
        score,
        1,
        2,
        0,
        1,
        60,
        0,
        0,
        forfeit=None,
        reason="played out",
        errors="",
        seconds=1.5,
        **counts,
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'ladder.sqlite'}"
    else:
        url = postgres_url(tmp_path)
    opened = Store.open(url)
    try:
        yield opened
    finally:
        opened.close()


def _two_versions(store: Store) -> tuple[int, int]:
    a = store.add_bot("alice", BotKind.RESIDENT, at=0.0, token_digest="a" * 64)
    b = store.add_bot("heuristic", BotKind.RUNG, at=0.0, command="python3 -m h")
    va = store.version_of(a, "v1", at=1.0)
    vb = store.version_of(b, "python3 -m h", at=1.0, pinned_elo=0.0)
    store.set_version_state(va.id, VersionState.ACTIVE)
    assert vb.state is VersionState.ACTIVE  # a rung plays at once
    return va.id, vb.id


def _finish(store: Store, pair_id: int, score: float) -> None:
    pair = store.pair(pair_id)
    assert pair is not None
    rows = [_row(GameKey("alice@1", "heuristic@1", pair_id, s), score) for s in (False, True)]
    store.finish_pair(
        pair,
        [(r, b"record") for r in rows],
        at=5.0,
        state=PairState.DONE,
        score_a=score,
        rated={pair.version_a: LiveRating(26.0, 7.0)},
    )


def test_a_pair_is_stored_whole_once_and_rated_once(store: Store) -> None:
    a, b = _two_versions(store)
    pair = store.start_pair(PairKind.RATED, a, b, at=2.0)
    assert store.pair(pair.id).state is PairState.PLAYING  # type: ignore[union-attr]
    _finish(store, pair.id, 0.75)
    _finish(store, pair.id, 0.0)  # a second finish of the same pair changes nothing
    stored = store.pair(pair.id)
    assert stored is not None and stored.state is PairState.DONE and stored.score_a == 0.75
    assert len(store.games(pair_id=pair.id)) == 2
    assert store.live_ratings() == {a: LiveRating(26.0, 7.0)}
    assert [p for p, _, _ in store.rating_history(a)] == [pair.id]
    assert store.record(store.games(pair_id=pair.id)[0].id) == b"record"


def test_a_pair_playing_when_the_ladder_stopped_is_abandoned_and_its_deal_never_dealt_again(
    store: Store,
) -> None:
    a, b = _two_versions(store)
    first = store.start_pair(PairKind.RATED, a, b, at=2.0)
    _finish(store, first.id, 1.0)
    cut = store.start_pair(PairKind.RATED, a, b, at=3.0)
    abandoned = store.recover(at=9.0)
    assert [p.id for p in abandoned] == [cut.id]
    assert store.pair(cut.id).state is PairState.ABANDONED  # type: ignore[union-attr]
    assert store.pair(first.id).state is PairState.DONE  # type: ignore[union-attr]
    assert store.games(pair_id=cut.id) == []
    later = store.start_pair(PairKind.RATED, a, b, at=10.0)
    assert later.deal not in (first.deal, cut.deal)
    assert [p.id for p in store.pairs()] == [first.id]  # only what is rated counts


def test_a_new_version_supersedes_the_bots_others_and_both_are_kept(store: Store) -> None:
    bot = store.add_bot("alice", BotKind.RESIDENT, at=0.0, token_digest="a" * 64)
    one = store.version_of(bot, "v1", at=1.0)
    store.set_version_state(one.id, VersionState.ACTIVE)
    assert store.version_of(bot, "v1", at=2.0).id == one.id  # the same label: the same version
    two = store.version_of(bot, "v2", at=3.0)
    assert (two.name, two.state) == ("alice@2", VersionState.VALIDATING)
    states = {v.name: v.state for v in store.versions(bot_id=bot.id)}
    assert states == {"alice@1": VersionState.SUPERSEDED, "alice@2": VersionState.VALIDATING}


def test_faults_count_each_versions_own_teams(store: Store) -> None:
    a, b = _two_versions(store)
    pair = store.start_pair(PairKind.RATED, a, b, at=2.0)
    rows = [
        _row(GameKey("alice@1", "heuristic@1", pair.id, False), 0.0, strikes_a=2),
        _row(GameKey("alice@1", "heuristic@1", pair.id, True), 1.0, illegal_b=1),
    ]
    store.finish_pair(pair, [(r, None) for r in rows], at=3.0, state=PairState.DONE, score_a=0.5)
    mine, theirs = store.faults(a), store.faults(b)
    assert (mine.games, mine.strikes, mine.illegal, mine.faulty_games) == (2, 2, 0, 1)
    assert (theirs.games, theirs.strikes, theirs.illegal, theirs.faulty_games) == (2, 0, 1, 1)
    assert mine.rate == 0.5


def test_a_bots_name_is_taken_once(store: Store) -> None:
    store.add_bot("alice", BotKind.RESIDENT, at=0.0, token_digest="a" * 64)
    with pytest.raises(DatabaseError, match="has a bot named 'alice' already"):
        store.add_bot("alice", BotKind.HOSTED, at=0.0, command="x")


def test_the_deal_key_is_made_once_and_kept(store: Store) -> None:
    assert store.deal_key() == store.deal_key()


def test_one_ladder_writes_a_database_at_a_time(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ladder.sqlite'}"
    first, second = Store.open(url), Store.open(url)
    try:
        first.claim()
        with pytest.raises(DatabaseError, match="in use by another ladder"):
            second.claim()
        first.close()
        second.claim()  # free once the first is closed
    finally:
        first.close()
        second.close()


def test_a_sqlite_ladder_is_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    import os

    old = os.umask(0)
    try:
        Store.open(f"sqlite:///{tmp_path / 'class' / 'ladder.sqlite'}").close()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "class").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "class" / "ladder.sqlite").stat().st_mode) == 0o600


def test_another_kind_of_database_is_refused_in_one_line(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "results.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (x)")
    with pytest.raises(DatabaseError, match="is not a ladder's database") as caught:
        Store.open(f"sqlite:///{path}")
    assert "\n" not in str(caught.value)
    with pytest.raises(DatabaseError, match="no ladder database at"):
        Store.open(f"sqlite:///{tmp_path / 'none.sqlite'}", create=False)


def test_a_ladder_of_another_schema_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ladder.sqlite'}"
    Store.open(url).close()
    store = Store.open(url)
    store.set_meta("schema", "99")
    store.close()
    with pytest.raises(DatabaseError, match="schema 99, this arena writes schema 1"):
        Store.open(url)
