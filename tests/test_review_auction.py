"""The auction reviewed (chaodipi.search.auction): declaring, and frying while bids are hidden,
judged from the seat's own view like card play; a card the seat cannot see changes no verdict;
a reckless declaration is marked; every preset's auction decisions are judged."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator

import pytest

from chaodipi.engine import (
    PRESETS,
    TRUMP,
    BidKind,
    Buried,
    BuriedCards,
    Bury,
    Declare,
    Declared,
    Fried,
    Fry,
    Match,
    Pass,
    Phase,
    SeatView,
    Trump,
    observe,
)
from chaodipi.records import record_lines
from chaodipi.review import review_game
from chaodipi.review.game import _real_deal  # the one place a review reads the real deal
from chaodipi.review.judging import Judged, judge
from chaodipi.search import guess_trump, heuristic_move


def _share(view: SeatView, suit: object) -> float:
    """The share of the seat's cards a trump of ``suit`` would make trumps."""
    trump = Trump(view.level, suit, view.preset.card)  # type: ignore[arg-type]
    return sum(1 for c in view.hand if trump.suit_of[c] == TRUMP) / len(view.hand)


def _auction_decisions(preset: str, seed: int) -> Iterator[tuple[Match, SeatView]]:
    """Each declaring, frying or burying decision with a choice of a one-hand game of heuristic
    bots."""
    match = Match(PRESETS[preset], seed=seed, max_hands=1)
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        if view.phase in (Phase.DECLARE, Phase.FRY, Phase.BURY) and view.legal.forced() is None:
            yield match, view
        match.apply(match.to_play, heuristic_move(view))


def _unseen_bid_and_kitty(view: SeatView) -> bool:
    """Whether another seat made a bid this seat did not see, and the kitty (if buried yet) is
    another seat's."""
    hidden = False
    own_kitty = False
    for event in view.events:
        match event.payload:
            case Declared(seat=seat, bid=None) | Fried(seat=seat, bid=None):
                hidden = hidden or seat != view.seat
            case BuriedCards():
                own_kitty = True
            case Buried():
                own_kitty = False
            case _:
                pass
    return hidden and not own_kitty


def _move_unseen(match: Match, seat: int) -> Match:
    """The match with a card of another seat swapped for a card of the kitty: two cards
    ``seat`` cannot see (while the cards are dealt, the kitty is not dealt yet)."""
    other = (seat + 1) % 4
    moved = copy.deepcopy(match)
    auction = moved.hand.auction
    held = auction.hands[other]
    give = next(c for c in sorted(held) if c not in auction.kitty)
    take = next(c for c in auction.kitty if c not in held)
    held[give] -= 1
    if not held[give]:
        del held[give]
    held[take] = held.get(take, 0) + 1
    auction.dealt[other][auction.dealt[other].index(give)] = take
    auction.kitty[auction.kitty.index(take)] = give
    return moved


def _swap_between_others(match: Match, seat: int) -> Match:
    """The match with a card of one other seat swapped for a card of another: two cards
    ``seat`` cannot see (none shown in a bid; the first such swap that leaves its view as it
    is)."""
    view = observe(match, seat)
    auction = match.hand.auction
    others = [s for s in range(4) if s != seat]
    for a, b in itertools.combinations(others, 2):
        for give in sorted(auction.hands[a]):
            for take in sorted(auction.hands[b]):
                if give in auction.hands[b] or take in auction.hands[a]:
                    continue
                moved = copy.deepcopy(match)
                hands, dealt = moved.hand.auction.hands, moved.hand.auction.dealt
                for holder, out, into in ((a, give, take), (b, take, give)):
                    hands[holder][out] -= 1
                    if not hands[holder][out]:
                        del hands[holder][out]
                    hands[holder][into] = hands[holder].get(into, 0) + 1
                    dealt[holder][dealt[holder].index(out)] = into
                if observe(moved, seat) == view:
                    return moved
    raise AssertionError("no two cards the seat cannot see")


def _own(judged: Judged) -> list[tuple[object, float, float]]:
    """A verdict's values from the seat's own information (hindsight left out)."""
    return [(c.action, c.value, c.error) for c in judged.candidates]


