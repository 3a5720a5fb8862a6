"""The fixed ``Discrete`` action space: plays built card by card, plus pass and the bids.

Plays in 炒地皮 are sets of cards (pairs, tractors, throws, a bury of eight), far too many to
number one by one. Here a play is *built*: the seat picks a card kind, then another, …, then
"done". Kinds are picked in the engine's card order (code 0-53, never lower than the kind
picked last; a kind may be picked twice), so each play has exactly one spelling, and the mask
allows only the kinds whose prefix can still complete to a legal play, and "done" only when
the cards picked are a legal play.

==========  ==================================================================================
action id   meaning
==========  ==================================================================================
0-53        add a card of this kind (engine code: ``suit * 13 + rank``; 52 LJ, 53 BJ)
54          done: play (or bury) the cards picked
55          pass (declaring, frying)
56-74       a bid (:data:`BID_KEYS`, in this order): a single level card of ♠ ♥ ♣ ♦ (56-59), a
            level pair of ♠ ♥ ♣ ♦ (60-63), the small-joker pair (64), the big-joker pair (65),
            the ♥5 pair naming ♠ ♥ ♣ ♦ or no-trump (66-70), 回头望 in ♠ ♥ ♣ ♦ (71-74)
==========  ==================================================================================

>>> from chaodipi.engine import Match, PRESETS, observe
>>> match = Match(PRESETS["classic"], seed=1)
>>> legal = match.legal_actions()
>>> [action_name(a) for a in np.flatnonzero(CardBuilder(legal).mask())]
['pass']
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Final

import numpy as np
import numpy.typing as npt

from chaodipi.engine import (
    CARDS,
    PASS,
    Action,
    Bid,
    BidKind,
    Card,
    LegalActions,
    LegalPlays,
    Suit,
    bid_action,
    card_action,
    format_cards,
)

__all__ = [
    "BID_BASE",
    "BID_KEYS",
    "DONE",
    "NUM_ACTIONS",
    "PASS_ID",
    "CardBuilder",
    "Mask",
    "action_name",
    "bid_id",
    "reachable",
    "spell",
]

Mask = npt.NDArray[np.int8]

DONE: Final = 54
PASS_ID: Final = 55
BID_BASE: Final = 56
_SUITS: Final = tuple(Suit)
BID_KEYS: Final[tuple[tuple[BidKind, Suit | None], ...]] = (
    *((BidKind.SINGLE, s) for s in _SUITS),
    *((BidKind.SUIT_PAIR, s) for s in _SUITS),
    (BidKind.SMALL_JOKERS, None),
    (BidKind.BIG_JOKERS, None),
    *((BidKind.RED_FIVES, s) for s in (*_SUITS, None)),
    *((BidKind.HUITOUWANG, s) for s in _SUITS),
)
"""Each bid id's (kind, suit), from :data:`BID_BASE` on."""
NUM_ACTIONS: Final = BID_BASE + len(BID_KEYS)
_BID_INDEX: Final = {key: i for i, key in enumerate(BID_KEYS)}


def bid_id(bid: Bid) -> int:
    """The action id of a bid."""
    return BID_BASE + _BID_INDEX[(bid.kind, bid.suit)]


def action_name(action_id: int) -> str:
    """What an action id means, in words (``♠9``, ``done``, ``pass``, ``bid RED_FIVES ♠``).

    >>> action_name(0), action_name(53), action_name(DONE), action_name(BID_BASE + 10)
    ('♠2', 'BJ', 'done', 'bid RED_FIVES ♠')
    """
    action_id = int(action_id)
    if 0 <= action_id < 54:
        return str(CARDS[action_id])
    if action_id == DONE:
        return "done"
    if action_id == PASS_ID:
        return "pass"
    if BID_BASE <= action_id < NUM_ACTIONS:
        kind, suit = BID_KEYS[action_id - BID_BASE]
        return f"bid {kind.name}" + ("" if suit is None and kind is not BidKind.RED_FIVES
                                     else f" {'NT' if suit is None else suit.symbol}")
    raise ValueError(f"{action_id} is not an action id: they are 0 to {NUM_ACTIONS - 1}")


def spell(action: Action) -> list[int]:
    """The action ids that take ``action``: its cards in order then done, a pass, or a bid.

    >>> from chaodipi.engine import parse_action, Rank
    >>> spell(parse_action("play ♠99 ♠3", Rank.TWO))
    [1, 7, 7, 54]
    """
    cards = getattr(action, "cards", None)
    if cards is not None:
        return [*sorted(int(c) for c in cards), DONE]
    bid = getattr(action, "bid", None)
    if bid is not None:
        return [bid_id(bid)]
    return [PASS_ID]


