"""The heuristic bot: plays like a sensible 升级 player.

* bids and fries on hands long in a would-be trump (a little more carefully when bids are
  hidden and a failed fry costs 80);
* buries low side cards from short suits, never trumps or points when it can help it;
* leads what cannot be beaten (a throw only when no unseen card could stop it, checked with the
  engine against every card it has not seen), else low cards from long side suits;
* follows: wins the trick cheaply when it can and it matters, feeds points to a partner who is
  winning, and otherwise sheds its least valuable cards; it remembers who showed a void.

    python3 -m sample_bots.heuristic_bot --address 127.0.0.1:50051 --ticket TICKET
"""

from __future__ import annotations

import argparse
import copy
import itertools
import sys
from collections import Counter

from arena.protocol import legal_from_message
from arena.v1 import arena_pb2 as pb
from engine.bidding import Bid
from engine.cards import Card, Rank, Suit, parse_cards
from engine.events import EventKind
from engine.phase import Phase
from engine.presets import PRESETS
from engine.throws import beats_unit
from engine.trump import TRUMP, Trump
from engine.units import decompose
from sample_bots.knowledge import Knowledge, read
from sample_bots.sdk import (
    Turn,
    bid_action,
    cards_action,
    pass_action,
    play,
    ticket_from_environment,
)

__all__ = ["candidates", "card_value", "decide", "main"]

MAX_ENUMERATED = 60
_BIDS = (EventKind.DECLARE.value, EventKind.FRY.value)


def card_value(trump: Trump | None, card: Card) -> float:
    """How much a card is worth keeping: trumps and high cards high, points counted too."""
    if trump is None:
        return float(card.points + (card % 13))
    strength = trump.order[card]
    value = strength + card.points * 1.5
    if trump.suit_of[card] == TRUMP:
        value += 30
    return float(value)


def _level(decision: pb.Decision) -> Rank | None:
    text = decision.observation.level
    return Rank.parse(text) if text else None


def _choose_bid(turn: Turn) -> pb.Action:
    decision = turn.decision
    seen = decision.observation
    preset = PRESETS[seen.preset]
    level = _level(decision)
    hand = [parse_cards(c)[0] for c in seen.hand]
    best: tuple[float, str] | None = None
    for text in decision.legal.bids:
        bid = Bid.parse(text, level, preset.card)
        trump = Trump(level, bid.suit, preset.card)
        share = sum(1 for c in hand if trump.suit_of[c] == TRUMP) / max(1, len(hand))
        if best is None or share > best[0]:
            best = (share, text)
    needed = 0.36 if decision.legal.phase == "declare" else 0.40
    if preset.bid.hidden:
        needed += 0.05
    if best is not None and best[0] >= needed and len(hand) >= 8:
        return bid_action(decision.decision_id, best[1])
    if decision.legal.can_pass:
        return pass_action(decision.decision_id)
    return bid_action(decision.decision_id, decision.legal.bids[0])


def _guess_trump(decision: pb.Decision) -> Trump:
    """While burying, trump may be hidden: take this seat's own latest bid, else no-trump."""
    seen = decision.observation
    preset = PRESETS[seen.preset]
    level = _level(decision)
    suit: Suit | None = None
    for event in seen.events:
        if event.kind in _BIDS and event.seat == seen.seat and event.bid:
            suit = Bid.parse(event.bid, level, preset.card).suit
        elif event.kind == EventKind.KITTY_TURNED.value:
            suit = None
    return Trump(level, suit, preset.card)


def _bury(turn: Turn) -> pb.Action:
    decision = turn.decision
    trump = _guess_trump(decision)
    hand = [parse_cards(c)[0] for c in decision.observation.hand]
    lengths = Counter(trump.suit_of[c] for c in hand)

    def keep(card: Card) -> float:
        short = trump.suit_of[card] != TRUMP and lengths[trump.suit_of[card]] <= 4
        return card_value(trump, card) + 40 * (card.points > 0) - (8 if short else 0)

    buried = sorted(hand, key=keep)[:8]
    return cards_action(decision.decision_id, [str(c) for c in buried])


def candidates(legal: pb.LegalMoves, trump: Trump | None) -> list[tuple[Card, ...]]:
    """A handful of plays worth judging: a few of each option, its cheapest and dearest forms."""
    plays = legal_from_message(legal).cards
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


def _lead(knowledge: Knowledge, legal: pb.LegalMoves) -> tuple[Card, ...]:
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


def _follow(knowledge: Knowledge, legal: pb.LegalMoves) -> tuple[Card, ...]:
    trump = knowledge.trump
    trick = knowledge.trick
    assert trump is not None and trick is not None
    me, partner = knowledge.seat, knowledge.partner
    last = len(trick.plays) == 3
    on_table = trick.points
    best: tuple[float, tuple[Card, ...]] | None = None
    for cards in candidates(legal, trump):
        after = copy.deepcopy(trick)
        after.add(me, cards)
        ours = after.winner in (me, partner)
        points = on_table + sum(c.points for c in cards)
        cost = sum(card_value(trump, c) for c in cards)
        if ours and (after.winner == partner or last):
            score = points * 3 - cost * 0.2  # feed the partner, or a sure win
        elif ours:
            score = points * 1.5 - cost * 0.5  # winning for now; others still to play
        else:
            score = -sum(c.points for c in cards) * 3 - cost
        if best is None or score > best[0]:
            best = (score, cards)
    assert best is not None
    return best[1]


def decide(turn: Turn) -> pb.Action:
    decision = turn.decision
    legal = decision.legal
    phase = Phase(legal.phase)
    if phase in (Phase.DECLARE, Phase.FRY):
        return _choose_bid(turn)
    if phase is Phase.BURY:
        return _bury(turn)
    knowledge = read(decision)
    if turn.refusals or knowledge.trick is None:
        return cards_action(
            decision.decision_id, [str(c) for c in candidates(legal, knowledge.trump)[0]]
        )
    cards = _lead(knowledge, legal) if not knowledge.trick.plays else _follow(knowledge, legal)
    return cards_action(decision.decision_id, [str(c) for c in cards])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50051", help="the arena server")
    parser.add_argument("--ticket", help="this seat's ticket (default: $ARENA_TICKET)")
    parser.add_argument("--name", default="heuristic", help="name shown in logs and reports")
    args = parser.parse_args(argv)
    result = play(args.address, args.ticket or ticket_from_environment(), decide, name=args.name)
    print(f"match over: winner team {result.winner}, {result.hands} hands", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
