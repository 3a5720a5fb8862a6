"""The heuristic bot: plays like a sensible 升级 player.

* bids and fries on hands long in a would-be trump (a little more carefully when bids are
  hidden and a failed fry costs 80);
* buries low side cards from short suits, never trumps or points when it can help it;
* leads what cannot be beaten (a throw only when no unseen card could stop it, checked with the
  engine against every card it has not seen), else low cards from long side suits;
* follows: wins the trick cheaply when it can and it matters, feeds points to a partner who is
  winning, and otherwise sheds its least valuable cards; it remembers who showed a void.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.heuristic_bot --address 127.0.0.1:50051
    ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.heuristic_bot --address 127.0.0.1:50051
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter

from chaodipi.bot import bot_arguments, run_bot
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
    Phase,
    Play,
    SeatView,
    Suit,
    Trump,
    beats_unit,
    bid_action,
    decompose,
    infer,
)

__all__ = ["candidates", "card_value", "decide", "guess_trump", "main"]

MAX_ENUMERATED = 60


def card_value(trump: Trump | None, card: Card) -> float:
    """How much a card is worth keeping: trumps and high cards high, points counted too."""
    if trump is None:
        return float(card.points + (card % 13))
    strength = trump.order[card]
    value = strength + card.points * 1.5
    if trump.suit_of[card] == TRUMP:
        value += 30
    return float(value)


def _choose_bid(view: SeatView, legal: LegalActions) -> Action:
    rules = view.preset
    best: tuple[float, Bid] | None = None
    for bid in legal.bids:
        trump = Trump(view.level, bid.suit, rules.card)
        share = sum(1 for c in view.hand if trump.suit_of[c] == TRUMP) / max(1, len(view.hand))
        if best is None or share > best[0]:
            best = (share, bid)
    needed = 0.36 if legal.phase is Phase.DECLARE else 0.40
    if rules.bid.hidden:
        needed += 0.05
    if best is not None and best[0] >= needed and len(view.hand) >= 8:
        return bid_action(legal.phase, best[1])
    if legal.can_pass:
        return Pass()
    return bid_action(legal.phase, legal.bids[0])


def guess_trump(view: SeatView) -> Trump:
    """While burying, trump may be hidden: take this seat's own latest bid (or the turned
    kitty's suit), else no-trump."""
    suit: Suit | None = None
    for event in view.events:
        match event.payload:
            case Declared(seat=seat, bid=Bid() as bid) | Fried(seat=seat, bid=Bid() as bid):
                if seat == view.seat:
                    suit = bid.suit
            case KittyTurned(suit=turned):
                suit = turned
    return Trump(view.level, suit, view.preset.card)


def _bury(view: SeatView) -> Action:
    trump = guess_trump(view)
    lengths = Counter(trump.suit_of[c] for c in view.hand)

    def keep(card: Card) -> float:
        short = trump.suit_of[card] != TRUMP and lengths[trump.suit_of[card]] <= 4
        return card_value(trump, card) + 40 * (card.points > 0) - (8 if short else 0)

    return Bury(tuple(sorted(sorted(view.hand, key=keep)[:8])))


def candidates(legal: LegalActions, trump: Trump | None) -> list[tuple[Card, ...]]:
    """A handful of plays worth judging: a few of each option, its cheapest and dearest forms."""
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
    for cards in candidates(legal, trump):
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


def decide(view: SeatView) -> Action:
    legal = view.legal
    assert legal is not None
    if legal.phase in (Phase.DECLARE, Phase.FRY):
        return _choose_bid(view, legal)
    if legal.phase is Phase.BURY:
        return _bury(view)
    knowledge = infer(view)
    trick = knowledge.trick()
    if trick is None:
        return Play(candidates(legal, knowledge.trump)[0])
    if not trick.plays:
        return Play(_lead(knowledge))
    return Play(_follow(knowledge, legal))


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.set_defaults(name="heuristic")
    args = parser.parse_args(argv)
    print(run_bot(decide, argv=argv, name=args.name), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
