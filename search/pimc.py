"""Perfect-information Monte-Carlo search over sampled deals (PIMC), at a fixed budget.

Every decision with a choice to make is a small search: a few candidate moves, a stream of
*worlds* (deals of the cards the seat has not seen, drawn uniformly among those consistent
with everything it saw: :class:`chaodipi.engine.DealSampler`), and for each world and
candidate the rest of the hand played out to the end and scored in levels, the points as a
tie-break (:mod:`chaodipi.search.playout`). :func:`search_move` plays the candidate with the
best mean; :func:`problem` states a decision's candidates and how one is judged in a world,
which the review's judge weighs too (:mod:`chaodipi.search.judge`).

* card play: the candidates are the heuristic's choice (:mod:`chaodipi.search.heuristic`),
  every unit and top throw of each suit when leading, and the cheap and dear forms of each
  legal option when following;
* burying: the heuristic's eight cards, and variants that void a short side suit or bury
  the lowest cards by rank (each world played with the trump it guesses, as though nobody
  fried after it);
* frying (炒底, in presets whose bids are shown): passing against frying into each suit it
  may, the fried world with the kitty taken up and buried again by the heuristic's rule;
* declaring, and frying when bids are hidden: the heuristic's rule. The search does not
  weigh those (:func:`problem` is ``None``); the review's judge weighs them, and burying and
  frying too with the rest of the auction played after the choice
  (:mod:`chaodipi.search.auction`).

The budget is spent by sequential halving: the candidates meet the same worlds and the same
playout dice (common random numbers), the worse half is dropped after each round, and the
survivors get the playouts saved. Against the usual faults of PIMC:

* strategy fusion: the playouts decide for every seat from that seat's own cards and the
  trick alone (the other cards pooled), never from the sampled hands, so that no world is
  played as if its cards were known; and each candidate is judged on its average over worlds,
  never on its best one;
* noise: the heuristic's move is kept unless a candidate beats it, world by world, by more
  than :data:`CONFIDENCE` standard errors of the paired differences.

The budget (:class:`Budget`): ``simulations`` playouts per decision (default
:data:`DEFAULT_SIMULATIONS`; one playout is one candidate played out in one world, about
0.4–1.5 ms of CPU), the same search on any machine given the same ``random.Random``; and a cap
on a decision's thinking time (default :data:`DEFAULT_CAP_MS`, well inside the arena's 1 s
deadline on a loaded machine; ``None``: no clock, for runs that must not depend on the
machine's load). The clock is read before every playout, so a decision overruns its cap by one
playout at most.

>>> import random
>>> from chaodipi.engine import PRESETS, Match, Phase, observe
>>> match = Match(PRESETS["classic"], seed=3, max_hands=1)
>>> while match.hand.phase is not Phase.PLAY or match.legal_actions().forced() is not None:
...     match.apply(match.to_play, heuristic_move(observe(match, match.to_play)))
>>> view, spent = observe(match, match.to_play), Spent()
>>> move = search_move(view, random.Random(1), Budget(24, None), spent)
>>> move in view.legal, spent.searches, 0 < spent.playouts <= 24
(True, 1, True)
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from chaodipi.engine import (
    TRUMP,
    Action,
    Bid,
    Bury,
    Card,
    CardPlay,
    Deal,
    DealSampler,
    Declared,
    Fried,
    Fry,
    KittyTurned,
    LegalActions,
    Pass,
    Phase,
    Play,
    SeatView,
    Suit,
    Trump,
    decompose,
)
from chaodipi.search.heuristic import bury_cards, guess_trump, heuristic_move, play_candidates
from chaodipi.search.playout import hand_value, play_out

__all__ = [
    "CONFIDENCE",
    "DEFAULT_CAP_MS",
    "DEFAULT_SIMULATIONS",
    "Budget",
    "Problem",
    "Spent",
    "bury_candidates",
    "problem",
    "search_move",
]

CONFIDENCE = 1.0
"""Standard errors of the paired differences by which a candidate must beat the heuristic's
move to replace it."""
MAX_PLAYS = 8
"""Candidate plays judged at most (the heuristic's first)."""
MAX_BURIES = 8
"""Candidate buries judged at most (the heuristic's first)."""

T = TypeVar("T")


DEFAULT_SIMULATIONS = 120
"""Playouts per decision by default: about 50–150 ms of CPU on a 2020s core."""
DEFAULT_CAP_MS = 500
"""A decision's thinking time at most by default (milliseconds)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """What a decision may spend: ``simulations`` playouts, and at most ``seconds`` of
    thinking by ``clock`` (``seconds=None``: no clock, the same search on any machine)."""

    simulations: int = DEFAULT_SIMULATIONS
    seconds: float | None = DEFAULT_CAP_MS / 1000
    clock: Callable[[], float] = time.monotonic


@dataclass(slots=True)
class Spent:
    """What searches spent, summed: decisions searched and playouts played."""

    searches: int = 0
    playouts: int = 0


@dataclass(frozen=True, slots=True)
class Problem:
    """A decision as the search sees it: the ``choices`` it weighs (the heuristic's first),
    ``judge(choice, world, dice)``, the value for the seat's team of the hand played out from
    that world after that choice (levels, the points as a tie-break:
    :func:`~chaodipi.search.playout.hand_value`), and ``draw(rng)``, a world consistent
    with everything the seat saw (:class:`chaodipi.engine.DealSampler`)."""

    choices: Sequence[Action]
    judge: Callable[[Action, Deal, int], float]
    draw: Callable[[random.Random], Deal]


def _unjudged(action: Action, deal: Deal, dice: int) -> float:
    raise AssertionError("a problem with one choice is never judged")


def _halving(
    choices: Sequence[T],
    judge: Callable[[T, Deal, int], float],
    draw: Callable[[random.Random], Deal],
    budget: Budget,
    rng: random.Random,
    spent: Spent | None,
) -> T:
    """The choice with the best mean value over sampled worlds, by sequential halving;
    ``choices[0]`` (the default) stays in every round and is kept unless beaten clearly.
    ``judge(choice, world, dice)`` plays one world out. At most ``budget.simulations``
    playouts, and none begun after ``budget.seconds``."""
    if len(choices) == 1:
        return choices[0]
    clock = budget.clock
    deadline = None if budget.seconds is None else clock() + budget.seconds
    alive = list(range(len(choices)))
    values: list[list[float]] = [[] for _ in choices]  # per choice, by world (alive: all)
    rounds = max(1, math.ceil(math.log2(len(choices))))
    played = 0
    out_of_time = False
    for done_rounds in range(rounds):
        per = max(2, (budget.simulations - played) // (len(alive) * (rounds - done_rounds)))
        for _ in range(per):
            if played + len(alive) > budget.simulations:
                break
            world, dice = draw(rng), rng.getrandbits(32)
            scores: list[float] = []
            for i in alive:
                if deadline is not None and clock() >= deadline:
                    out_of_time = True
                    break
                scores.append(judge(choices[i], world, dice))
                played += 1
            if out_of_time:  # a world half judged is no common ground: dropped
                break
            for i, score in zip(alive, scores, strict=True):
                values[i].append(score)
        if out_of_time or len(alive) <= 2:
            break
        means = {i: statistics.fmean(values[i]) for i in alive if values[i]}
        ranked = sorted((i for i in alive if i != 0), key=lambda i: -means.get(i, -math.inf))
        alive = [0, *ranked[: max(1, len(alive) // 2 - 1)]]
    if spent is not None:
        spent.searches += 1
        spent.playouts += played
    return choices[_survivor(alive, values)]


def _survivor(alive: list[int], values: list[list[float]]) -> int:
    """The survivor with the best mean over the worlds it shares with the default, when it
    beats the default by more than :data:`CONFIDENCE` standard errors of the differences."""
    base = values[0]
    best, best_gain = 0, 0.0
    for i in alive[1:]:
        mine = values[i]
        n = min(len(mine), len(base))
        if n < 4:
            continue
        # the default met every world; a survivor met the first len(mine) of them
        diffs = [a - b for a, b in zip(mine[:n], base[:n], strict=True)]
        gain = statistics.fmean(diffs)
        error = statistics.stdev(diffs) / math.sqrt(n)
        if gain > best_gain and gain > CONFIDENCE * error:
            best, best_gain = i, gain
    return best


# -- card play ------------------------------------------------------------------------------


def _lead_candidates(hand: Sequence[Card], trump: Trump) -> list[tuple[Card, ...]]:
    """Every unit of every suit (a suit's highest and lowest single only) and each suit
    thrown whole."""
    by_suit: dict[int, list[Card]] = {}
    for card in hand:
        by_suit.setdefault(trump.suit_of[card], []).append(card)
    found: dict[tuple[Card, ...], None] = {}
    for suit in sorted(by_suit, key=lambda s: (s == TRUMP, -len(by_suit[s]))):
        cards = by_suit[suit]
        units = decompose(trump, cards)
        singles = [u for u in units if len(u.cards) == 1]
        for unit in units:
            if len(unit.cards) > 1:
                found[tuple(sorted(unit.cards))] = None
        if singles:
            by_order = sorted(singles, key=lambda u: trump.order[u.cards[0]])
            found[by_order[-1].cards] = None
            low = min(by_order, key=lambda u: (u.cards[0].points > 0, trump.order[u.cards[0]]))
            found[low.cards] = None
        if len(units) > 1:
            found[tuple(sorted(cards))] = None
    return list(found)


def _play_candidates(view: SeatView, legal: LegalActions, trump: Trump) -> list[tuple[Card, ...]]:
    preferred = heuristic_move(view)
    assert isinstance(preferred, Play)
    first = tuple(sorted(preferred.cards))
    leading = view.trick is None or not view.trick.plays
    others = _lead_candidates(view.hand, trump) if leading else play_candidates(legal, trump)
    found = [first, *(c for c in others if c != first and Play(c) in legal)]
    return found[:MAX_PLAYS]


def _play_problem(view: SeatView, legal: LegalActions) -> Problem | None:
    sampler = DealSampler(view)
    trump = sampler.knowledge.trump
    assert trump is not None
    choices: list[Action] = [Play(cards) for cards in _play_candidates(view, legal, trump)]
    if not sampler.count:
        return Problem(choices[:1], _unjudged, sampler.sample)
    seat, rules = view.seat, view.preset.score
    fry_penalty = sampler.knowledge.fry_penalty

    def judge(action: Action, deal: Deal, dice: int) -> float:
        assert isinstance(action, Play)
        state = sampler.card_play(deal)
        state.push(seat, action.cards)
        play_out(state, random.Random(dice))
        return hand_value(state, deal.kitty, fry_penalty, rules, seat)

    return Problem(choices, judge, sampler.sample)


# -- burying --------------------------------------------------------------------------------


def bury_candidates(view: SeatView, trump: Trump) -> list[tuple[Card, ...]]:
    """The buries weighed: the heuristic's, then variants that void a short side suit or bury
    the lowest cards by rank (:data:`MAX_BURIES` at most)."""
    preferred = heuristic_move(view)
    assert isinstance(preferred, Bury)
    hand = list(view.hand)
    found: dict[tuple[Card, ...], None] = {tuple(sorted(preferred.cards)): None}
    found[bury_cards(trump, hand)] = None
    by_suit: dict[int, list[Card]] = {}
    for card in hand:
        by_suit.setdefault(trump.suit_of[card], []).append(card)
    sides = sorted((s for s in by_suit if s != TRUMP), key=lambda s: len(by_suit[s]))
    for suit in sides:
        cards = by_suit[suit]
        if len(cards) > 8:
            continue
        rest = [c for c in hand if trump.suit_of[c] != suit]
        found[tuple(sorted(cards + list(bury_cards(trump, rest, 8 - len(cards)))))] = None
    # the lowest cards by rank alone, short suits or not
    by_rank = sorted(hand, key=lambda c: (trump.suit_of[c] == TRUMP, trump.order[c]))
    found[tuple(sorted(by_rank[:8]))] = None
    return list(found)[:MAX_BURIES]


def _bury_problem(view: SeatView) -> Problem:
    trump = guess_trump(view)
    choices: list[Action] = [Bury(cards) for cards in bury_candidates(view, trump)]
    sampler = DealSampler(view)
    dealer = view.dealer
    if not sampler.count or dealer is None:
        return Problem(choices[:1], _unjudged, sampler.sample)
    seat, rules = view.seat, view.preset.score
    fry_penalty = sampler.knowledge.fry_penalty

    def judge(action: Action, deal: Deal, dice: int) -> float:
        assert isinstance(action, Bury)
        hands = [list(h) for h in deal.hands]
        for card in action.cards:
            hands[seat].remove(card)
        state = CardPlay(trump, hands, dealer)
        play_out(state, random.Random(dice))
        return hand_value(state, action.cards, fry_penalty, rules, seat)

    return Problem(choices, judge, sampler.sample)


# -- frying ---------------------------------------------------------------------------------


def _bid_in_force(view: SeatView) -> Bid | None:
    """The last bid shown (open presets: every shown bid outranks the one before)."""
    found: Bid | None = None
    for event in view.events:
        match event.payload:
            case Declared(bid=Bid() as bid) | Fried(bid=Bid() as bid):
                found = bid
            case KittyTurned():
                return None
    return found


def _fry_problem(view: SeatView, legal: LegalActions) -> Problem | None:
    preferred = heuristic_move(view)
    in_force = _bid_in_force(view)
    dealer = view.dealer
    if view.preset.bid.hidden or in_force is None or dealer is None or not legal.can_pass:
        return None
    sampler = DealSampler(view)
    if not sampler.count:
        return Problem([preferred], _unjudged, sampler.sample)
    by_suit: dict[object, Action] = {}
    for bid in legal.bids:
        by_suit.setdefault(bid.suit, Fry(bid))
    choices: list[Action] = [preferred, *(a for a in [Pass(), *by_suit.values()] if a != preferred)]
    seat, rules, level = view.seat, view.preset.score, view.level
    fry_penalty = sampler.knowledge.fry_penalty
    standing = Trump(level, in_force.suit, view.preset.card)
    trumps: dict[Suit | None, Trump] = {}

    def judge(action: Action, deal: Deal, dice: int) -> float:
        hands = [list(h) for h in deal.hands]
        kitty: Sequence[Card] = deal.kitty
        if isinstance(action, Fry):
            suit = action.bid.suit
            trump = trumps.setdefault(suit, Trump(level, suit, view.preset.card))
            whole = hands[seat] + list(kitty)
            kitty = bury_cards(trump, whole)
            for card in kitty:
                whole.remove(card)
            hands[seat] = whole
        else:
            trump = standing
        state = CardPlay(trump, hands, dealer)
        play_out(state, random.Random(dice))
        return hand_value(state, kitty, fry_penalty, rules, seat)

    return Problem(choices, judge, sampler.sample)


# -- the search ---------------------------------------------------------------------------


def problem(view: SeatView) -> Problem | None:
    """The search's problem at ``view``'s decision: the choices it weighs (the heuristic's
    first) and how it judges one in a world; ``None`` where it does not search (declaring,
    frying while bids are hidden: the heuristic's rule decides)."""
    legal = view.legal
    assert legal is not None
    if legal.phase is Phase.PLAY:
        return _play_problem(view, legal)
    if legal.phase is Phase.BURY:
        return _bury_problem(view)
    if legal.phase is Phase.FRY and legal.bids:
        return _fry_problem(view, legal)
    return None


def search_move(
    view: SeatView,
    rng: random.Random,
    budget: Budget | None = None,
    spent: Spent | None = None,
) -> Action:
    """The search's move for ``view`` within ``budget`` (its playouts added to ``spent``)."""
    found = problem(view)
    if found is None:
        return heuristic_move(view)
    return _halving(found.choices, found.judge, found.draw, budget or Budget(), rng, spent)
