"""In-process random self-play of whole matches (`arena selfplay`), with no server.

Every action is drawn uniformly from the engine's legal set and applied with full checking, so
a run is also a smoke test of the rules engine. The same seed plays the same matches.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from chaodipi.engine import Match, Played, Preset


@dataclass(frozen=True, slots=True)
class MatchStats:
    """What one random match did."""

    winner: int | None
    hands: int
    actions: int
    defenders_points: tuple[int, ...]
    failed_throws: int


def play_random_match(preset: Preset, seed: int, max_hands: int | None) -> MatchStats:
    """One match of four random players."""
    rng = random.Random(f"selfplay/{seed}")
    match = Match(preset, seed=seed, max_hands=max_hands)
    actions = 0
    while not match.over:
        seat = match.to_play
        match.apply(seat, match.legal_actions(seat).sample(rng))
        actions += 1
    failed = sum(
        isinstance(e.payload, Played) and e.payload.attempted is not None for e in match.log
    )
    return MatchStats(
        match.winner,
        len(match.records),
        actions,
        tuple(r.total for r in match.records),
        failed,
    )
