"""The DouZero form of the actions: the list of legal actions, each with a fixed-size feature
vector, for agents that score Q(state, action) over the candidates and pick an index.

Each action's features (:data:`FEATURES` = 70 entries, ``int8``):

=========  ====  ===============================================================================
entries    size  what
=========  ====  ===============================================================================
0-53       54    the cards it puts down (bury or play), counts per kind; the cards a bid shows
54-58      5     its verb: pass, declare, fry, bury, play
59-64      6     a bid's kind (:class:`~chaodipi.engine.bidding.BidKind`: single, level pair,
                 small jokers, big jokers, ♥5 pair, 回头望)
65-69      5     a bid's trump suit: ♠ ♥ ♣ ♦ no-trump
=========  ====  ===============================================================================

A legal set can be enormous (a bury chooses 8 of 33 cards: 13.9 million ways; a free discard
of six from twenty-five, 177,100), so :func:`candidates` lists every legal action when there
are at most ``limit`` of them, and otherwise ``limit`` distinct ones drawn at random (each
legal action equally likely to be among them when the legal set's options do not overlap),
from the ``random.Random`` given: reproducible, and over many draws every legal action can
come up.

>>> import random
>>> from chaodipi.engine import Match, PRESETS
>>> match = Match(PRESETS["classic"], seed=1)
>>> actions, features = candidates(match.legal_actions(), random.Random(0))
>>> [str(a) for a in actions], features.shape, int(features[0, 54])
(['pass'], (1, 70), 1)
"""

from __future__ import annotations

import random
from typing import Final

import numpy as np
import numpy.typing as npt

from chaodipi.engine.actions import Action, Bury, Declare, Fry, LegalActions, Pass, card_action

__all__ = ["FEATURES", "Features", "candidates", "features_of"]

Features = npt.NDArray[np.int8]

FEATURES: Final = 70
_VERBS: Final = (Pass, Declare, Fry, Bury)  # anything else is a play


def features_of(action: Action, out: Features | None = None) -> Features:
    """The feature vector of one action (written into ``out`` when given).

    >>> from chaodipi.engine import parse_action, Rank
    >>> row = features_of(parse_action("play ♠99", Rank.TWO))
    >>> int(row[7]), int(row[58]), int(row.sum())
    (2, 1, 3)
    """
    row = np.zeros(FEATURES, np.int8) if out is None else out
    verb = next((i for i, kind in enumerate(_VERBS) if isinstance(action, kind)), 4)
    row[54 + verb] = 1
    if isinstance(action, Declare | Fry):
        bid = action.bid
        for card in bid.cards:
            row[card] += 1
        row[59 + bid.kind] = 1
        row[65 + (4 if bid.suit is None else bid.suit)] = 1
    elif not isinstance(action, Pass):
        for card in action.cards:
            row[card] += 1
    return row


def candidates(
    legal: LegalActions, rng: random.Random, limit: int = 128
) -> tuple[list[Action], Features]:
    """The actions to choose among (all of them, or ``limit`` drawn when there are more) and
    their features, one row each."""
    if legal.count() <= limit:
        actions = list(legal)
    else:
        assert legal.cards is not None, "a set of bids and pass is always small"
        seen: set[tuple[int, ...]] = set()
        actions = []
        tries = 0
        while len(actions) < limit and tries < 20 * limit:
            tries += 1
            cards = legal.cards.sample(rng)
            if cards not in seen:
                seen.add(cards)
                actions.append(card_action(legal.phase, cards))
    table = np.zeros((len(actions), FEATURES), np.int8)
    for row, action in zip(table, actions, strict=True):
        features_of(action, row)
    return actions, table
