"""Throws (甩牌): checking a multi-unit lead against the other three hands, and its penalty.

000 「甩牌:首家出牌时，同门花色的最大牌可以联出…若并非都是大牌时，称"甩错牌"，
则其必须出欲联出的牌中的最小牌…庄家方甩错1张牌，抓分方加10分;抓分方甩错1张牌，扣10分」;
001 §3, §4.2; 003 「甩牌」.

A unit of the throw is *beaten* when another seat (partner included) holds, in the same suit, a
strictly stronger unit of the same shape: a higher single, a higher pair, or a tractor at least as
long with a higher top. A failed throw plays only one beaten unit: the one holding the throw's
smallest card among the beaten units (docs/rules.md, "failed throw").

>>> from chaodipi.engine.cards import Rank, Suit, parse_cards
>>> from chaodipi.engine.trick import classify_lead
>>> from chaodipi.engine.units import count_cards
>>> t = Trump(Rank.TWO, Suit.SPADES)
>>> lead = classify_lead(t, parse_cards("♣A ♣KK ♣Q"))
>>> others = [count_cards(parse_cards(h)) for h in ("♣J ♣A", "♣3", "♦3")]
>>> failure = check_throw(t, lead, others)
>>> str(failure.forced), failure.blocker, failure.cards_thrown
('♣Q', 0, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.engine.cards import Card
from chaodipi.engine.trick import Lead, PlayKind
from chaodipi.engine.trump import Trump
from chaodipi.engine.units import Unit, run_variants, tractor_key

__all__ = ["ThrowFailure", "beats_unit", "check_throw", "throw_penalty"]


@dataclass(frozen=True, slots=True)
class ThrowFailure:
    """A throw that failed: the unit actually played, and who showed it could be beaten.

    ``blocker`` indexes the ``others`` sequence given to :func:`check_throw` (the first seat,
    in turn order after the thrower, holding a stronger unit).
    """

    forced: Unit
    blocker: int
    beaten: tuple[Unit, ...]
    cards_thrown: int


def beats_unit(trump: Trump, unit: Unit, suit: int, hand: dict[Card, int]) -> bool:
    """Does this hand hold a unit of the same shape, same suit, strictly stronger?"""
    order = trump.order
    cards = [c for c in trump.suit_cards[suit] if hand.get(c)]
    if unit.length == 0:
        return any(order[c] > unit.key for c in cards)
    pairs = [c for c in cards if hand[c] >= 2]
    if unit.length == 1:
        return any(order[c] > unit.key for c in pairs)
    return any(
        len(run) >= unit.length and tractor_key(trump, run[-unit.length :]) > unit.key
        for runs in run_variants(trump, pairs)
        for run in runs
    )


def check_throw(trump: Trump, lead: Lead, others: Sequence[dict[Card, int]]) -> ThrowFailure | None:
    """Check a throw against the other seats' hands; ``None`` when it stands."""
    if lead.kind is not PlayKind.THROW:
        return None
    beaten: list[Unit] = []
    blocker = -1
    for unit in lead.units:
        for i, hand in enumerate(others):
            if beats_unit(trump, unit, lead.suit, hand):
                beaten.append(unit)
                if blocker < 0 or i < blocker:
                    blocker = i
                break
    if not beaten:
        return None
    forced = min(beaten, key=lambda u: (u.low, len(u.cards), u.key))
    return ThrowFailure(forced, blocker, tuple(beaten), len(lead.cards))


def throw_penalty(trump: Trump, failure: ThrowFailure, thrower_is_dealer_side: bool) -> int:
    """Change to the defenders' points for a failed throw: + for the dealer's side failing,
    − for the defenders failing (10 a card thrown by default)."""
    amount = trump.rules.throw_penalty_per_card * failure.cards_thrown
    return amount if thrower_is_dealer_side else -amount
