"""What one seat may know: ``observe(match, seat)``, a JSON-ready function of (state, seat).

It is built only from the seat's own cards, the events visible to that seat and facts every
seat sees (levels, the dealer, the trick on the table, the points taken). Nothing else of the
state is read, so another hand, the kitty another seat buried or a hidden bid cannot leak.

>>> import json
>>> from engine.match import Match
>>> from engine.presets import PRESETS
>>> match = Match(PRESETS["anchao"], seed=3)
>>> seen = observe(match, 0)
>>> seen["seat"], seen["phase"], len(seen["hand"])
(0, 'declare', 5)
>>> "kitty" in json.dumps(seen)
False
"""

from __future__ import annotations

from typing import Any

from engine.cards import format_cards
from engine.hand import Phase
from engine.match import Match

__all__ = ["OBSERVATION_VERSION", "observe"]

OBSERVATION_VERSION = 1


def _level_name(progress: int, circuits: int) -> str:
    circuit, level = divmod(progress, 13)
    if circuit >= circuits:
        return "扛旗" if circuits == 1 and progress == 13 else "done"
    names = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    return names[level] if circuits == 1 else f"{names[level]} (circuit {circuit + 1})"


def observe(match: Match, seat: int, *, with_events: bool = True) -> dict[str, Any]:
    """Everything ``seat`` may know now, and nothing else (see the module docstring).

    ``with_events=False`` leaves out the hand's event list, for a caller (the table server)
    that keeps the same events, filtered by the same visibility, already converted."""
    hand = match.hand
    circuits = match.preset.match.circuits
    seen: dict[str, Any] = {
        "version": OBSERVATION_VERSION,
        "seat": seat,
        "partner": (seat + 2) % 4,
        "preset": match.preset.name,
        "hand_number": match.number,
        "phase": hand.phase.value,
        "to_act": match.to_play,
        "dealer": hand.dealer,
        "progress": list(match.progress),
        "levels": [_level_name(p, circuits) for p in match.progress],
        "must_played": [
            [_level_name(p, circuits) for p in sorted(played)] for played in match.must_played
        ],
        "level": None if hand.level is None else str(hand.level),
        "hand": [str(c) for c in hand.hand(seat)],
        "events": [
            {"kind": e.kind, "seat": e.seat, **e.data} for e in hand.events if seat in e.visible
        ]
        if with_events
        else [],
        "history": [
            {
                "number": r.number,
                "dealer": r.dealer,
                "level": r.level,
                "trump": r.trump,
                "defenders_points": r.total,
                "progress": list(r.progress_after),
                "note": r.note,
            }
            for r in match.records
        ],
    }
    play = hand.play
    if play is not None and hand.phase is not Phase.DECLARE:
        trump = play.trump
        seen["trump"] = {
            "level": None if trump.level is None else str(trump.level),
            "suit": None if trump.suit is None else trump.suit.symbol,
        }
        seen["trick"] = {
            "leader": play.trick.leader,
            "plays": [[s, format_cards(cards)] for s, cards in play.trick.plays],
        }
        seen["tricks_done"] = len(play.tricks)
        seen["defenders_points"] = play.defender_points
        seen["throw_penalties"] = play.penalty_points
    if match.over:
        seen["winner"] = match.winner
        seen["reward"] = match.reward
    return seen
