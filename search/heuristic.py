"""The heuristic policy: plays like a sensible 升级 player, from a seat's view alone.

* bids and fries on hands long in a would-be trump (a little more carefully when bids are
  hidden and a failed fry costs 80): :func:`choose_bid`;
* buries low side cards from short suits, never trumps or points when it can help it
  (:func:`bury_cards`, with the trump it guesses: :func:`guess_trump`);
* leads what cannot be beaten (a throw only when no unseen card could stop it, checked with the
  engine against every card it has not seen), else low cards from long side suits;
* follows: wins the trick cheaply when it can and it matters, feeds points to a partner who is
  winning, and otherwise sheds its least valuable cards; it remembers who showed a void.

It is the heuristic sample bot (``python3 -m chaodipi.sample_bots.heuristic_bot``), the
trainer's default teacher (``chaodipi.rl``'s bot ``"heuristic"``), and the search's default
move and source of candidates (:mod:`chaodipi.search.pimc`).

>>> import random
>>> from chaodipi.engine import PRESETS, Match, observe
>>> match = Match(PRESETS["classic"], seed=2, max_hands=1)
>>> while not match.over:
...     match.apply(match.to_play, heuristic_move(observe(match, match.to_play)))
>>> len(match.records)
1
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

from chaodipi.engine import (
    TRUMP,
    Action,
    Bid,
    Bury,
    Card,
    Declared,
    Fried,
    KittyTurned,
    Knowledge,
    LegalActions,
    Pass,
    Payload,
    Phase,
    Play,
    Preset,
    Rank,
    SeatView,
    Suit,
    Trump,
    beats_unit,
    bid_action,
    decompose,
    infer,
)

__all__ = [
    "bury_cards",
    "card_value",
    "choose_bid",
    "guess_trump",
    "heuristic_move",
    "play_candidates",
    "trump_guessed",
    "trump_share",
]

MAX_ENUMERATED = 60
"""Legal plays :func:`play_candidates` lists at most beyond the cheapest and dearest forms."""


def card_value(trump: Trump | None, card: Card) -> float:
    """How much a card is worth keeping: trumps and high cards high, points counted too.

    >>> from chaodipi.engine import Card, Rank, Suit, Trump
    >>> trump = Trump(Rank.TWO, Suit.SPADES)
    >>> card_value(trump, Card.parse("♠3")) > card_value(trump, Card.parse("♥A"))
    True
    """
    if trump is None:
        return float(card.points + (card % 13))
    strength = trump.order[card]
    value = strength + card.points * 1.5
    if trump.suit_of[card] == TRUMP:
        value += 30
    return float(value)


def trump_share(hand: Sequence[Card], trump: Trump) -> float:
    """The share of ``hand`` that is trump under ``trump`` (0 for no cards).

    >>> from chaodipi.engine import Rank, Suit, Trump, parse_cards
    >>> trump_share(parse_cards("♠AK ♥3 ♦4"), Trump(Rank.TWO, Suit.SPADES))
    0.5
    """
    return sum(1 for c in hand if trump.suit_of[c] == TRUMP) / max(1, len(hand))


def choose_bid(
    hand: Sequence[Card], level: Rank | None, preset: Preset, legal: LegalActions
) -> Action:
    """The bid (declaring or frying, as ``legal`` says) whose trump would make the largest share
    of ``hand``, when that share is large enough and the hand holds 8 cards or more; else a
    pass (or the first bid, when passing is not allowed)."""
    best: tuple[float, Bid] | None = None
    for bid in legal.bids:
        share = trump_share(hand, Trump(level, bid.suit, preset.card))
        if best is None or share > best[0]:
            best = (share, bid)
    needed = 0.36 if legal.phase is Phase.DECLARE else 0.40
    if preset.bid.hidden:
        needed += 0.05
    if best is not None and best[0] >= needed and len(hand) >= 8:
        return bid_action(legal.phase, best[1])
    if legal.can_pass:
        return Pass()
    return bid_action(legal.phase, legal.bids[0])


def trump_guessed(
    seat: int, events: Iterable[Payload], level: Rank | None, preset: Preset
) -> Trump:
    """The trump a seat guesses while burying, from the events it saw: its own latest bid, or
    the turned kitty's suit, else no-trump."""
    suit: Suit | None = None
    for payload in events:
        match payload:
            case Declared(seat=bidder, bid=Bid() as bid) | Fried(seat=bidder, bid=Bid() as bid):
                if bidder == seat:
                    suit = bid.suit
            case KittyTurned(suit=turned):
                suit = turned
    return Trump(level, suit, preset.card)


def guess_trump(view: SeatView) -> Trump:
    """While burying, trump may be hidden: :func:`trump_guessed` from the view's events."""
    return trump_guessed(view.seat, (e.payload for e in view.events), view.level, view.preset)


