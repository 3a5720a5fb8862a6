"""Sampling hidden hands: complete deals drawn uniformly among those a seat's knowledge allows.

Given what a seat knows (:func:`chaodipi.engine.knowledge.infer` of its view: its hand, every card
played, how many cards each seat holds, voids, cards shown in bids, the kitty if it buried it,
…), :func:`sample_deals` draws deals of the cards it has not seen to the places it cannot see
(the other seats, the kitty it did not bury, the undealt cards while declaring), each with its
probability under a uniform shuffle given that knowledge. The two copies of a card kind are
told apart, as in a real shoe: two unseen ♠9 split one and one between two seats weigh twice
as much as both in one seat. How the other seats chose their plays is ignored.

How: the unseen cards fall into *classes*, the cards that may go to the same places (decided
by the card's effective suit and the voids, and by bounds that rule a place out); a card kind
with a bound on its count somewhere (cards shown in a bid, say) is a class of its own. A
dynamic programme over the classes and the places' remaining room counts the completions
exactly (integers: :func:`count_deals`); a deal is drawn class by class in proportion to those
counts (multinomial weights for the distinct copies), then which cards of a class go where by
a shuffle. Sampling is exact, and deterministic given the ``random.Random`` passed in; the
counting is done once per :class:`DealSampler`, which then draws thousands of deals a second.

:meth:`DealSampler.card_play` (or :func:`position`) turns a deal into an engine position to
play out: the trick on the table, the tricks taken, the points and penalties so far.

>>> import random
>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> from chaodipi.engine.view import observe
>>> match, rng = Match(PRESETS["classic"], seed=3), random.Random(3)
>>> while match.hand.phase.value != "play" or len(match.hand.play.tricks) < 2:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> view = observe(match, 3)
>>> deals = sample_deals(view, random.Random(0), 100)
>>> [len(h) for h in deals[0].hands], len(deals[0].kitty)
([23, 23, 23, 23], 8)
>>> all(d.hands[3] == view.hand for d in deals)                    # its own hand, exactly
True
>>> small = Card.parse("LJ")       # seat 2 declared with both, then took the kitty and buried
>>> all(d.hands[2].count(small) + d.kitty.count(small) == 2 for d in deals)
True
>>> sorted({d.hands[2].count(small) for d in deals})
[0, 1, 2]
>>> count_deals(view) > 10**30
True
>>> state = position(view, deals[0])                              # play it out with the engine
>>> state.phase.value, state.to_play == view.to_act
('play', True)
"""

from __future__ import annotations

import itertools
import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.engine.cards import Card
from chaodipi.engine.hand import HandState
from chaodipi.engine.knowledge import KITTY, UNDEALT, Bound, Knowledge, infer
from chaodipi.engine.phase import Phase
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.trick import Trick
from chaodipi.engine.view import SeatView

__all__ = ["Deal", "DealSampler", "count_deals", "position", "sample_deals"]


@dataclass(frozen=True, slots=True)
class Deal:
    """Where every card not yet played is: each seat's hand now, the kitty, and the cards not
    yet dealt (only while declaring). Hands are sorted by card code, except the seat's own,
    which is as its view has it."""

    hands: tuple[tuple[Card, ...], ...]
    kitty: tuple[Card, ...]
    undealt: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class _Class:
    """Unseen cards that may go to the same holders. ``table`` (a class of one kind with
    bounds) lists each count vector it may take with its number of ways; a plain class takes
    any counts on its holders, in multinomial ways."""

    holders: tuple[int, ...]
    items: tuple[Card, ...]
    table: tuple[tuple[tuple[int, ...], int], ...] | None = None


_FACTORIAL = tuple(math.factorial(n) for n in range(110))


def _multinomial(parts: Sequence[int]) -> int:
    ways = _FACTORIAL[sum(parts)]
    for part in parts:
        ways //= _FACTORIAL[part]
    return ways