def _unseen_position(preset: str, phase: Phase) -> tuple[Match, SeatView]:
    """The first decision of ``phase`` in a game of heuristic bots of ``preset`` (seeds 0-39);
    in anchao's declaring and frying, one where another seat made a bid this seat did not see
    and the kitty is not its own."""
    for seed in range(40):
        for match, view in _auction_decisions(preset, seed):
            if view.phase is not phase:
                continue
            if phase is Phase.BURY or preset == "classic" or _unseen_bid_and_kitty(view):
                return match, view
    raise AssertionError(f"no {phase.value} decision in {preset}")


@pytest.mark.parametrize(
    ("preset", "phase"),
    [
        ("classic", Phase.DECLARE),
        ("classic", Phase.FRY),
        ("classic", Phase.BURY),
        ("anchao", Phase.DECLARE),
        ("anchao", Phase.FRY),
        ("anchao", Phase.BURY),
    ],
)
def test_a_card_the_seat_cannot_see_changes_no_verdict_of_its_auction(
    preset: str, phase: Phase
) -> None:
    """Position: a declaring, frying or burying decision of a game of heuristic bots (classic,
    bids shown; anchao, where another seat's bid is hidden). Two cards the seat cannot see are
    swapped (a card of another seat for one of the kitty, while the kitty is not the seat's; a
    card of one other seat for one of another's): the seat's view is unchanged, and so is
    every value of the review of its decision, given the seed; only the hindsight values (all
    cards open) may move."""
    match, view = _unseen_position(preset, phase)
    moves = [_swap_between_others(match, view.seat)]
    if phase is not Phase.BURY and (phase is Phase.DECLARE or _unseen_bid_and_kitty(view)):
        moves.append(_move_unseen(match, view.seat))
    chosen = heuristic_move(view)
    first = judge(view, chosen, _real_deal(match), 40, "unseen")
    assert first is not None
    for moved in moves:
        assert _real_deal(moved) != _real_deal(match)
        assert observe(moved, view.seat) == view
        second = judge(observe(moved, view.seat), chosen, _real_deal(moved), 40, "unseen")
        assert second is not None
        assert _own(first) == _own(second)
        assert (first.cost, first.error, first.mark) == (second.cost, second.error, second.mark)
    kinds = {type(c.action) for c in first.candidates}
    if phase is Phase.BURY:
        assert kinds == {Bury} and len(first.candidates) > 1
    else:
        assert Pass in kinds and (Declare in kinds or Fry in kinds)


def _reckless(seed: int) -> tuple[Match, SeatView, Declare] | None:
    """The first declaring decision of a classic game of heuristic bots where the seat holds 10
    cards or more, nobody has declared yet, the heuristic passes, and a bid it may make would
    make trumps of less than a quarter of its cards: that bid, declared."""
    for match, view in _auction_decisions("classic", seed):
        assert view.legal is not None
        if view.phase is not Phase.DECLARE or len(view.hand) < 10:
            continue
        if any(isinstance(event.payload, Declared) for event in view.events):
            continue  # a bid is in force: declaring over it is another question
        if heuristic_move(view) != Pass():
            continue
        weakest = min(view.legal.bids, key=lambda bid: _share(view, bid.suit))
        if _share(view, weakest.suit) < 0.25:
            return match, view, Declare(weakest)
    return None


def test_a_reckless_declaration_is_marked_with_passing_the_better_move() -> None:
    """Position: classic, the first hand of a game of heuristic bots; nobody has declared yet,
    and a seat of 10 cards or more whose heuristic passes declares the bid that makes trumps of
    the fewest of its cards (a fifth of them). 003: 「第一局的莊家由翻主方擔任」 and 「莊家具有扣底牌和第一輪的首先出牌權」:
    its team would deal with a trump of a fifth of its cards. Verdict (3 such positions in
    seeds 0-29): the review marks each a blunder (``??``: a cost of half a level or more,
    beyond two standard errors; about one level here), passing the better move; the
    heuristic's own pass there is not marked."""
    found = [p for p in map(_reckless, range(30)) if p is not None]
    assert len(found) == 3
    for match, view, planted in found:
        judged = judge(view, planted, _real_deal(match), 120, "reckless")
        assert judged is not None and judged.chosen == planted
        assert judged.mark == "??", (str(planted), judged.cost, judged.error)
        assert judged.best == Pass()
        passed = judge(view, Pass(), _real_deal(match), 120, "reckless")
        assert passed is not None and passed.mark == ""


