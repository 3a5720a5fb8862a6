"""Units of a play (singles, pairs, tractors), the format of a lead, and how well cards match it.

All functions take cards of one effective suit. A *pair* is two copies of one card kind; a
*tractor* is a run of pairs on adjacent places of the suit's chain (:mod:`chaodipi.engine.trump`).

The *structure score* of some cards against a lead's format is the pair (pairs matched inside
tractors of the lead's lengths, pairs matched) that a follower's cards can show. A follow must
show as much structure as the follower's holding allows; a ruff must show all of it.

>>> from chaodipi.engine.cards import parse_cards
>>> from chaodipi.engine.cards import Rank, Suit
>>> t = Trump(Rank.TWO, Suit.SPADES)
>>> [str(u) for u in decompose(t, parse_cards("♣AAKK ♣QQ ♣9 ♣5"))]
['♣AAKKQQ', '♣9', '♣5']
>>> decompose_format(t, parse_cards("♣AAKK ♣77 ♣9"))
Format(tractors=(2,), pairs=1, singles=1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from chaodipi.engine.cards import Card, format_cards
from chaodipi.engine.trump import Trump

__all__ = [
    "Format",
    "Unit",
    "count_cards",
    "decompose",
    "decompose_format",
    "find_runs",
    "leading_key",
    "pairs_of",
    "ruff_holds",
    "run_variants",
    "structure_score",
    "tractor_key",
]


@dataclass(frozen=True, slots=True)
class Format:
    """The shape of a lead: tractor lengths (in pairs, longest first), loose pairs, singles."""

    tractors: tuple[int, ...] = ()
    pairs: int = 0
    singles: int = 0

    @property
    def total_pairs(self) -> int:
        """Pairs in the lead, counting those inside tractors."""
        return sum(self.tractors) + self.pairs

    @property
    def size(self) -> int:
        return 2 * self.total_pairs + self.singles

    @property
    def units(self) -> int:
        return len(self.tractors) + self.pairs + self.singles

    @property
    def full_score(self) -> tuple[int, int]:
        """The structure score of the lead itself (what a ruff must match)."""
        return (sum(self.tractors), self.total_pairs)


@dataclass(frozen=True, slots=True)
class Unit:
    """A single, a pair or a tractor inside a play.

    ``length`` is 0 for a single, 1 for a pair, L for a tractor of L pairs. ``key`` orders units
    of the same shape: the card's strength for singles and pairs, the top pair's chain place for
    tractors. ``low`` is the strength of the unit's smallest card.
    """

    cards: tuple[Card, ...]
    length: int
    key: int
    low: int

    def __str__(self) -> str:
        return format_cards(self.cards)


def count_cards(cards: Iterable[Card]) -> dict[Card, int]:
    """Multiset of cards (a hand): card -> copies."""
    counts: dict[Card, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return counts


def pairs_of(cards: Iterable[Card]) -> list[Card]:
    """The card kinds that appear twice."""
    counts = count_cards(cards)
    return [c for c, n in counts.items() if n >= 2]


def _runs_from(by_pos: dict[int, list[Card]]) -> list[list[Card]]:
    runs: list[list[Card]] = []
    current: list[Card] = []
    last = -10
    for pos in sorted(by_pos):
        if pos != last + 1 and current:
            runs.append(current)
            current = []
        current.append(by_pos[pos][0])
        last = pos
    if current:
        runs.append(current)
    return [run for run in runs if len(run) >= 2]


def run_variants(trump: Trump, pairs: Sequence[Card]) -> list[list[list[Card]]]:
    """Every way to read the pairs as maximal runs (an A pair may sit low or high).

    Each variant is a list of runs of at least two pairs, each run listed from low to high.
    """
    if len(pairs) < 2:
        return [[]]
    positions = trump.positions
    by_pos: dict[int, list[Card]] = {}
    dual: tuple[Card, tuple[int, ...]] | None = None
    for c in pairs:
        places = positions[c]
        for p in places:
            by_pos.setdefault(p, []).append(c)
        if len(places) == 2:
            dual = (c, places)
    if dual is None:
        return [_runs_from(by_pos)]
    card, places = dual
    variants = []
    for dropped in places:
        trimmed = {p: [c for c in cs if c != card or p != dropped] for p, cs in by_pos.items()}
        variants.append(_runs_from({p: cs for p, cs in trimmed.items() if cs}))
    return variants


def find_runs(trump: Trump, pairs: Sequence[Card]) -> list[list[Card]]:
    """The best reading of the pairs as tractors: the longest run, then the most pairs in runs."""
    variants = run_variants(trump, pairs)
    if len(variants) == 1:
        return variants[0]
    return max(
        variants,
        key=lambda runs: (max((len(r) for r in runs), default=0), sum(len(r) for r in runs)),
    )


def tractor_key(trump: Trump, run: Sequence[Card]) -> int:
    """Chain place of a run's top pair (so AA22 ranks by its 2: the A counts as 1)."""
    below = trump.positions[run[-2]]
    return next(p for p in trump.positions[run[-1]] if any(p == b + 1 for b in below))


def decompose(trump: Trump, cards: Sequence[Card]) -> list[Unit]:
    """Split same-suit cards into units: tractors first, then pairs, then singles.

    Units are returned largest shape first, then strongest first.
    """
    order = trump.order
    counts = count_cards(cards)
    pairs = [c for c, n in counts.items() if n >= 2]
    units: list[Unit] = []
    in_runs: set[int] = set()
    if len(pairs) >= 2:
        for run in find_runs(trump, pairs):
            in_runs.update(run)
            units.append(
                Unit(
                    tuple(c for c in reversed(run) for _ in range(2)),
                    len(run),
                    tractor_key(trump, run),
                    min(order[c] for c in run),
                )
            )
    for c in pairs:
        if c not in in_runs:
            units.append(Unit((c, c), 1, order[c], order[c]))
    for c, n in counts.items():
        if n == 1:
            units.append(Unit((c,), 0, order[c], order[c]))
    units.sort(key=lambda u: (-u.length, -u.key))
    return units