class DealSampler:
    """Draws deals for one seat's knowledge; build it once per decision, draw many.

    ``count`` is the number of deals (the two copies of a kind told apart), 0 when the
    knowledge allows none (only a made-up knowledge can)."""

    def __init__(self, knowledge: Knowledge | SeatView) -> None:
        if isinstance(knowledge, SeatView):
            knowledge = infer(knowledge)
        self.knowledge = knowledge
        self.places = knowledge.hidden_places()
        """The places a deal fills (the sampler's holders), in order."""
        self._start = tuple(knowledge.sizes[p] for p in self.places)
        self._classes = self._make_classes()
        self._reach = self._reach_table()
        self._counts: dict[tuple[int, tuple[int, ...]], int] = {}
        self._choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]]
        self._choices = {}
        unseen = sum(knowledge.unseen().values())
        if unseen != sum(self._start):
            raise ValueError(
                f"seat {knowledge.seat} has {unseen} unseen cards for {sum(self._start)} places"
            )
        self.count = self._level(0, self._start)
        self._tricks: list[Trick] | None = None

    # -- classes ------------------------------------------------------------------------------

    def _make_classes(self) -> list[_Class]:
        knowledge = self.knowledge
        index = {p: i for i, p in enumerate(self.places)}
        bounds: dict[Card, list[Bound]] = {}
        for bound in knowledge.bounds:
            if bound.high > 0:  # a bound of 0 rules places out: Knowledge.allowed has it
                bounds.setdefault(bound.card, []).append(bound)
        plain: dict[tuple[int, ...], list[Card]] = {}
        special: list[_Class] = []
        for card, copies in sorted(knowledge.unseen().items()):
            holders = tuple(index[p] for p in knowledge.allowed(card))
            if card not in bounds:
                plain.setdefault(holders, []).extend([card] * copies)
                continue
            table: dict[tuple[int, ...], int] = {}
            for where in itertools.product(holders, repeat=copies):
                vector = tuple(where.count(j) for j in range(len(self.places)))
                if all(
                    b.allows(sum(vector[index[p]] for p in b.places if p in index))
                    for b in bounds[card]
                ):
                    table[vector] = table.get(vector, 0) + 1
            special.append(
                _Class(holders, (card,) * copies, tuple(sorted(table.items(), reverse=True)))
            )
        classes = [_Class(h, tuple(cards)) for h, cards in plain.items()]
        # the widest plain class last (it is counted in closed form); the rest smallest first
        classes.sort(key=lambda c: (len(c.holders), len(c.items)))
        return special + classes

    def _reach_table(self) -> list[tuple[int, ...]]:
        """``reach[i][j]``: how many cards of classes ``i`` on may go to holder ``j``."""
        reach = [(0,) * len(self.places)]
        for cls in reversed(self._classes):
            last = reach[-1]
            reach.append(
                tuple(n + (len(cls.items) if j in cls.holders else 0) for j, n in enumerate(last))
            )
        return reach[::-1]

    # -- counting -----------------------------------------------------------------------------

    def _level(self, i: int, room: tuple[int, ...]) -> int:
        """The number of ways classes ``i`` on fill exactly ``room``."""
        key = (i, room)
        known = self._counts.get(key)
        if known is not None:
            return known
        classes = self._classes
        total = 0
        if i == len(classes):
            total = 0 if any(room) else 1
        elif any(r > n for r, n in zip(room, self._reach[i], strict=True)):
            total = 0
        elif i == len(classes) - 1 and classes[i].table is None:
            total = _multinomial(room)  # the last plain class takes what is left, any order
        else:
            vectors: list[tuple[int, ...]] = []
            cumulative: list[int] = []
            for vector, ways in self._options(i, room):
                rest = tuple(r - v for r, v in zip(room, vector, strict=True))
                after = self._level(i + 1, rest)
                if after:
                    total += ways * after
                    vectors.append(vector)
                    cumulative.append(total)
            if total:
                self._choices[key] = (vectors, cumulative)
        self._counts[key] = total
        return total

    def _options(self, i: int, room: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """Each count vector class ``i`` may take within ``room``, with its number of ways."""
        cls = self._classes[i]
        if cls.table is not None:
            return [
                (v, w) for v, w in cls.table if all(a <= r for a, r in zip(v, room, strict=True))
            ]
        later = self._reach[i + 1]
        low = [max(0, r - n) for r, n in zip(room, later, strict=True)]  # later cannot fill it
        found: list[tuple[tuple[int, ...], int]] = []
        vector = [0] * len(room)
        holders = cls.holders

        def place(k: int, left: int, ways: int) -> None:
            j = holders[k]
            if k == len(holders) - 1:
                if low[j] <= left <= room[j]:
                    vector[j] = left
                    found.append((tuple(vector), ways))
                    vector[j] = 0
                return
            for a in range(low[j], min(room[j], left) + 1):
                vector[j] = a
                place(k + 1, left - a, ways * math.comb(left, a))
            vector[j] = 0

        if holders:
            place(0, len(cls.items), 1)
        return found

    # -- drawing ------------------------------------------------------------------------------

    def sample(self, rng: random.Random) -> Deal:
        """One deal, drawn uniformly (see the module docs)."""
        if not self.count:
            raise ValueError(f"no deal is consistent with what seat {self.knowledge.seat} knows")
        room = self._start
        parts: list[list[Card]] = [[] for _ in self.places]
        last = len(self._classes) - 1
        for i, cls in enumerate(self._classes):
            if i == last and cls.table is None:
                vector = room
            else:
                vectors, cumulative = self._choices[(i, room)]
                vector = vectors[bisect_right(cumulative, rng.randrange(cumulative[-1]))]
            if cls.table is not None:
                for j, n in enumerate(vector):
                    parts[j].extend(cls.items[:n])
            else:
                items = list(cls.items)
                rng.shuffle(items)
                start = 0
                for j in cls.holders:
                    parts[j].extend(items[start : start + vector[j]])
                    start += vector[j]
            room = tuple(r - v for r, v in zip(room, vector, strict=True))
        return self._deal(parts)

    def samples(self, rng: random.Random, n: int) -> list[Deal]:
        return [self.sample(rng) for _ in range(n)]

    def _deal(self, parts: list[list[Card]]) -> Deal:
        knowledge = self.knowledge
        where = {p: tuple(sorted(cards)) for p, cards in zip(self.places, parts, strict=True)}
        hands = tuple(
            knowledge.hand if seat == knowledge.seat else where.get(seat, ()) for seat in range(4)
        )
        kitty = knowledge.kitty if knowledge.kitty is not None else where.get(KITTY, ())
        return Deal(hands, kitty, where.get(UNDEALT, ()))

    # -- positions ----------------------------------------------------------------------------

    def card_play(self, deal: Deal) -> CardPlay:
        """The card play now with these hands: the trick on the table, the tricks taken, the
        defenders' points and the throw penalties so far (a fresh object each call)."""
        knowledge = self.knowledge
        trump, table, dealer = knowledge.trump, knowledge.table, knowledge.dealer
        if knowledge.phase is not Phase.PLAY or trump is None or table is None or dealer is None:
            raise ValueError(
                f"a position is built in the card play, not in the {knowledge.phase.value} phase"
            )
        if self._tricks is None:
            self._tricks = self._tricks_taken()
        play = CardPlay(trump, deal.hands, dealer, leader=table.leader)
        play.tricks = list(self._tricks)
        play.defender_points = knowledge.defenders_points
        play.penalty_points = knowledge.throw_penalties
        for seat, cards in table.plays:
            play.trick.add(seat, cards)
        return play

    def _tricks_taken(self) -> list[Trick]:
        knowledge = self.knowledge
        assert knowledge.trump is not None and knowledge.dealer is not None
        tricks: list[Trick] = []
        trick = Trick(knowledge.trump, knowledge.dealer)
        done = len(knowledge.plays) - (0 if knowledge.table is None else len(knowledge.table.plays))
        for seat, cards in knowledge.plays[:done]:
            trick.add(seat, cards)
            if trick.done:
                tricks.append(trick)
                trick = Trick(knowledge.trump, trick.winner)
        return tricks

    def hand_state(self, deal: Deal) -> HandState:
        """The hand now with these cards, to play to its end and score
        (:attr:`HandState.result`): :meth:`card_play` inside a hand with this deal's kitty and
        the penalties of failed fries."""
        knowledge = self.knowledge
        play = self.card_play(deal)
        start = [list(h) + list(p) for h, p in zip(deal.hands, knowledge.played, strict=True)]
        assert knowledge.dealer is not None
        state = HandState.from_position(
            knowledge.preset, play.trump, start, knowledge.dealer, deal.kitty
        )
        state.play = play
        state.auction.fry_penalty = knowledge.fry_penalty
        return state


def sample_deals(view: SeatView | Knowledge, rng: random.Random, n: int) -> list[Deal]:
    """``n`` deals drawn uniformly among those ``view``'s seat cannot tell from the truth."""
    return DealSampler(view).samples(rng, n)


def count_deals(view: SeatView | Knowledge) -> int:
    """How many deals ``view``'s seat cannot tell apart (the two copies of a kind told apart)."""
    return DealSampler(view).count


def position(view: SeatView | Knowledge, deal: Deal) -> HandState:
    """The hand as it stands, with ``deal``'s cards, ready to play out
    (:meth:`DealSampler.hand_state`)."""
    return DealSampler(view).hand_state(deal)