class _Options:
    """A legal set's options, computed once per decision. A play is built in kind order, so
    after the kinds up to ``m`` are picked, an option can still give the play if what was
    picked of the kinds below ``m`` is exactly its (forced and pool) cards there, no forced kind
    was skipped, and the count can still come right. Arrays: a row per option, a column per
    card kind."""

    def __init__(self, plays: LegalPlays) -> None:
        options = plays.options
        n = self.n = len(options)
        # every option's counts at once: one bincount over (option, kind) cells
        pool_cells = [i * 54 + c for i, o in enumerate(options) for c in o.pool]
        pool = np.bincount(pool_cells, minlength=n * 54).reshape(n, 54)
        pool_from = pool[:, ::-1].cumsum(axis=1)[:, ::-1]
        """Pool cards of each kind and those above it."""
        k_min = np.array([o.k_min for o in options])
        k_max = np.array([o.k_max for o in options])
        # A first copy of kind k, every picked card being below it, leaves the play needing
        # between size - forced_before[k] + (k not forced) and size - forced_before[k] +
        # pool_from[k] pool cards; that meets [k_min, k_max] when low[k] <= size <= high[k]
        # (and never where the option has no copy of k).
        if any(o.forced for o in options):
            forced_cells = [i * 54 + c for i, o in enumerate(options) for c in o.forced]
            forced = np.bincount(forced_cells, minlength=n * 54).reshape(n, 54)
            upto = forced + pool
            forced_before = np.cumsum(forced, axis=1) - forced
            """Forced cards of the kinds below each kind."""
            self.low = k_min[:, None] - (pool_from - forced_before)
            self.high = np.where(upto > 0, k_max[:, None] - (forced == 0) + forced_before, -1)
            self.forced = forced
            self.forced_before = forced_before
        else:  # the common case (a lead, a bury, a follow in suit): the same, simpler
            upto = pool
            self.low = k_min[:, None] - pool_from
            self.high = np.where(pool > 0, k_max[:, None] - 1, -1)
            self.forced = self.forced_before = np.zeros((n, 54), np.int64)
        self.upto = upto
        """The most copies of each kind a play of the option holds."""
        self.pool_from = pool_from
        self.k_min = [o.k_min for o in options]
        self.k_max = [o.k_max for o in options]
        self.forced_size = [len(o.forced) for o in options]
        self.forced_kinds = [sorted(set(o.forced)) for o in options]

    def next_forced(self, option: int, kind: int) -> int:
        """The first kind from ``kind`` on that ``option`` forces (54: none)."""
        kinds = self.forced_kinds[option]
        at = bisect_left(kinds, kind)
        return kinds[at] if at < len(kinds) else 54


_KINDS: Final = np.arange(54)


