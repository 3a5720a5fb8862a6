"""Playing a sampled world out to the end of the hand, fast, each seat seeing only its own cards.

The search (:func:`chaodipi.search.search_move`) and the review's judge weigh a move by playing
it in many sampled worlds and finishing each hand with the policy here. Every seat of a playout
decides from what that seat could know (its own hand, the trick on the table, and the other
cards pooled: which of them the others hold is not looked at). Policies that peek at the sampled
hands make each world look easier than the real game, and the search then trusts plans that only
work when the cards are known (strategy fusion); a policy blind to the deal does not.

* leading: a throw of a suit's top units, else a side-suit unit no unseen card can beat, else
  the top trump while holding more trumps than all unseen ones together, else a low card of
  the longest side suit (now and then a random unit, so that worlds differ);
* following: feed points to a partner who is winning, else win with the strongest form of a
  legal option when that wins the trick so far, else shed the cheapest cards (no trumps, no
  points, low ones);
:func:`hand_value` scores a finished hand for one seat in levels (the level table of the
preset), plus the points as a small tie-break.

>>> import random
>>> from chaodipi.engine import DECK, PRESETS, CardPlay, Rank, Suit, Trump
>>> shoe = random.Random(5).sample(DECK, len(DECK))
>>> hands, kitty = [shoe[i * 25 : i * 25 + 25] for i in range(4)], shoe[100:]
>>> play = CardPlay(Trump(Rank.TWO, Suit.SPADES), hands, dealer=0)
>>> play_out(play, random.Random(1))
>>> play.is_over, sum(len(cards) for t in play.tricks for _, cards in t.plays)
(True, 100)
>>> -10 < hand_value(play, kitty, 0, PRESETS["classic"].score, seat=1) < 10
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from chaodipi.engine import (
    TRUMP,
    Card,
    CardPlay,
    ScoreRules,
    beats_unit,
    decompose,
    levels_for,
    partner,
    score_hand,
)

__all__ = ["LEAD_NOISE", "POINTS_PER_LEVEL", "follow_move", "hand_value", "play_move", "play_out"]

LEAD_NOISE = 0.1
"""How often a playout leads a random unit instead of its rule's lead."""
POINTS_PER_LEVEL = 80
"""The tie-break: a hand's points count 1/80 of a level on top of the levels it moves."""


def _unseen(play: CardPlay, seat: int) -> dict[Card, int]:
    """The cards ``seat`` cannot see, pooled: the three other hands together."""
    pooled: Counter[Card] = Counter()
    for other in range(4):
        if other != seat:
            pooled.update(play.hands[other])
    return pooled


def _lead(play: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    trump = play.trump
    by_suit: dict[int, list[Card]] = {}
    for card, copies in play.hands[seat].items():
        by_suit.setdefault(trump.suit_of[card], []).extend([card] * copies)
    if rng.random() < LEAD_NOISE:
        suit = rng.choice(list(by_suit))
        return tuple(sorted(rng.choice(decompose(trump, by_suit[suit])).cards))
    unseen = _unseen(play, seat)
    for suit in sorted(by_suit, key=lambda s: (s == TRUMP, -len(by_suit[s]))):
        cards = by_suit[suit]
        units = decompose(trump, cards)
        tops = [u for u in units if not beats_unit(trump, u, suit, unseen)]
        if len(tops) == len(units) and len(units) > 1:
            return tuple(sorted(cards))  # a throw no unseen card can stop
        if tops and suit != TRUMP:
            best = max(tops, key=lambda u: (len(u.cards), trump.order[u.cards[0]]))
            return tuple(sorted(best.cards))
    trumps = by_suit.get(TRUMP, [])
    unseen_trumps = sum(n for c, n in unseen.items() if trump.suit_of[c] == TRUMP)
    if trumps and len(trumps) > unseen_trumps:  # trump control: draw theirs
        return (max(trumps, key=lambda c: trump.order[c]),)
    sides = [s for s in by_suit if s != TRUMP]
    if sides:
        longest = by_suit[max(sides, key=lambda s: len(by_suit[s]))]
        return (min(longest, key=lambda c: (c.points > 0, trump.order[c])),)
    return (min(by_suit[TRUMP], key=lambda c: trump.order[c]),)


def follow_move(play: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    """The policy's follow to the trick: feed points to a partner who is winning it, else win
    with the strongest form of a legal option when it can, else play the cards that cost least
    (no trumps, no points, low ones; a 5 is low, yet counts)."""
    trump = play.trump
    trick = play.trick
    option = rng.choice(play.legal_plays(seat).options)
    k = option.k_min
    if trick.winner == partner(seat):
        by_points = sorted(option.pool, key=lambda c: (-c.points, trump.order[c]))
        return tuple(sorted(option.forced + tuple(by_points[:k])))
    by_value = sorted(option.pool, key=lambda c: (trump.suit_of[c] == TRUMP, trump.order[c]))
    strong = tuple(sorted(option.forced + tuple(by_value[len(by_value) - k :])))
    if trick.would_win(strong):
        return strong
    by_cost = sorted(
        option.pool, key=lambda c: (trump.suit_of[c] == TRUMP, c.points, trump.order[c])
    )
    return tuple(sorted(option.forced + tuple(by_cost[:k])))


def play_move(play: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    """The playout policy's play for ``seat``, the seat to play."""
    if not play.trick.plays:
        return _lead(play, seat, rng)
    return follow_move(play, seat, rng)


def play_out(play: CardPlay, rng: random.Random) -> None:
    """Play the hand to its end with :func:`play_move` for every seat."""
    while not play.is_over:
        seat = play.to_play
        play.push(seat, play_move(play, seat, rng))


def hand_value(
    play: CardPlay, kitty: Sequence[Card], fry_penalty: int, rules: ScoreRules, seat: int
) -> float:
    """A finished hand, for ``seat``'s team: the levels it climbs (or, negative, the levels
    the other team climbs), plus the points its side won as a tie-break."""
    result = score_hand(play, kitty, fry_penalty, rules)
    defenders_take, levels = levels_for(result.total, rules, shut_out=result.shut_out)
    defending = not play.is_dealer_side(seat)
    climbs = defenders_take == defending
    points = result.total if defending else -result.total
    return (levels if climbs else -levels) + points / POINTS_PER_LEVEL
