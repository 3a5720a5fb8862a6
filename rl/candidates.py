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
come up. ``include=`` lists a given legal action in any case (a bot's choice to imitate, or an
opponent's to take: :func:`listing`).

>>> import random
>>> from chaodipi.engine import Match, PRESETS
>>> match = Match(PRESETS["classic"], seed=1)
>>> actions, features = candidates(match.legal_actions(), random.Random(0))
>>> [str(a) for a in actions], features.shape, int(features[0, 54])
(['pass'], (1, 70), 1)
"""

from __future__ import annotations

import itertools
import random
from typing import Final

import numpy as np
import numpy.typing as npt

from chaodipi.engine import (
    Action,
    Bury,
    Card,
    Declare,
    Fry,
    LegalActions,
    Option,
    Pass,
    Play,
    card_action,
)

__all__ = ["FEATURES", "Features", "candidates", "features_of", "listing"]

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
    legal: LegalActions, rng: random.Random, limit: int = 128, include: Action | None = None
) -> tuple[list[Action], Features]:
    """The actions to choose among (all of them, or ``limit`` drawn when there are more) and
    their features, one row each; with ``include`` (a legal action: a bot's choice to imitate)
    that action is listed in any case (:func:`listing`)."""
    if limit < 1:
        raise ValueError(f"limit {limit}: list at least one candidate")
    if include is not None and include not in legal:
        raise ValueError(f"{include} is not legal here: include= names a legal action")
    if legal.count() <= limit:
        actions = list(legal)
    elif legal.cards is None:  # more bids than the limit: a few of them
        actions = rng.sample(list(legal), limit)
    else:
        samplers = [_Sampler(o) for o in legal.cards.options]
        weights = list(itertools.accumulate(s.count for s in samplers))
        seen: set[tuple[int, ...]] = set()
        actions = []
        tries = 0
        while len(actions) < limit and tries < 20 * limit:
            tries += 1
            # as LegalPlays.sample: an option weighted by its size, then a play of it
            cards = rng.choices(samplers, cum_weights=weights)[0].sample(rng)
            if cards not in seen:
                seen.add(cards)
                actions.append(card_action(legal.phase, cards))
    if include is not None:
        actions, _ = listing(actions, include, limit)
    return actions, _table(actions)


def listing(actions: list[Action], action: Action, limit: int) -> tuple[list[Action], int]:
    """``actions`` with ``action`` among them, and its index: the same list when it is
    listed; else with it added at the end, in place of the last one when ``limit`` are listed
    (the last drawn, so the others keep their order and their places)."""
    if action in actions:
        return actions, actions.index(action)
    listed = [*actions[: limit - 1], action] if len(actions) >= limit else [*actions, action]
    return listed, len(listed) - 1


class _Sampler:
    """Uniform plays of one option, as :meth:`chaodipi.engine.legal.Option.sample` draws them,
    with the counting done once for many draws: how many ways the kinds from each one on
    give each number of cards."""

    def __init__(self, option: Option) -> None:
        self.option = option
        self.count = option.count()
        groups: dict[Card, int] = {}
        for card in option.pool:
            groups[card] = groups.get(card, 0) + 1
        self.groups = list(groups.items())
        most = option.k_max
        table = [[0] * (most + 1) for _ in range(len(self.groups) + 1)]
        table[-1][0] = 1
        for i in range(len(self.groups) - 1, -1, -1):
            after, mult = table[i + 1], self.groups[i][1]
            table[i] = [sum(after[r - j] for j in range(min(mult, r) + 1)) for r in range(most + 1)]
        self.table = table

    def sample(self, rng: random.Random) -> tuple[Card, ...]:
        option, table = self.option, self.table
        if not option.pool or option.k_max == 0:
            return option.forced
        first = table[0]
        r = rng.randrange(sum(first[option.k_min : option.k_max + 1]))
        k = option.k_min
        while r >= first[k]:  # a size, in proportion to its number of plays
            r -= first[k]
            k += 1
        chosen: list[Card] = []
        for i, (card, _mult) in enumerate(self.groups):
            if k == 0:
                break
            after = table[i + 1]
            r = rng.randrange(table[i][k])
            j = 0
            while r >= after[k - j]:  # copies of this kind, in proportion to the ways after
                r -= after[k - j]
                j += 1
            chosen.extend([card] * j)
            k -= j
        return tuple(sorted(option.forced + tuple(chosen)))


def _table(actions: list[Action]) -> Features:
    """The features of many actions at once: the cards of plays and buries by one bincount."""
    n = len(actions)
    cells: list[int] = []
    table = np.zeros((n, FEATURES), np.int8)
    for i, action in enumerate(actions):
        if isinstance(action, Play | Bury):
            base = i * FEATURES
            cells.extend(base + c for c in action.cards)
            table[i, 54 + (3 if isinstance(action, Bury) else 4)] = 1
        else:
            features_of(action, table[i])
    if cells:
        table += np.bincount(cells, minlength=n * FEATURES).astype(np.int8).reshape(n, FEATURES)
    return table
