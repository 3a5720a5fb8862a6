"""The Monte-Carlo policy: samples the hidden hands, plays candidates out with the engine, keeps
the best on average.

For each of a handful of candidate plays (the heuristic's: :mod:`chaodipi.search.heuristic`),
it draws deals of the cards the seat has not seen to the other seats (and the kitty it did not
bury), uniformly among those consistent with everything it saw (:mod:`chaodipi.engine`'s
:class:`~chaodipi.engine.DealSampler`: hand sizes, voids, cards shown in bids, throws), and
builds each as an engine position. It then plays the hand on in-process for a few tricks (to
the end near the end, where the kitty counts too) with a fast rollout policy that leads like
the heuristic and follows as the playouts do (:func:`chaodipi.search.playout.follow_move`);
it scores the points its team takes minus the points the other team takes (the kitty as the
preset scores it). Within its budget it plays the candidate with the best mean, but only when
that beats the heuristic's own choice by more than two standard errors of the paired
differences (every candidate meets the same sampled worlds and the same rollout dice) and
:data:`MARGIN` points; otherwise, and with no time for samples, it plays the heuristic's
choice. Bidding, burying and frying are the heuristic's.

It is the Monte-Carlo sample bot (``python3 -m chaodipi.sample_bots.mc_bot``).

>>> import random
>>> from chaodipi.engine import PRESETS, Match, Phase, observe
>>> from chaodipi.search import heuristic_move
>>> match = Match(PRESETS["classic"], seed=3, max_hands=1)
>>> while match.hand.phase is not Phase.PLAY or match.legal_actions().forced() is not None:
...     match.apply(match.to_play, heuristic_move(observe(match, match.to_play)))
>>> view = observe(match, match.to_play)
>>> monte_carlo_move(view, random.Random(1), None, samples=8) in view.legal
True
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence

from chaodipi.engine import (
    TRUMP,
    Action,
    Card,
    CardPlay,
    Deal,
    DealSampler,
    Phase,
    Play,
    SeatView,
    beats_unit,
    decompose,
    kitty_multiplier,
    partner,
    points_of,
)
from chaodipi.engine import opponents as seat_opponents
from chaodipi.search.heuristic import heuristic_move, play_candidates
from chaodipi.search.playout import LEAD_NOISE, follow_move

__all__ = ["MARGIN", "monte_carlo_move"]

MAX_CANDIDATES = 6
ROLLOUT_TRICKS = 4
"""Tricks a rollout plays (the current one included) before it is scored."""
MARGIN = 2.0
"""Points a candidate must gain on average (beyond two standard errors) to replace the
heuristic's play."""


