"""A ladder's store for the web's tests: bots and versions of every kind (a rung pinned, a
version failed with its reason and stderr, a bot paused, one with a hostile name), rated
pairs of real one-hand games with their records, live ratings and a refit."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from chaodipi.arena.ladder.entries import (
    BotKind,
    PairKind,
    PairState,
    Version,
    VersionState,
)
from chaodipi.arena.ladder.played import RefitRow
from chaodipi.arena.ladder.ratings import LiveRating
from chaodipi.arena.ladder.store import Store
from chaodipi.arena.results import GameKey, GameRow
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import pack, record_lines

T0 = 1_767_225_600.0
"""When the ladder's story begins (Unix time: 2026-01-01)."""

HOSTILE = "<script>alert(1)</script>"
"""A bot's name that is markup: the pages must print it as text."""

STDERR = 'Traceback (most recent call last):\n  File "bot.py", line 3\nValueError: <b>boom</b>'


def one_hand(bots: tuple[str, str], seed: int) -> bytes:
    """A real one-hand game's record (random actions), packed as stored: team A is seats 0
    and 2."""
    match = Match(PRESETS["classic"], seed=seed, max_hands=1)
    rng = random.Random(seed)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    a, b = bots
    return pack(list(record_lines(match, bots=(a, b, a, b), date="2027-01-15T08:00:00Z")))


def game_row(
    a: str, b: str, deal: int, swapped: bool, score_a: float | None, **faults: int
) -> GameRow:
    counts = {
        "strikes_a": 0,
        "strikes_b": 0,
        "illegal_a": 0,
        "illegal_b": 0,
        "crashes_a": 0,
        "crashes_b": 0,
        "fallbacks_a": 0,
        "fallbacks_b": 0,
        **faults,
    }
    return GameRow(
        GameKey(a, b, deal, swapped),
        score_a,
        1,
        1,
        0,
        0,
        40,
        1,
        60,
        forfeit=None,
        reason="one hand played",
        errors="",
        seconds=2.5,
        **counts,
    )


@dataclass
class Ladder:
    store: Store
    versions: dict[str, Version]
    pairs: list[int]
    """The rated pairs, in order."""
    validation: int
    """carol@1's validation game's pair."""


def play_pair(
    store: Store,
    a: Version,
    b: Version,
    *,
    at: float,
    games: tuple[float, float],
    seed: int,
    rated: dict[int, LiveRating],
    **faults: int,
) -> int:
    """A rated pair of two real games (A's scores ``games``), stored with its ratings."""
    pair = store.start_pair(PairKind.RATED, a.id, b.id, at=at)
    played = []
    for swapped, score in zip((False, True), games, strict=True):
        row = game_row(a.name, b.name, pair.id, swapped, score, **faults)
        played.append((row, one_hand((a.name, b.name), seed + swapped)))
    store.finish_pair(
        pair,
        played,
        at=at + 60,
        state=PairState.DONE,
        score_a=sum(games) / 2,
        rated=rated,
    )
    return pair.id


def build_ladder(path: Path, t0: float = T0) -> Ladder:
    """The ladder, its story beginning at ``t0``."""
    store = Store.open(f"sqlite:///{path}")
    versions: dict[str, Version] = {}

    def bot(name: str, kind: BotKind, labels: tuple[str, ...], **extra: float) -> Version:
        added = store.add_bot(name, kind, at=t0)
        version = None
        for index, label in enumerate(labels):
            version = store.version_of(added, label, at=t0 + 100 * index, **extra)
            if kind is not BotKind.RUNG:
                store.set_version_state(version.id, VersionState.ACTIVE)
            versions[version.name] = store.version(version.id)
        assert version is not None
        return store.version(version.id)

    heuristic = bot("heuristic", BotKind.RUNG, ("heuristic",), pinned_elo=-300.0)
    bot("alice", BotKind.RESIDENT, ("v1",))
    alice1 = versions["alice@1"]
    bob = bot("bob", BotKind.RESIDENT, ("b1",))
    hostile = bot(HOSTILE, BotKind.RESIDENT, ("x",))
    carol = bot("carol", BotKind.HOSTED, ("python3 carol.py",))
    bot("dave", BotKind.RESIDENT, ("d1",))

    pairs = [
        play_pair(
            store,
            alice1,
            bob,
            at=t0 + 1000,
            games=(1.0, 0.5),
            seed=1,
            rated={alice1.id: LiveRating(26.0, 7.0), bob.id: LiveRating(24.0, 7.0)},
        ),
    ]
    alice = store.version_of(store.bot("alice"), "v2", at=t0 + 2000)  # supersedes alice@1
    store.set_version_state(alice.id, VersionState.ACTIVE)
    versions["alice@1"] = store.version(alice1.id)
    versions["alice@2"] = store.version(alice.id)
    pairs += [
        play_pair(
            store,
            alice,
            bob,
            at=t0 + 3000,
            games=(1.0, 1.0),
            seed=3,
            rated={alice.id: LiveRating(28.0, 5.0), bob.id: LiveRating(23.0, 5.0)},
        ),
        play_pair(
            store,
            bob,
            alice,
            at=t0 + 4000,
            games=(0.5, 0.5),
            seed=5,
            rated={bob.id: LiveRating(23.0, 4.0), alice.id: LiveRating(28.0, 4.0)},
            strikes_a=1,
        ),
        play_pair(
            store,
            alice,
            heuristic,
            at=t0 + 5000,
            games=(0.0, 0.5),
            seed=7,
            rated={alice.id: LiveRating(27.0, 3.5), heuristic.id: LiveRating(25.0, 1.0)},
        ),
        play_pair(
            store,
            hostile,
            bob,
            at=t0 + 6000,
            games=(1.0, 0.0),
            seed=9,
            rated={hostile.id: LiveRating(25.0, 8.0), bob.id: LiveRating(23.0, 3.5)},
            crashes_a=1,
        ),
    ]
    # carol's version fails its validation game: four copies of it on one deal
    validation = store.start_pair(PairKind.VALIDATION, carol.id, carol.id, at=t0 + 7000)
    store.finish_pair(
        validation,
        [
            (
                game_row(carol.name, carol.name, validation.id, False, None, crashes_a=1),
                one_hand((carol.name, carol.name), 11),
            )
        ],
        at=t0 + 7060,
        state=PairState.DONE,
        reason="crashed",
    )
    store.set_version_state(
        carol.id,
        VersionState.FAILED,
        reason="its validation game failed: it crashed",
        detail=STDERR,
    )
    store.update_bot(store.bot("dave").id, paused="too many strikes: look at its logs")
    store.add_refit(
        t0 + 6500,
        len(pairs),
        [
            RefitRow(alice.id, 120.0, 70.0, 170.0, 3),
            RefitRow(bob.id, -80.0, -200.0, 40.0, 4),
        ],
    )
    for name in list(versions):
        versions[name] = store.version(versions[name].id)
    return Ladder(store, versions, pairs, validation.id)
