"""The exact set of legal plays for a seat, in a compact form that any bot can read.

Listing every legal play is hopeless when a seat may choose freely (discarding six cards while
void: C(25, 6) = 177,100 plays). Instead the set is a union of :class:`Option` s, each meaning
"these ``forced`` cards plus any ``k`` cards of this ``pool``" for ``k_min <= k <= k_max``:

* a lead: one option per effective suit held (any 1..n cards of it: single, pair, tractor or a
  throw, which the engine checks when it is played), plus an option per 5-10-K that mixes the
  trump ♥5 with hearts;
* a follow: when short in the suit led, all of it is forced and the rest is any cards; otherwise
  one option per minimal set of pairs/tractors that shows the structure the seat must show, with
  the rest any cards of the suit.

The options are exact: a play is legal if and only if some option produces it, and
:func:`check_play` gives the reason when it is not. Options of a follow may overlap;
:meth:`LegalPlays.__iter__` yields each play once.

>>> from chaodipi.engine.cards import Rank, Suit, parse_cards
>>> from chaodipi.engine.trick import classify_lead
>>> from chaodipi.engine.units import count_cards
>>> t = Trump(Rank.TWO, Suit.SPADES)
>>> hand = count_cards(parse_cards("♣KK ♣77 ♣3 ♥4 ♥6"))
>>> legal = follow_options(t, classify_lead(t, parse_cards("♣99")), hand)
>>> [str(o) for o in legal.options]
['♣77', '♣KK']
>>> legal.count()
2
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from chaodipi.engine.cards import CARDS, Card, Rank, Suit, format_cards
from chaodipi.engine.trick import Lead, five_ten_king_of, holding, trump_five_ten_king_in
from chaodipi.engine.trump import TRUMP, Trump
from chaodipi.engine.units import pairs_of, structure_score

__all__ = ["LegalPlays", "Option", "follow_options", "lead_options"]


def _groups(pool: Sequence[Card]) -> tuple[tuple[Card, int], ...]:
    groups: dict[Card, int] = {}
    for c in pool:
        groups[c] = groups.get(c, 0) + 1
    return tuple(groups.items())


def _suffix_ways(mults: Sequence[int], most: int) -> list[list[int]]:
    """``table[i][r]``: the ways to take ``r`` cards (r <= most) from groups ``i`` onwards of a
    multiset with these multiplicities (one small table instead of a recursion)."""
    table = [[0] * (most + 1) for _ in range(len(mults) + 1)]
    table[len(mults)][0] = 1
    for i in range(len(mults) - 1, -1, -1):
        after, row, mult = table[i + 1], table[i], mults[i]
        for r in range(most + 1):
            row[r] = sum(after[r - j] for j in range(min(mult, r) + 1))
    return table


def _multiset_combinations(
    groups: tuple[tuple[Card, int], ...], k: int, start: int = 0
) -> Iterator[tuple[Card, ...]]:
    if k == 0:
        yield ()
        return
    for i in range(start, len(groups)):
        card, mult = groups[i]
        for j in range(min(mult, k), 0, -1):
            for rest in _multiset_combinations(groups, k - j, i + 1):
                yield (card,) * j + rest


def _pick(rng: random.Random, weights: Sequence[int]) -> int:
    """An index drawn with probability proportional to its (integer) weight."""
    r = rng.randrange(sum(weights))
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    raise AssertionError("unreachable: weights sum to more than r")


@dataclass(frozen=True, slots=True)
class Option:
    """Every play made of ``forced`` plus any ``k`` cards of ``pool``, ``k_min <= k <= k_max``.

    ``pool`` is a multiset (a card may appear twice); picking from it never picks a card more
    often than it appears.
    """

    forced: tuple[Card, ...]
    pool: tuple[Card, ...]
    k_min: int
    k_max: int

    @property
    def takes_any_part(self) -> bool:
        """Any part of the pool may be added (from ``k_min`` of 0 or 1 up to all of it)."""
        return self.k_min <= 1 and self.k_max == len(self.pool)

    @property
    def is_single(self) -> bool:
        """Exactly one play: ``count() == 1``, without counting.

        >>> from chaodipi.engine.cards import parse_cards
        >>> Option((), tuple(parse_cards("♠99")), 1, 1).is_single  # either ♠9 is the same play
        True
        >>> Option((), tuple(parse_cards("♠98")), 1, 1).is_single
        False
        """
        k, pool = self.k_min, self.pool
        return k == self.k_max and (k == 0 or k == len(pool) or len(set(pool)) == 1)

    def count(self) -> int:
        """How many distinct plays this option allows."""
        groups = _groups(self.pool)
        if self.takes_any_part:
            every = 1
            for _, mult in groups:
                every *= mult + 1
            return every - self.k_min
        ways = _suffix_ways([m for _, m in groups], self.k_max)[0]
        return sum(ways[self.k_min : self.k_max + 1])

    def __contains__(self, cards: object) -> bool:
        """Is ``cards`` (any order) one of this option's plays?

        >>> from chaodipi.engine.cards import parse_cards
        >>> option = Option(tuple(parse_cards("♠A")), tuple(parse_cards("♠99 ♠3")), 1, 2)
        >>> [tuple(parse_cards(t)) in option for t in ("♠A ♠9", "♠A ♠99", "♠A", "♠A ♠999")]
        [True, True, False, False]
        """
        if not isinstance(cards, tuple | list):
            return False
        extra = Counter(cards)
        extra.subtract(self.forced)
        if any(n < 0 for n in extra.values()):
            return False
        left = Counter(self.pool)
        left.subtract(extra)
        taken = sum(extra.values())
        return all(n >= 0 for n in left.values()) and self.k_min <= taken <= self.k_max

    def plays(self) -> Iterator[tuple[Card, ...]]:
        """Each play of this option once, cards sorted."""
        groups = _groups(self.pool)
        for k in range(self.k_min, self.k_max + 1):
            for extra in _multiset_combinations(groups, k):
                yield tuple(sorted(self.forced + extra))

    def sample(self, rng: random.Random) -> tuple[Card, ...]:
        """One play of this option, uniformly at random."""
        pool = self.pool
        if self.k_max == 0 or not pool:
            return self.forced
        groups = _groups(pool)
        if self.takes_any_part:
            # every sub-multiset is equally likely when each kind's copies are drawn apart
            while True:
                part = [c for c, mult in groups for _ in range(rng.randrange(mult + 1))]
                if len(part) >= self.k_min:
                    return tuple(sorted(self.forced + tuple(part)))
        if self.k_min == self.k_max and len(groups) == len(pool):
            picked = tuple(rng.sample(pool, self.k_min))  # all different: a plain sample
            return tuple(sorted(self.forced + picked))
        table = _suffix_ways([m for _, m in groups], self.k_max)
        k = self.k_min + _pick(rng, table[0][self.k_min : self.k_max + 1])
        chosen: list[Card] = []
        for i, (card, mult) in enumerate(groups):
            if k == 0:
                break
            after = table[i + 1]
            j = _pick(rng, [after[k - j] for j in range(min(mult, k) + 1)])
            chosen.extend([card] * j)
            k -= j
        return tuple(sorted(self.forced + tuple(chosen)))

    def __str__(self) -> str:
        text = format_cards(self.forced)
        if self.pool and self.k_max:
            k = str(self.k_min) if self.k_min == self.k_max else f"{self.k_min}-{self.k_max}"
            text = f"{text} + any {k} of {format_cards(self.pool)}".lstrip(" +")
        return text


@dataclass(frozen=True, slots=True)
class LegalPlays:
    """The legal plays of a seat: the union of some options (see the module docstring)."""

    options: tuple[Option, ...]
    disjoint: bool = True

    def __iter__(self) -> Iterator[tuple[Card, ...]]:
        if self.disjoint:
            for option in self.options:
                yield from option.plays()
            return
        seen: set[tuple[Card, ...]] = set()
        for option in self.options:
            for play in option.plays():
                if play not in seen:
                    seen.add(play)
                    yield play

    def __contains__(self, cards: object) -> bool:
        """Is ``cards`` (any order) a legal play?"""
        return any(cards in option for option in self.options)

    def count(self) -> int:
        """How many distinct legal plays there are."""
        if self.disjoint or len(self.options) == 1:
            return sum(option.count() for option in self.options)
        return sum(1 for _ in self)

    def sample(self, rng: random.Random) -> tuple[Card, ...]:
        """A legal play at random: an option weighted by its size, then a uniform play of it
        (exactly uniform when the options are disjoint)."""
        options = self.options
        if len(options) == 1:
            return options[0].sample(rng)
        if all(option.k_max == 0 for option in options):
            return options[rng.randrange(len(options))].forced
        return options[_pick(rng, [option.count() for option in options])].sample(rng)


def lead_options(trump: Trump, hand: dict[Card, int]) -> LegalPlays:
    """Legal leads from ``hand`` (copies of each card: :func:`~chaodipi.engine.units.count_cards`):
    any cards of one effective suit, or a 5-10-K that mixes suits."""
    by_suit: list[list[Card]] = [[], [], [], [], []]
    suit_of = trump.suit_of
    for card, copies in sorted(hand.items()):
        by_suit[suit_of[card]].extend((card,) * copies)
    options = [Option((), tuple(held), 1, len(held)) for held in by_suit if held]
    for five_ten_king in _mixed_five_ten_kings(trump, hand):
        options.append(Option(five_ten_king, (), 0, 0))
    return LegalPlays(tuple(options))


_HEARTS_FIVE_TEN_KING = tuple(CARDS[Suit.HEARTS * 13 + r] for r in (Rank.FIVE, Rank.TEN, Rank.KING))


def _mixed_five_ten_kings(trump: Trump, hand: dict[Card, int]) -> list[tuple[Card, ...]]:
    """5-10-Ks whose cards are not of one effective suit (the hearts one with the trump ♥5)."""
    rules = trump.rules
    if not (rules.five_ten_king and rules.red_five and rules.red_five_in_hearts_ftk):
        return []
    five, ten, king = _HEARTS_FIVE_TEN_KING
    if trump.suit_of[five] != TRUMP or trump.suit_of[ten] == TRUMP:
        return []
    found = []
    for copies in (1, 2):
        cards = tuple(sorted((five, ten, king) * copies))
        held = all(hand.get(c, 0) >= copies for c in (five, ten, king))
        if held and five_ten_king_of(trump, cards):
            found.append(cards)
    return found


def follow_options(trump: Trump, lead: Lead, hand: dict[Card, int]) -> LegalPlays:
    """Legal follows to ``lead`` (a :class:`~chaodipi.engine.trick.Trick`'s ``lead``) from
    ``hand`` (copies of each card: :func:`~chaodipi.engine.units.count_cards`), for any seat's
    cards: a bot asks it of the cards it imagines another seat to hold."""
    n = len(lead.cards)
    held = holding(trump, hand, lead.suit)
    if lead.is_trump_five_ten_king:
        own = trump_five_ten_king_in(trump, hand)
        if own is not None:
            return LegalPlays((Option(own, (), 0, 0),))
    if len(held) <= n:
        others = tuple(
            c for c in sorted(hand) if trump.suit_of[c] != lead.suit for _ in range(hand[c])
        )
        k = n - len(held)
        return LegalPlays((Option(tuple(held), others, k, k),))
    if lead.is_trump_five_ten_king and trump.rules.ftk_answer_highest:
        order = trump.order
        threshold = sorted((order[c] for c in held), reverse=True)[n - 1]
        top = tuple(c for c in held if order[c] > threshold)
        tied = tuple(c for c in held if order[c] == threshold)
        return LegalPlays((Option(top, tied, n - len(top), n - len(top)),))
    fmt = lead.fmt
    pairs = pairs_of(held) if fmt.total_pairs else []
    if not pairs:
        return LegalPlays((Option((), tuple(held), n, n),))
    need = structure_score(trump, pairs, fmt)
    target = need[1]
    options = []
    k = n - 2 * target
    for chosen in combinations(pairs, target):
        if need[0] and structure_score(trump, chosen, fmt) != need:
            continue
        forced = tuple(sorted(chosen * 2))
        rest = list(held)
        for c in forced:
            rest.remove(c)
        options.append(Option(forced, tuple(rest), k, k))
    # With nothing to add, the options are distinct sets of pairs; otherwise they may overlap.
    return LegalPlays(tuple(options), disjoint=len(options) <= 1 or k == 0)
