"""The running ladder (arena/ladder/service.py), in this process over real gRPC: a new version
plays its validation game first and is rated only if it passes (a bot that cannot start is
shown failed, with its stderr, and never scheduled); resident bots enter with their token and
play while connected, a new ``bot_version`` starting a new version; every finished pair is
stored whole with its two games and moves only the versions' live ratings that are not pinned;
a version past its fault rate is paused with the reason."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from chaodipi.arena.ladder import PairKind, PairState, Store, VersionState
from tests.ladder_support import Resident, Running, ladder_config, run_ladder

CRASHER = "python3 -c \"import sys; print('cannot load my model', file=sys.stderr); sys.exit(3)\""
FAULTY = "python3 tests/bots/faulty_bot.py --clean-games 1"
ROOT = Path(__file__).resolve().parent.parent


def _states(store: Store) -> dict[str, VersionState]:
    return {v.name: v.state for v in store.versions()}


def _rated(store: Store, name: str) -> int:
    ids = {v.id for v in store.versions() if v.name == name}
    return sum(1 for p in store.pairs() if {p.version_a, p.version_b} & ids)


def test_versions_are_validated_then_rated_and_a_bot_that_cannot_start_is_shown_failed(
    tmp_path: Path,
) -> None:
    config = ladder_config(
        tmp_path,
        rungs=["random", "heuristic"],
        bots={"crasher": {"command": CRASHER}},
        fault_games=1000,
    )
    residents: list[Resident] = []

    async def add_resident(running: Running) -> None:
        token = await running.ladder.add_bot("resident")
        residents.append(Resident(running.address, token))

    def enough(store: Store) -> bool:
        states = _states(store)
        return (
            states.get("crasher@1") is VersionState.FAILED
            and states.get("resident@1") is VersionState.ACTIVE
            and all(_rated(store, name) >= 3 for name in ("random@1", "resident@1"))
        )

    running = run_ladder(config, enough, on_ready=add_resident)
    for resident in residents:
        resident.join()
    store = running.store
    versions = {v.name: v for v in store.versions()}
    crasher = versions["crasher@1"]
    assert crasher.reason.startswith("it did not take its seat"), crasher.reason
    assert "cannot load my model" in crasher.detail
    rated = store.pairs()
    assert all(crasher.id not in (p.version_a, p.version_b) for p in rated)
    for pair in rated:
        games = store.games(pair_id=pair.id)
        assert sorted(g.row.key.swapped for g in games) == [False, True]
        assert pair.score_a == sum(g.row.score_a or 0 for g in games) / 2
    validations = store.pairs(kinds=(PairKind.VALIDATION,), states=(PairState.DONE,))
    assert {store.version(p.version_a).name for p in validations} >= {"resident@1", "crasher@1"}
    heuristic = versions["heuristic@1"]
    assert heuristic.pinned_elo == 0.0
    assert heuristic.id not in store.live_ratings()  # a pinned rung is never moved
    assert store.live_ratings()[versions["resident@1"].id].sigma < 25 / 3
    store.close()


def test_a_new_bot_version_supersedes_the_old_and_both_keep_their_history(
    tmp_path: Path,
) -> None:
    config = ladder_config(tmp_path, rungs=["random"], bots={}, fault_games=1000)
    residents: list[Resident] = []

    async def first(running: Running) -> None:
        token = await running.ladder.add_bot("alice")
        residents.append(Resident(running.address, token, version="v1"))
        residents.append(Resident(running.address, token, version="v2", seed=2))

    def both_seen(store: Store) -> bool:
        states = _states(store)
        return (
            "alice@2" in states
            and states.get("alice@2") is VersionState.ACTIVE
            and (_rated(store, "alice@2") >= 1)
        )

    running = run_ladder(config, both_seen, on_ready=first)
    for resident in residents:
        resident.join()
    states = _states(running.store)
    # the version the ladder saw second supersedes the first, even while that one validated
    assert (states["alice@1"], states["alice@2"]) == (
        VersionState.SUPERSEDED,
        VersionState.ACTIVE,
    )
    running.store.close()


def test_a_version_past_its_fault_rate_is_paused_with_the_reason(tmp_path: Path) -> None:
    config = ladder_config(
        tmp_path,
        rungs=["random"],
        bots={"faulty": {"command": FAULTY.replace("tests/", f"{ROOT}/tests/")}},
        fault_games=2,
        fault_rate=0.25,
    )

    def paused(store: Store) -> bool:
        return _states(store).get("faulty@1") is VersionState.PAUSED

    running = run_ladder(config, paused)
    faulty = next(v for v in running.store.versions() if v.name == "faulty@1")
    assert faulty.reason.startswith("faults in "), faulty.reason
    assert "illegal answers" in faulty.reason and "arena ladder resume" in faulty.reason
    running.store.close()


def test_a_frozen_season_plays_its_final_pairs_publishes_its_table_and_takes_no_new_version(
    tmp_path: Path,
) -> None:
    config = ladder_config(tmp_path, rungs=["random", "heuristic"], fault_games=1000)
    refused: list[str | None] = []

    async def freeze(running: Running) -> None:
        ladder = running.ladder
        await ladder.freeze(2)
        token = await ladder.add_bot("late")
        # a session naming a version the ladder does not know is turned away, with why
        from chaodipi.arena.v2 import arena_pb2 as pb

        bot = next(b for b in ladder._bots.values() if b.name == "late")
        refused.append(ladder._refusal(bot.id, pb.EnterRequest(token=token, bot_version="v9")))

    def final(store: Store) -> bool:
        return store.get_meta("final") is not None

    running = run_ladder(config, final, on_ready=freeze)
    store = running.store
    finals = store.pairs(kinds=(PairKind.FINAL,))
    played = Counter(v for p in finals for v in (p.version_a, p.version_b))
    assert sorted(played.values()) == [2, 2]  # each version its two final pairs
    assert refused[0] is not None and refused[0].startswith("the season is frozen")
    table = json.loads(store.get_meta("final") or "{}")["table"]
    assert [row["version"] for row in table] and len(table) == 2
    store.close()


def test_a_ladder_on_postgresql_plays_and_rates_as_on_sqlite(tmp_path: Path) -> None:
    from tests.postgres_support import postgres_url

    url = postgres_url(tmp_path)
    config = ladder_config(
        tmp_path,
        rungs=["random", "heuristic"],
        storage=url.replace("postgresql+psycopg://", "postgresql://"),
    )

    def rated(store: Store) -> bool:
        return len(store.pairs()) >= 3

    running = run_ladder(config, rated)
    store = running.store
    assert store.engine.dialect.name == "postgresql"
    assert all(len(store.games(pair_id=p.id)) == 2 for p in store.pairs())
    assert store.live_ratings()
    store.close()


class _Nursery:
    """Records what the scheduler starts, and starts nothing."""

    def __init__(self) -> None:
        self.started: list[tuple[Any, ...]] = []

    def start_soon(self, function: Any, *args: Any) -> None:
        self.started.append(args)


def test_pairs_started_at_once_are_different_pairings(tmp_path: Path) -> None:
    """Three free versions and three slots: the scheduler starts the three pairings, never one
    of them twice, whatever the matchmaking's dice (docs/ladder.md, "Matchmaking": no rematch
    while another pairing is possible)."""
    from chaodipi.arena.ladder import Ladder, LiveRating, database_url
    from chaodipi.arena.ladder.core import Entry
    from chaodipi.arena.ladder.entries import Bot, BotKind, Version
    from chaodipi.arena.tournament import BotSpec

    config = ladder_config(tmp_path, concurrency=3)
    for seed in range(12):
        store = Store.open(database_url(config.storage, config.folder))
        ladder = Ladder(config, store, tmp_path / "logs", rng=random.Random(seed))
        for number, name in enumerate(("a", "b", "c"), 1):
            bot = Bot(number, name, BotKind.HOSTED, 0.0, command="x")
            version = Version(number, number, name, 1, "x", VersionState.ACTIVE, 0.0)
            entry = Entry(version, bot, LiveRating.newcomer(), BotSpec(f"{name}@1", ("x",)))
            ladder._entries[number] = entry
        ladder._room = lambda entry: True  # type: ignore[method-assign]
        nursery = _Nursery()
        ladder._nursery = nursery  # type: ignore[assignment]
        ladder._start_what_can()
        pairings = [frozenset((a.version.name, b.version.name)) for a, b, _ in nursery.started]
        assert len(pairings) == 3 and len(set(pairings)) == 3, (seed, pairings)
        store.close()