def _rollout_lead(play_state: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    """Lead as the heuristic would, seeing the sampled world: a side-suit unit neither
    opponent can beat, else the top trump while holding more trumps than both opponents,
    else a low card of a long side suit (a random one now and then, for variety)."""
    trump = play_state.trump
    hand = play_state.hand(seat)
    by_suit: dict[int, list[Card]] = {}
    for card in hand:
        by_suit.setdefault(trump.suit_of[card], []).append(card)
    if rng.random() < LEAD_NOISE:
        suit = rng.choice(list(by_suit))
        return tuple(sorted(rng.choice(decompose(trump, by_suit[suit])).cards))
    opponents = [play_state.hands[s] for s in seat_opponents(seat)]
    sides = sorted((s for s in by_suit if s != TRUMP), key=lambda s: -len(by_suit[s]))
    for suit in sides:
        for unit in decompose(trump, by_suit[suit]):
            if not any(beats_unit(trump, unit, suit, other) for other in opponents):
                return tuple(sorted(unit.cards))
    trumps = by_suit.get(TRUMP, [])
    theirs = sum(n for other in opponents for c, n in other.items() if trump.suit_of[c] == TRUMP)
    if trumps and len(trumps) > theirs:
        return (max(trumps, key=lambda c: trump.order[c]),)
    if sides:
        cards = by_suit[sides[0]]
        return (min(cards, key=lambda c: (c.points > 0, trump.order[c])),)
    return (min(hand, key=lambda c: trump.order[c]),)


def _rollout_play(play_state: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    """A fast, plausible policy: lead like the heuristic (:func:`_rollout_lead`), follow
    as the playouts do (:func:`chaodipi.search.playout.follow_move`)."""
    if not play_state.trick.plays:
        return _rollout_lead(play_state, seat, rng)
    return follow_move(play_state, seat, rng)


def _rollout(
    state: CardPlay,
    seat: int,
    kitty: Sequence[Card],
    kitty_by_unit: bool,
    cards: tuple[Card, ...],
    rng: random.Random,
) -> float:
    """Play ``cards`` in this sampled position, then a few tricks more with the fast policy;
    the points ``seat``'s team takes in them minus the other team's (with the kitty, if the
    last trick is reached)."""
    state.push(seat, cards)
    first = len(state.tricks)
    # play out this trick and a few more: the play's effect is mostly near, and short rollouts
    # buy many more samples inside the budget
    while not state.is_over and len(state.tricks) - first < ROLLOUT_TRICKS:
        to_play = state.to_play
        state.push(to_play, _rollout_play(state, to_play, rng))
    mine = {seat, partner(seat)}
    score = 0.0
    for finished in state.tricks[first:]:  # every trick this rollout ended
        score += finished.points if finished.winner in mine else -finished.points
    defending = not state.is_dealer_side(seat)
    if state.is_over:  # the last trick was reached: the kitty counts too, if defenders take it
        last = state.tricks[-1]
        if (last.winner in mine) == defending:
            winning = next(c for s, c in last.plays if s == last.winner)
            bonus = points_of(kitty) * kitty_multiplier(state.trump, winning, kitty_by_unit)
            score += bonus if defending else -bonus
    return score


def monte_carlo_move(
    view: SeatView, rng: random.Random, budget_s: float | None, samples: int | None = None
) -> Action:
    """The play with the best sampled outcome within ``budget_s`` seconds of thinking and
    ``samples`` sampled worlds (the heuristic's otherwise); ``None`` lifts that limit, and one
    of the two must be set."""
    if budget_s is None and samples is None:
        raise ValueError("the Monte-Carlo policy needs a time budget or a number of samples")
    legal = view.legal
    preferred = heuristic_move(view)
    if legal is None or legal.phase is not Phase.PLAY or not isinstance(preferred, Play):
        return preferred
    started = time.monotonic()
    sampler = DealSampler(view)
    trump = sampler.knowledge.trump
    if trump is None or not sampler.count:
        return preferred
    choices = play_candidates(legal, trump)
    preferred_cards = tuple(sorted(preferred.cards))
    if len(choices) <= 1:
        return preferred
    rng.shuffle(choices)
    choices = [preferred_cards, *[c for c in choices if c != preferred_cards][: MAX_CANDIDATES - 1]]
    # paired differences against the heuristic's play, world by world
    gains: dict[tuple[Card, ...], list[float]] = {c: [] for c in choices[1:]}
    by_unit = view.preset.score.kitty_by_unit

    def rollout(deal: Deal, cards: tuple[Card, ...], dice: float) -> float:
        state = sampler.card_play(deal)
        return _rollout(state, view.seat, deal.kitty, by_unit, cards, random.Random(dice))

    drawn = 0
    while (samples is None or drawn < samples) and (
        budget_s is None or time.monotonic() - started < budget_s
    ):
        drawn += 1
        deal = sampler.sample(rng)
        # common random numbers: every candidate meets the same deal and the same rollout
        # choices, so a difference measures the candidate rather than the dice
        dice = rng.random()
        base = rollout(deal, preferred_cards, dice)
        for cards in choices[1:]:
            gains[cards].append(rollout(deal, cards, dice) - base)
    best, best_mean = preferred_cards, 0.0
    for cards, diffs in gains.items():
        if len(diffs) < 4:
            continue
        mean = statistics.fmean(diffs)
        error = statistics.stdev(diffs) / len(diffs) ** 0.5
        if mean > best_mean and mean > 2 * error + MARGIN:
            best, best_mean = cards, mean
    if best == preferred_cards:
        return preferred  # no candidate is clearly better than the heuristic's choice
    return Play(best)