def bury_cards(trump: Trump, hand: Sequence[Card], count: int = 8) -> tuple[Card, ...]:
    """The heuristic's bury: low side cards from short suits, never points or trumps when it
    can help it.

    >>> from chaodipi.engine import Rank, Suit, Trump, format_cards, parse_cards
    >>> hand = parse_cards("♠AKQ32 ♥5 ♥3 ♣4 ♣6 ♦7 ♦8 ♦9 ♦J")
    >>> format_cards(bury_cards(Trump(Rank.TWO, Suit.SPADES), hand, 4))
    '♥3 ♣64 ♦7'
    """
    lengths = Counter(trump.suit_of[c] for c in hand)

    def keep(card: Card) -> float:
        suit = trump.suit_of[card]
        value = trump.order[card] + card.points * 1.5 + (30 if suit == TRUMP else 0)
        short = suit != TRUMP and lengths[suit] <= 4
        return value + 40 * (card.points > 0) - (8 if short else 0)

    return tuple(sorted(sorted(hand, key=keep)[:count]))


def play_candidates(legal: LegalActions, trump: Trump | None) -> list[tuple[Card, ...]]:
    """A handful of plays worth judging: a few of each option, its cheapest and dearest forms,
    and the first legal plays listed."""
    plays = legal.cards
    assert plays is not None
    found: dict[tuple[Card, ...], None] = {}
    for option in plays.options:
        pool = sorted(option.pool, key=lambda c: card_value(trump, c))
        for k in {option.k_min, option.k_max}:
            found[tuple(sorted(option.forced + tuple(pool[:k])))] = None
            found[tuple(sorted(option.forced + tuple(pool[len(pool) - k :])))] = None
            points_first = sorted(option.pool, key=lambda c: (-c.points, card_value(trump, c)))
            found[tuple(sorted(option.forced + tuple(points_first[:k])))] = None
    for play_cards in itertools.islice(plays, MAX_ENUMERATED):
        found[play_cards] = None
    return list(found)


def _top_units(knowledge: Knowledge, cards: list[Card]) -> list[tuple[Card, ...]]:
    """Units of these same-suit cards that no unseen card can beat."""
    trump = knowledge.trump
    assert trump is not None
    unseen = dict(knowledge.unseen())
    suit = trump.suit_of[cards[0]]
    return [u.cards for u in decompose(trump, cards) if not beats_unit(trump, u, suit, unseen)]


def _lead(knowledge: Knowledge) -> tuple[Card, ...]:
    trump = knowledge.trump
    assert trump is not None
    by_suit: dict[int, list[Card]] = {}
    for card in knowledge.hand:
        by_suit.setdefault(trump.suit_of[card], []).append(card)
    # a throw of nothing but top units, or the best single top unit, side suits first
    for suit in sorted(by_suit, key=lambda s: (s == TRUMP, -len(by_suit[s]))):
        cards = by_suit[suit]
        tops = _top_units(knowledge, cards)
        if tops and sum(len(t) for t in tops) == len(cards) and len(tops) > 1:
            return tuple(sorted(itertools.chain.from_iterable(tops)))
        if tops and suit != TRUMP:
            best = max(tops, key=lambda unit: (len(unit), card_value(trump, unit[0])))
            return tuple(sorted(best))
    trumps = by_suit.get(TRUMP, [])
    unseen_trumps = sum(n for c, n in knowledge.unseen().items() if trump.suit_of[c] == TRUMP)
    if trumps and len(trumps) > unseen_trumps:  # trump control: draw theirs
        return (max(trumps, key=lambda c: trump.order[c]),)
    sides = [s for s in by_suit if s != TRUMP]
    if sides:
        longest = max(sides, key=lambda s: len(by_suit[s]))
        low = min(by_suit[longest], key=lambda c: (c.points > 0, card_value(trump, c)))
        return (low,)
    return (min(knowledge.hand, key=lambda c: card_value(trump, c)),)


def _follow(knowledge: Knowledge, legal: LegalActions) -> tuple[Card, ...]:
    trump = knowledge.trump
    trick = knowledge.trick()
    assert trump is not None and trick is not None
    me, partner = knowledge.seat, knowledge.partner
    last = len(trick.plays) == 3
    on_table = trick.points
    best: tuple[float, tuple[Card, ...]] | None = None
    for cards in play_candidates(legal, trump):
        winner = me if trick.would_win(cards) else trick.winner
        ours = winner in (me, partner)
        points = on_table + sum(c.points for c in cards)
        cost = sum(card_value(trump, c) for c in cards)
        if ours and (winner == partner or last):
            score = points * 3 - cost * 0.2  # feed the partner, or a sure win
        elif ours:
            score = points * 1.5 - cost * 0.5  # winning for now; others still to play
        else:
            score = -sum(c.points for c in cards) * 3 - cost
        if best is None or score > best[0]:
            best = (score, cards)
    assert best is not None
    return best[1]


def heuristic_move(view: SeatView) -> Action:
    """The heuristic's action at ``view``'s decision (its ``legal`` set)."""
    legal = view.legal
    assert legal is not None
    if legal.phase in (Phase.DECLARE, Phase.FRY):
        return choose_bid(view.hand, view.level, view.preset, legal)
    if legal.phase is Phase.BURY:
        return Bury(bury_cards(guess_trump(view), view.hand))
    knowledge = infer(view)
    trick = knowledge.trick()
    if trick is None:
        return Play(play_candidates(legal, knowledge.trump)[0])
    if not trick.plays:
        return Play(_lead(knowledge))
    return Play(_follow(knowledge, legal))