def format_of(units: Sequence[Unit]) -> Format:
    """The format described by a list of units."""
    return Format(
        tractors=tuple(sorted((u.length for u in units if u.length >= 2), reverse=True)),
        pairs=sum(1 for u in units if u.length == 1),
        singles=sum(1 for u in units if u.length == 0),
    )


def decompose_format(trump: Trump, cards: Sequence[Card]) -> Format:
    """The format of same-suit cards (see :func:`decompose`)."""
    return format_of(decompose(trump, cards))


@lru_cache(maxsize=4096)
def _pack(slots: tuple[int, ...], runs: tuple[int, ...]) -> int:
    """Most pairs of tractor slots that runs can fill: a slot of L pairs takes a piece of 2 to
    L consecutive pairs of one run (a shorter tractor answers a longer one as far as it goes:
    000 「首家出连对时，其余家有连对必须出连对」); what is left of the run serves other slots.

    >>> _pack((3,), (2,)), _pack((3,), (4,)), _pack((3, 2), (4,)), _pack((2, 2), (2, 2))
    (2, 3, 4, 4)
    """
    if not slots or not runs:
        return 0
    first, rest = slots[0], slots[1:]
    best = _pack(rest, runs)  # leave this slot unmatched
    for i, room in enumerate(runs):
        for take in range(2, min(first, room) + 1):
            left = (*runs[:i], room - take, *runs[i + 1 :])
            best = max(best, take + _pack(rest, tuple(r for r in left if r >= 2)))
    return best


def structure_score(trump: Trump, pairs: Sequence[Card], fmt: Format) -> tuple[int, int]:
    """How much of the format's structure these pairs can show.

    Returns (pairs inside tractors matched to the lead's tractors, pairs matched). Each lead
    tractor is matched by one tractor of the cards, or a part of one, as long as it can be up
    to the lead tractor's length (a shorter one counts its pairs); pairs count up to the lead's
    total pairs.

    >>> from chaodipi.engine.cards import Rank, Suit, parse_cards
    >>> t = Trump(Rank.TWO, Suit.SPADES)
    >>> structure_score(t, pairs_of(parse_cards("♠9988 ♠77")), Format(tractors=(3,)))
    (3, 3)
    >>> structure_score(t, pairs_of(parse_cards("♠9988 ♠KK")), Format(tractors=(3,)))
    (2, 3)
    >>> structure_score(t, pairs_of(parse_cards("♠99 ♠JJ ♠KK")), Format(tractors=(3,)))
    (0, 3)
    """
    total = fmt.total_pairs
    if total == 0 or not pairs:
        return (0, 0)
    pair_score = min(total, len(pairs))
    if not fmt.tractors or len(pairs) < 2:
        return (0, pair_score)
    best = 0
    for runs in run_variants(trump, pairs):
        if runs:
            lengths = tuple(sorted((len(r) for r in runs), reverse=True))
            best = max(best, _pack(fmt.tractors, lengths))
    return (best, pair_score)


def ruff_holds(trump: Trump, cards: Sequence[Card], fmt: Format) -> bool:
    """Do these trumps hold the structure a ruff (毙) of this lead needs: as many tractors as the
    lead (a run of four pairs counts as two) and as many pairs, pairs inside tractors counted
    (000 「其连对的数目不得少于首家出的牌中的连对的数目，对牌的数目也不得少于首家出的牌中的对牌的
    数目，否则被视为垫牌」)? Tractor lengths do not count: ♠9988 ♠KK ruffs ♣334455.

    >>> from chaodipi.engine.cards import Rank, Suit, parse_cards
    >>> t = Trump(Rank.TWO, Suit.SPADES)
    >>> lead = Format(tractors=(3,))
    >>> [ruff_holds(t, parse_cards(c), lead) for c in ("♠9988 ♠KK", "♠99 ♠JJ ♠KK", "♠9988 ♠K ♠3")]
    [True, False, False]
    >>> ruff_holds(t, parse_cards("♠99887766"), Format(tractors=(2, 2)))
    True
    """
    pairs = pairs_of(cards)
    if len(pairs) < fmt.total_pairs:
        return False
    need = len(fmt.tractors)
    if not need:
        return True
    return any(
        sum(len(run) // 2 for run in runs) >= need for runs in run_variants(trump, pairs)
    )


def leading_key(trump: Trump, cards: Sequence[Card], fmt: Format) -> tuple[int, int]:
    """How strong a play is for winning a trick of this format: by its biggest unit of the
    lead's leading shape (longest tractor, else pair, else single).

    Tractors compare by length first (000: 「长度最长的连对最大」), then by the top pair's chain
    place (so the level pair counts at its face rank, and AA22 by its 2). Every tractor of the
    cards counts, shorter than the lead's too (a ruff needs only as many tractors: see
    :func:`ruff_holds`; a follow in the suit wins only with the lead's whole structure).
    """
    order = trump.order
    if fmt.tractors:
        best = (-1, -1)
        for runs in run_variants(trump, pairs_of(cards)):
            for run in runs:
                best = max(best, (len(run), tractor_key(trump, run)))
        return best
    if fmt.pairs:
        return (1, max((order[c] for c in pairs_of(cards)), default=-1))
    return (0, max(order[c] for c in cards))