def _overriding(seed: int) -> tuple[Match, SeatView, Declare] | None:
    """The first declaring decision of a classic game of heuristic bots where the seat holds 10
    cards or more, the bid in force is an opponent's single, the heuristic passes, and a bid it
    may make over it would make trumps of a fifth of its cards or fewer: that bid, declared."""
    for match, view in _auction_decisions("classic", seed):
        assert view.legal is not None
        if view.phase is not Phase.DECLARE or len(view.hand) < 10:
            continue
        shown = [e.payload for e in view.events if isinstance(e.payload, Declared)]
        if not shown or shown[-1].seat % 2 == view.seat % 2 or shown[-1].bid is None:
            continue
        if shown[-1].bid.kind is not BidKind.SINGLE or heuristic_move(view) != Pass():
            continue
        weakest = min(view.legal.bids, key=lambda bid: _share(view, bid.suit))
        if _share(view, weakest.suit) <= 0.2:
            return match, view, Declare(weakest)
    return None


def test_a_reckless_override_is_marked_with_its_cost() -> None:
    """Position: classic, the first hand of a game of heuristic bots; an opponent has declared a
    single, and a seat of 10 cards or more whose heuristic passes declares over it the pair
    that makes trumps of the fewest of its cards (a fifth or fewer). 003: 「第一局的莊家由翻主方擔任」:
    its team would deal with that trump. Verdict (5 such positions in seeds 0-29): the review
    marks each a blunder (``??``), passing the better move, at a cost of half a level or more
    (3.3 to 4.3 levels here) beyond two standard errors."""
    found = [p for p in map(_overriding, range(30)) if p is not None]
    assert len(found) == 5
    for match, view, planted in found:
        judged = judge(view, planted, _real_deal(match), 120, "override")
        assert judged is not None and judged.chosen == planted and judged.best == Pass()
        assert judged.mark == "??", (str(planted), judged.cost, judged.error)
        assert judged.cost >= 0.5 and judged.cost > 2 * judged.error
        chosen = next(c for c in judged.candidates if c.action == planted)
        assert judged.cost == pytest.approx(judged.candidates[0].value - chosen.value)


def _dearest_bury(view: SeatView) -> Bury:
    """The eight cards the seat would least want to bury: its point cards, then its highest
    trumps (by the trump it guesses)."""
    trump = guess_trump(view)
    dear = sorted(view.hand, key=lambda c: (-c.points, -trump.order[c]))[:8]
    return Bury(tuple(sorted(dear)))


def test_a_reckless_bury_is_marked_with_its_cost() -> None:
    """Position: classic, the first hand of a game of heuristic bots (seeds 0-3), the dealer at
    its bury. It buries its point cards and highest trumps (45 to 75 points). 003: the defenders
    who win the last trick take the kitty's points, doubled (「摳底」). Verdict: the review marks
    each a blunder (``??``, at a cost of half a level or more beyond two standard errors); the
    heuristic's bury costs less by more than two standard errors."""
    for seed in range(4):
        match, view = next(
            (m, v) for m, v in _auction_decisions("classic", seed) if v.phase is Phase.BURY
        )
        planted = _dearest_bury(view)
        judged = judge(view, planted, _real_deal(match), 120, "bury")
        assert judged is not None and judged.chosen == planted
        assert judged.mark == "??", (seed, judged.cost, judged.error)
        assert judged.cost >= 0.5 and judged.cost > 2 * judged.error
        assert judged.best != planted
        own = judge(view, heuristic_move(view), _real_deal(match), 120, "bury")
        assert own is not None and own.cost < judged.cost - 2 * judged.error


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_auction_decision_of_a_game_is_judged(preset: str) -> None:
    """A one-hand game of heuristic bots in each preset, reviewed: every declaring, frying and
    burying decision with a choice is judged (its candidates passing and the bids; buries)."""
    match = Match(PRESETS[preset], seed=5, max_hands=1)
    while not match.over:
        match.apply(match.to_play, heuristic_move(observe(match, match.to_play)))
    lines = list(record_lines(match))
    review = review_game(lines, simulations=8, seed=1)
    bidding = [d for d in review.decisions if d.phase == "bidding"]
    assert all(d.judged is not None for d in bidding)
    for decision in bidding:
        assert decision.judged is not None
        actions = {c.action for c in decision.judged.candidates}
        assert Pass() in actions and any(isinstance(a, Declare | Fry) for a in actions)
    assert bidding
    burying = [d for d in review.decisions if d.phase == "burying"]
    assert burying and all(d.judged is not None for d in burying)
    for decision in burying:
        assert decision.judged is not None
        assert all(isinstance(c.action, Bury) for c in decision.judged.candidates)
