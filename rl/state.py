"""The full state of a match as a fixed-shape ``float32`` vector, for centralized critics and
oracle (perfect-information) training: every seat's cards, the kitty, the cards not dealt yet,
every bid (hidden ones too), read from the engine's state. It is never part of an observation
(what a seat may know is :mod:`chaodipi.rl.encoding`'s alone); an acting policy must not read
it.

Seats are absolute (row 0 is seat 0, team 0 first) or, given a seat, relative to it as in an
observation (row 0 that seat, 1 the next, 2 its partner, 3 the seat before it; its own team
first). Card kinds are the engine's codes 0-53, a row of 54 counting 0-2 copies per kind; the
``hands``, ``kitty``, ``undealt`` and ``played`` rows add up to 2 of every kind.

The layout, in order (:data:`STATE_LAYOUT` maps each name to its slice; :func:`split_state`
cuts a vector into named arrays; docs/rl-environment.md draws it):

=========== ====== ===========================================================================
name        size   what
=========== ====== ===========================================================================
hands       4×54   each seat's cards now
undealt     54     the cards of the shoe not dealt yet (while the deal comes in packets)
kitty       54     the kitty as the engine holds it: as dealt, empty while a seat holds it to
                   bury, then the cards buried last (empty in the 扛旗 hand)
played      4×54   each seat's cards played this hand (the trick on the table included)
trick       4×54   each seat's cards in the trick on the table
bids        4×12   each seat's bids: how many made, then its last: kind (6), suit (♠ ♥ ♣ ♦ NT),
                   hidden ones (暗炒) included
in_force    5      the seat whose bid is in force, or none
level       14     the hand's level, one-hot 2…A, or "none" (the 扛旗 hand)
trump       6      the trump suit ♠ ♥ ♣ ♦ no-trump (the bid in force's, until fixed), and "fixed"
phase       5      declare, bury, fry, play, over
dealer      5      the dealer, or "not known yet"
to_act      5      the seat to act, or "nobody" (the match is over)
leader      4      who led the trick on the table (zeros outside the card play)
scalars     9      team progress ÷ 13 (team 0's, or the seat's own team's, first), the other's
                   ÷ 13, defenders' points ÷ 100, throw penalties ÷ 100, failed-fry penalty ÷
                   100, tricks done ÷ 25, hand number ÷ 10, redeals ÷ 3, the match is over (0/1)
=========== ====== ===========================================================================

>>> from chaodipi.engine import Match, PRESETS
>>> match = Match(PRESETS["classic"], seed=1)
>>> vector = full_state(match)
>>> vector.shape, STATE_SIZE
((857,), 857)
>>> parts = split_state(vector)
>>> parts["hands"].sum(axis=1).tolist(), int(parts["kitty"].sum()), int(parts["undealt"].sum())
([5.0, 5.0, 5.0, 5.0], 8, 80)
"""

from __future__ import annotations

from typing import Final

import numpy as np

from chaodipi.engine import Match, Phase, team_of
from chaodipi.rl.encoding import LIMIT, Vector, layout_of

__all__ = ["STATE_LAYOUT", "STATE_SIZE", "full_state", "split_state"]

_SEGMENTS: Final = (
    ("hands", 4 * 54),
    ("undealt", 54),
    ("kitty", 54),
    ("played", 4 * 54),
    ("trick", 4 * 54),
    ("bids", 4 * 12),
    ("in_force", 5),
    ("level", 14),
    ("trump", 6),
    ("phase", 5),
    ("dealer", 5),
    ("to_act", 5),
    ("leader", 4),
    ("scalars", 9),
)


STATE_LAYOUT: Final = layout_of(_SEGMENTS)
"""Each segment's slice of the state vector."""
STATE_SIZE: Final = sum(size for _, size in _SEGMENTS)
"""The state vector's length."""
_SHAPES: Final = {
    "hands": (4, 54),
    "played": (4, 54),
    "trick": (4, 54),
    "bids": (4, 12),
}
_PHASE_INDEX: Final = {phase: i for i, phase in enumerate(Phase)}
_BID_KINDS: Final = 6


def split_state(vector: Vector) -> dict[str, Vector]:
    """The state vector cut into its named segments (``hands``, ``played``, ``trick`` and
    ``bids`` as one row per seat)."""
    return {
        name: vector[part].reshape(_SHAPES.get(name, (-1,)))
        for name, part in STATE_LAYOUT.items()
    }


def full_state(match: Match, seat: int | None = None) -> Vector:
    """The state of ``match`` (see the module docs): seats absolute, or relative to ``seat``."""
    if seat is not None and seat not in range(4):
        raise ValueError(f"seat {seat!r} is not a seat: seats are 0, 1, 2 and 3 (or None)")
    origin = 0 if seat is None else seat

    def rel(s: int) -> int:
        return (s - origin) % 4

    out = np.zeros(STATE_SIZE, np.float32)
    parts = split_state(out)  # views: writing a part writes the vector
    hand = match.hand
    play = hand.play
    holdings = hand.hands if play is None else play.hands
    for s, counts in enumerate(holdings):
        row = parts["hands"][rel(s)]
        for card, n in counts.items():
            row[card] += n
    for card in hand.kitty:
        parts["kitty"][card] += 1
    if play is not None:
        for trick in (*play.tricks, play.trick):
            for s, cards in trick.plays:
                for card in cards:
                    parts["played"][rel(s), card] += 1
        for s, cards in play.trick.plays:
            for card in cards:
                parts["trick"][rel(s), card] += 1
        if play.trick.plays:
            parts["leader"][rel(play.trick.leader)] = 1
    parts["undealt"][:] = (
        2 - parts["hands"].sum(axis=0) - parts["kitty"] - parts["played"].sum(axis=0)
    )
    for record in hand.bids:
        row = parts["bids"][rel(record.seat)]
        row[0] += 1
        row[1:] = 0
        row[1 + record.bid.kind] = 1
        suit = record.bid.suit
        row[1 + _BID_KINDS + (4 if suit is None else suit)] = 1
    in_force = hand.auction.in_force
    parts["in_force"][4 if in_force is None else rel(in_force[0])] = 1
    parts["level"][13 if hand.level is None else hand.level] = 1
    trump = hand.trump
    if trump is not None:
        parts["trump"][4 if trump.suit is None else trump.suit] = 1
        parts["trump"][5] = 1
    elif in_force is not None:
        suit = in_force[1].suit
        parts["trump"][4 if suit is None else suit] = 1
    parts["phase"][_PHASE_INDEX[hand.phase]] = 1
    parts["dealer"][4 if hand.dealer is None else rel(hand.dealer)] = 1
    parts["to_act"][4 if match.over else rel(match.to_play)] = 1
    team = team_of(origin)
    parts["scalars"][:] = (
        match.progress[team] / 13,
        match.progress[1 - team] / 13,
        0 if play is None else min(play.defender_points, 200) / 100,
        0 if play is None else max(-LIMIT, min(LIMIT, play.penalty_points / 100)),
        max(-LIMIT, min(LIMIT, hand.fry_penalty / 100)),
        0 if play is None else len(play.tricks) / 25,
        min(match.number / 10, LIMIT),
        hand.redeals / 3,
        1.0 if match.over else 0.0,
    )
    return out