class CardBuilder:
    """One decision in the card-by-card form: the mask, and the engine action once done.

    >>> from chaodipi.engine import Match, PRESETS, observe
    >>> from chaodipi.engine.legal import LegalPlays, Option
    >>> from chaodipi.engine.actions import LegalActions
    >>> from chaodipi.engine.phase import Phase
    >>> from chaodipi.engine.cards import parse_cards
    >>> pairs = LegalPlays((Option(tuple(parse_cards("♣77")), (), 0, 0),
    ...                     Option(tuple(parse_cards("♣KK")), (), 0, 0)))
    >>> builder = CardBuilder(LegalActions(Phase.PLAY, 0, cards=pairs))
    >>> [action_name(a) for a in np.flatnonzero(builder.mask())]
    ['♣7', '♣K']
    >>> builder.step(int(Card.parse("♣7")))
    >>> [action_name(a) for a in np.flatnonzero(builder.mask())]
    ['♣7']
    >>> builder.step(int(Card.parse("♣7"))); builder.step(DONE)
    >>> str(builder.chosen)
    'play ♣77'
    """

    def __init__(self, legal: LegalActions) -> None:
        self.legal = legal
        self.picked = np.zeros(54, np.int8)
        """The cards picked so far, counts per kind."""
        self.chosen: Action | None = None
        """The engine action, once the choice is complete."""
        self._last = 0
        self._size = 0
        self._cards: list[Card] = []
        self._options = None if legal.cards is None else _Options(legal.cards)
        self._alive = None if self._options is None else [True] * self._options.n
        """The options the cards picked so far still fit, kind by kind (not yet their count)."""
        self._mask: Mask | None = None

    def mask(self) -> Mask:
        """Which action ids are allowed now (1) and which not (0)."""
        if self._mask is None:
            self._mask = self._compute()
        return self._mask

    def _compute(self) -> Mask:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        legal, o = self.legal, self._options
        if o is None:
            mask[PASS_ID] = legal.can_pass
            for bid in legal.bids:
                mask[bid_id(bid)] = 1
            return mask
        alive = self._alive
        assert alive is not None
        size, last = self._size, (self._last if self._size else -1)
        held = int(self.picked[last]) if size else 0
        # the options whose prefix fits, the last kind's forced copies all in
        rows = [i for i in range(o.n) if alive[i] and (not size or held >= o.forced[i, last])]
        cards = np.zeros(54, bool)
        if rows:  # a first copy of a kind above the last
            reach = [o.next_forced(i, last + 1) for i in rows]
            low, high = (o.low, o.high) if len(rows) == o.n else (o.low[rows], o.high[rows])
            fits = (low <= size) & (high >= size) & (np.array(reach)[:, None] >= _KINDS)
            cards = fits.any(axis=0)
            cards[: last + 1] = False
            mask[DONE] = size > 0 and any(
                r == 54 and o.k_min[i] <= size - o.forced_size[i] <= o.k_max[i]
                for i, r in zip(rows, reach, strict=True)
            )
        if size:  # another copy of the last kind
            for i in range(o.n):
                if not alive[i] or held + 1 > o.upto[i, last]:
                    continue
                fixed = size - held - o.forced_before[i, last]
                least = fixed + max(0, held + 1 - o.forced[i, last])
                if least <= o.k_max[i] and fixed + o.pool_from[i, last] >= o.k_min[i]:
                    cards[last] = True
                    break
        mask[:54] = cards
        return mask

    def step(self, action_id: int) -> None:
        """Take one action id; ``ValueError`` (naming it and what is allowed) unless the mask
        allows it. Once the choice is complete, :attr:`chosen` holds the engine action."""
        action_id = int(action_id)
        if self.chosen is not None:
            raise ValueError("this decision is complete: step the next one")
        mask = self.mask()
        if not 0 <= action_id < NUM_ACTIONS or not mask[action_id]:
            allowed = ", ".join(action_name(int(a)) for a in np.flatnonzero(mask))
            raise ValueError(
                f"action {action_id} ({_describe(action_id)}) is not allowed now; "
                f"allowed: {allowed}"
            )
        phase = self.legal.phase
        if action_id < 54:
            self._fit(action_id)
            self.picked[action_id] += 1
            self._cards.append(CARDS[action_id])  # in order: kinds are picked low to high
            self._last, self._size = action_id, self._size + 1
            self._mask = None
        elif action_id == DONE:
            self.chosen = card_action(phase, tuple(self._cards))
        elif action_id == PASS_ID:
            self.chosen = PASS
        else:
            kind, suit = BID_KEYS[action_id - BID_BASE]
            bid = next(b for b in self.legal.bids if b.kind is kind and b.suit == suit)
            self.chosen = bid_action(phase, bid)

    def _fit(self, kind: int) -> None:
        """Keep the options the prefix still fits once a card of ``kind`` is added."""
        o, alive = self._options, self._alive
        assert o is not None and alive is not None
        size, last = self._size, self._last
        for i in range(o.n):
            if not alive[i]:
                continue
            if size and kind == last:
                alive[i] = self.picked[kind] + 1 <= o.upto[i, kind]
                continue
            if size and self.picked[last] < o.forced[i, last]:
                alive[i] = False
                continue
            alive[i] = kind <= o.next_forced(i, last + 1 if size else 0) and o.upto[i, kind] > 0

    def picked_text(self) -> str:
        """The cards picked so far, as players write them."""
        return format_cards(self._cards)


def _describe(action_id: int) -> str:
    try:
        return action_name(action_id)
    except ValueError:
        return "no such action"


def reachable(legal: LegalActions, limit: int = 100_000) -> Iterator[Action]:
    """Every action the mask lets a seat complete, by walking every allowed sequence (for
    tests: the legal set exactly, each once). Stops with ``ValueError`` past ``limit``."""
    found = 0
    stack = [CardBuilder(legal)]
    while stack:
        builder = stack.pop()
        for action_id in np.flatnonzero(builder.mask()):
            child = _copy(builder)
            child.step(int(action_id))
            if child.chosen is not None:
                found += 1
                if found > limit:
                    raise ValueError(f"more than {limit} actions")
                yield child.chosen
            else:
                stack.append(child)


def _copy(builder: CardBuilder) -> CardBuilder:
    child = CardBuilder.__new__(CardBuilder)
    child.legal = builder.legal
    child.picked = builder.picked.copy()
    child.chosen = None
    child._last, child._size = builder._last, builder._size
    child._cards = list(builder._cards)
    child._options = builder._options
    child._alive = None if builder._alive is None else list(builder._alive)
    child._mask = None
    return child

