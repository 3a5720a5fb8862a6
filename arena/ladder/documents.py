"""What ``arena ladder status`` and ``arena ladder export`` say, read from the ladder's store
by another process than the running ladder (or with none running): the leaderboard of its
pages (:mod:`chaodipi.arena.ladder.board`), the pairs playing now, whether the ladder runs, the
season's final table once it is published, and every rating and pair for a spreadsheet.
"""

from __future__ import annotations

import json
from typing import Any

from chaodipi.arena.ladder.board import leaderboard
from chaodipi.arena.ladder.config import LadderConfig
from chaodipi.arena.ladder.entries import PairKind, PairState
from chaodipi.arena.ladder.store import Store

__all__ = ["PAIR_COLUMNS", "RATING_COLUMNS", "export_document", "status_document"]

RATING_COLUMNS = [
    "version",
    "bot",
    "state",
    "pinned_elo",
    "live_elo",
    "live_error",
    "refit_elo",
    "refit_low",
    "refit_high",
    "pairs",
]
"""The columns of ``ratings.csv``: each version's live rating and its latest refit (Elo)."""

PAIR_COLUMNS = [
    "pair",
    "kind",
    "state",
    "version_a",
    "version_b",
    "score_a",
    "started_at",
    "finished_at",
    "reason",
]
"""The columns of ``pairs.csv``: every pair and validation game; a pair's id is its deal."""

_ALL_KINDS = tuple(PairKind)


def status_document(store: Store, config: LadderConfig, *, now: float) -> dict[str, Any]:
    """The leaderboard, what is playing (pairs stored as playing: while the ladder runs),
    whether it runs, and the season's final table when there is one."""
    board = leaderboard(store, provisional_width=config.provisional_width, now=now)
    names = {v.id: v.name for v in store.versions()}
    running = store.running()
    playing = (
        [
            {
                "pair": p.id,
                "kind": p.kind.value,
                "version_a": names[p.version_a],
                "version_b": names[p.version_b],
                "started_at": p.started_at,
            }
            for p in store.pairs(kinds=_ALL_KINDS, states=(PairState.PLAYING,))
        ]
        if running
        else []
    )
    final = store.get_meta("final")
    document = board.as_json()
    document.update(
        name=config.name,
        pairs=len(store.pairs()),
        running=running,
        playing=playing,
        final=None if final is None else _final(json.loads(final), names),
    )
    return document


def _final(final: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    table = [
        {**row, "version": names.get(row["version"], str(row["version"]))} for row in final["table"]
    ]
    return {**final, "table": table}


def export_document(store: Store, config: LadderConfig, *, now: float) -> dict[str, Any]:
    """Every version's ratings and every pair, as ``arena ladder export`` writes them."""
    versions = store.versions()
    names = {v.id: v.name for v in versions}
    live = store.live_ratings()
    latest = store.latest_refit()
    refit = latest[2] if latest is not None else {}
    played = store.pairs_played()
    ratings = []
    for version in versions:
        rating, fitted = live.get(version.id), refit.get(version.id)
        ratings.append(
            {
                "version": version.name,
                "bot": version.bot,
                "state": version.state.value,
                "pinned_elo": version.pinned_elo,
                "live_elo": None if rating is None else rating.elo,
                "live_error": None if rating is None else rating.error,
                "refit_elo": None if fitted is None else fitted.elo,
                "refit_low": None if fitted is None else fitted.low,
                "refit_high": None if fitted is None else fitted.high,
                "pairs": played.get(version.id, (0, 0.0))[0],
            }
        )
    pairs = [
        {
            "pair": p.id,
            "kind": p.kind.value,
            "state": p.state.value,
            "version_a": names[p.version_a],
            "version_b": names[p.version_b],
            "score_a": p.score_a,
            "started_at": p.started_at,
            "finished_at": p.finished_at,
            "reason": p.reason,
        }
        for p in store.pairs(kinds=_ALL_KINDS, states=tuple(PairState))
    ]
    return {"name": config.name, "at": now, "ratings": ratings, "pairs": pairs}
