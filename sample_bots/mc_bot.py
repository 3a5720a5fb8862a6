"""The Monte-Carlo bot: samples the hidden hands, plays candidates out with the engine, keeps
the best on average.

For each of a handful of candidate plays (the heuristic bot's), it draws deals of the cards it
has not seen to the other seats (and the kitty it did not bury), uniformly among those
consistent with everything it saw (:mod:`chaodipi.engine.sampling`: hand sizes, voids, cards shown
in bids, throws), and builds each as an engine position. It then plays the hand on
in-process for a few tricks (to the end near the end, where the kitty counts too) with a fast
policy that leads like the heuristic bot and follows by winning when it can, feeding a winning
partner, or else giving up no points and no trumps; it scores the points its team takes minus
the points the other team takes (the kitty as the preset scores it). At its time budget (well
inside the deadline) it plays the candidate with the best mean, but only when that beats the
heuristic's own choice by more than two standard errors of the paired differences (every
candidate meets the same sampled worlds and the same rollout dice); otherwise, and with no
time for samples, it plays the heuristic's choice. Bidding, burying and frying are the
heuristic bot's.

Its budget is thinking time, which games played at once would share (one core, under the
GIL): in a session it asks for one game at a time unless given ``--capacity``. With
``--samples N`` it judges every candidate on exactly ``N`` sampled worlds instead (the same
search on any machine, for fixed-budget ladders), ``--budget-ms`` then being a cap only.

    ARENA_TOKEN=TOKEN python3 -m chaodipi.sample_bots.mc_bot --address 127.0.0.1:50051 [--budget-ms
    300] ARENA_TICKET=TICKET python3 -m chaodipi.sample_bots.mc_bot --address 127.0.0.1:50051
    [--budget-ms 300] [--samples 60]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence

from chaodipi.bot import bot_arguments, run_bot
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
from chaodipi.sample_bots import heuristic_bot
from chaodipi.sample_bots.playout import follow_move

__all__ = ["decide"]

MAX_CANDIDATES = 6
ROLLOUT_TRICKS = 4
"""Tricks a rollout plays (the current one included) before it is scored."""
LEAD_NOISE = 0.1
"""How often a rollout leads a random unit instead of the heuristic bot's lead."""
MARGIN = 2.0
"""Points a candidate must gain on average (beyond two standard errors) to replace the
heuristic's play."""


def _rollout_lead(play_state: CardPlay, seat: int, rng: random.Random) -> tuple[Card, ...]:
    """Lead as the heuristic bot would, seeing the sampled world: a side-suit unit neither
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
    """A fast, plausible policy: lead like the heuristic bot (:func:`_rollout_lead`), follow
    as the search bot's playouts do (:func:`chaodipi.sample_bots.playout.follow_move`)."""
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


def decide(
    view: SeatView, rng: random.Random, budget_s: float | None, samples: int | None = None
) -> Action:
    """The play with the best sampled outcome within ``budget_s`` seconds of thinking and
    ``samples`` sampled worlds (the heuristic's otherwise); ``None`` lifts that limit, and one
    of the two must be set."""
    if budget_s is None and samples is None:
        raise ValueError("the Monte-Carlo bot needs a time budget or a number of samples")
    legal = view.legal
    preferred = heuristic_bot.decide(view)
    if legal is None or legal.phase is not Phase.PLAY or not isinstance(preferred, Play):
        return preferred
    started = time.monotonic()
    sampler = DealSampler(view)
    trump = sampler.knowledge.trump
    if trump is None or not sampler.count:
        return preferred
    choices = heuristic_bot.candidates(legal, trump)
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


def main(argv: list[str] | None = None) -> int:
    parser = bot_arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=None,
        help="thinking time per play (default 300; with --samples, a cap, 0: none)",
    )
    parser.add_argument(
        "--samples", type=int, default=None, help="sampled worlds per play (fixed budget)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible sampling")
    parser.set_defaults(name="montecarlo", capacity=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.samples is not None and args.samples < 1:
        parser.error(f"--samples must be at least 1, not {args.samples}")
    budget_ms = args.budget_ms if args.budget_ms is not None else 0 if args.samples else 300
    if budget_ms < 0 or (budget_ms == 0 and args.samples is None):
        parser.error(f"--budget-ms must be positive without --samples, not {budget_ms}")
    budget = budget_ms / 1000 if budget_ms else None
    samples = args.samples
    result = run_bot(
        lambda view: decide(view, rng, budget, samples),
        argv=argv,
        name=args.name,
        capacity=args.capacity,
    )
    print(result, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
