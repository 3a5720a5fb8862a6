"""In-process random self-play of the card play: the stand-in main job until the server exists.

Deals 25 cards to each seat from a seeded shoe, picks a random level and trump, and plays every
trick with uniformly random legal plays, checking each play with the engine's checker.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import DECK, CardPlay, CardRules, Rank, Suit, Trump


@dataclass(frozen=True, slots=True)
class HandStats:
    """What one random hand did."""

    actions: int
    defender_points: int
    penalty_points: int
    failed_throws: int
    no_trump: bool


def play_random_hand(seed: int, rules: CardRules | None = None) -> HandStats:
    """Play one hand's tricks with random legal plays; the same seed plays the same hand."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    suit = rng.choice([None, *Suit])
    trump = Trump(Rank(rng.randrange(13)), suit, rules)
    play = CardPlay(trump, [deck[i * 25 : (i + 1) * 25] for i in range(4)], dealer=seed % 4)
    actions = failed = 0
    while not play.is_over:
        seat = play.to_play
        cards = play.legal_plays(seat).sample(rng)
        result = play.play(seat, cards)
        actions += 1
        failed += result.throw_failure is not None
    return HandStats(actions, play.defender_points, play.penalty_points, failed, suit is None)
