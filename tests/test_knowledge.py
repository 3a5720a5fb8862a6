"""What a seat infers about the cards it cannot see (chaodipi.engine.knowledge), on set-up hands.

The hands come from a stacked shoe (tests/support.py) in a later hand where nobody declares,
so the kitty is turned (003 「若打牌過程中無人叫主，則翻底，底牌中第三張牌的花色即為本副牌的主牌」):
here its third card is a heart, so hearts are trump at level 2, and seat 1 deals."""

from __future__ import annotations

import random
from collections import Counter

from chaodipi.engine.actions import Bury, Pass, Play
from chaodipi.engine.cards import Card, Rank, parse_cards
from chaodipi.engine.events import EventLog
from chaodipi.engine.hand import HandState
from chaodipi.engine.knowledge import KITTY, Bound, Inference, infer
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.sampling import DealSampler
from chaodipi.engine.trump import TRUMP
from chaodipi.engine.view import observe

from .support import stacked_deck

KITTY_CARDS = "♦3 ♦4 ♥9 ♦6 ♦7 ♦8 ♦9 ♦10"


def set_up(preset: str, seats: dict[int, str]) -> Match:
    """Seat 1 deals these hands; nobody declares, the kitty (KITTY_CARDS) is turned, and seat 1
    buries it again: the card play begins, seat 1 to lead."""
    match = Match(PRESETS[preset], seed=0)
    match.log = EventLog()
    deck = stacked_deck(seats, KITTY_CARDS, first=1)
    match.hand = HandState.deal(PRESETS[preset], "t", Rank.TWO, 1, deck=deck, log=match.log)
    while match.hand.phase is Phase.DECLARE:
        match.apply(match.to_play, Pass())
    match.apply(1, Bury(tuple(parse_cards(KITTY_CARDS))))
    assert match.hand.phase is Phase.PLAY and match.to_play == 1
    return match


def play(match: Match, *plays: str) -> None:
    for text in plays:
        match.apply(match.to_play, Play(tuple(parse_cards(text))))


def test_a_throw_that_stood_rules_out_higher_singles_and_pairs() -> None:
    """000 「甩牌:首家出牌时，同门花色的最大牌可以联出」: seat 1's ♠A ♠K ♠JJ stood, so no other
    seat held the other ♠A (it would beat the ♠K) nor a pair above ♠JJ (so the two ♠Q, which
    seat 0 has not seen, are not both with seat 2 nor both with seat 3)."""
    match = set_up(
        "classic",
        {
            0: "♠10 ♠5 ♠6 ♠7",
            1: "♠A ♠A ♠K ♠J ♠J",
            2: "♠Q ♠K ♠3 ♠4 ♠5 ♠6",
            3: "♠Q ♠10 ♠7 ♠8 ♠9 ♠3",
        },
    )
    play(match, "♠A ♠K ♠JJ", "♠3 ♠4 ♠5 ♠6", "♠7 ♠8 ♠9 ♠3")
    view = observe(match, 0)
    known = infer(view)
    ace, queen = parse_cards("♠A ♠Q")
    assert Bound(ace, frozenset({2}), 0, 0) in known.bounds
    assert Bound(ace, frozenset({3}), 0, 0) in known.bounds
    assert known.allowed(ace) == (1, KITTY)
    assert Bound(queen, frozenset({2}), 0, 1) in known.bounds
    assert Bound(queen, frozenset({3}), 0, 1) in known.bounds
    deals = DealSampler(known).samples(random.Random(0), 300)
    assert all(d.hands[2].count(ace) == d.hands[3].count(ace) == 0 for d in deals)
    assert all(d.hands[s].count(queen) < 2 for d in deals for s in (2, 3))
    split = Counter((d.hands[2].count(queen), d.hands[3].count(queen)) for d in deals)
    assert split[(1, 1)] > 0 and split[(0, 0)] > 0  # the queens may be anywhere else


def test_a_failed_throw_leaves_the_rest_of_it_in_the_throwers_hand() -> None:
    """000 「若并非都是大牌时，称"甩错牌"，则其必须出欲联出的牌中的最小牌」: seat 1 tried ♠A ♠K
    with the other ♠A in seat 2, played only the ♠K, and so still holds the ♠A."""
    match = set_up("classic", {1: "♠A ♠K ♠3", 2: "♠A ♠4", 3: "♠5", 0: "♠6"})
    play(match, "♠A ♠K")
    assert match.hand.play is not None and match.hand.play.penalty_points
    known = infer(observe(match, 2))
    ace = parse_cards("♠A")[0]
    assert Bound(ace, frozenset({1}), 1, 1) in known.bounds
    deals = DealSampler(known).samples(random.Random(0), 50)
    assert all(d.hands[1].count(ace) == 1 for d in deals)


def test_answering_a_trump_five_ten_king_with_the_highest_trumps_shows_none_higher() -> None:
    """ftk_answer_highest (000 rooms): without a trump 5-10-K of its own, seat 2 must answer
    seat 1's ♥5 ♥10 ♥K with its three highest trumps, so it has no trump above the lowest of
    them left."""
    match = set_up("mingchao", {1: "♥5 ♥10 ♥K", 2: "♥A ♥Q ♥3 ♥4 ♥6"})
    play(match, "♥5 ♥10 ♥K")
    answer = match.legal_actions(2).sample(random.Random(0))
    assert isinstance(answer, Play)
    match.apply(2, answer)
    trump = match.hand.trump
    assert trump is not None
    lowest = min(trump.order[c] for c in answer.cards)
    known = infer(observe(match, 3))
    stronger = {c for c in known.unseen() if trump.suit_of[c] == TRUMP and trump.order[c] > lowest}
    assert stronger  # else the test shows nothing
    ruled_out = {b.card for b in known.bounds if b.places == {2} and b.high == 0}
    assert stronger <= ruled_out
    for deal in DealSampler(known).samples(random.Random(0), 50):
        assert not stronger & set(deal.hands[2])


def test_the_turned_kitty_is_with_the_dealer_or_buried() -> None:
    """Every seat saw the turned kitty go to seat 1, which buried eight cards: each of those
    cards is in its hand or the kitty."""
    match = set_up("classic", {})
    known = infer(observe(match, 0))
    for card, count in Counter(parse_cards(KITTY_CARDS)).items():
        seen = 2 - known.unseen()[card]
        bound = Bound(card, frozenset({1, KITTY}), count - seen, known.unseen()[card])
        assert count <= seen or bound in known.bounds, card
    assert known.sizes == (25, 25, 25, 25, 8, 0)


def test_cards_shown_in_bids_stay_with_the_bidder_unless_it_buried_them() -> None:
    """Seed 3 (classic): seat 0 declared with one ♦2 and kept it; seat 2 declared with the pair
    of small jokers, then dealt, took the kitty and buried: they are in its hand or the kitty."""
    match = Match(PRESETS["classic"], seed=3)
    rng = random.Random(3)
    while (
        match.hand.phase is not Phase.PLAY
        or match.hand.play is None
        or len(match.hand.play.tricks) < 2
    ):
        match.apply(match.to_play, match.legal_actions().sample(rng))
    known = infer(observe(match, 3))
    two, small = parse_cards("♦2 LJ")
    assert Bound(two, frozenset({0}), 1, known.unseen()[two]) in known.bounds
    assert Bound(small, frozenset({2, KITTY}), 2, 2) in known.bounds
    for deal in DealSampler(known).samples(random.Random(0), 100):
        assert two in deal.hands[0]
        assert deal.hands[2].count(small) + deal.kitty.count(small) == 2


def test_hidden_bids_count_only_once_revealed() -> None:
    """暗炒 (anchao) 「只有亮牌者自己知道。直到炒底结束后，公布所有玩家的炒底经过」: before the reveal
    another seat's bid says nothing; after it, its cards are bounds."""
    for seed in range(30):
        match = Match(PRESETS["anchao"], seed=seed)
        rng = random.Random(seed)
        while match.hand.phase is Phase.DECLARE and not match.hand.bids:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        if not match.hand.bids or match.hand.phase is not Phase.DECLARE:
            continue
        maker = match.hand.bids[0].seat
        other = (maker + 1) % 4
        assert not [b for b in infer(observe(match, other)).bounds if maker in b.places]
        assert not infer(observe(match, maker)).bounds  # its own cards it sees
        while match.hand.phase is not Phase.PLAY:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        shown: Counter[Card] = Counter()
        for record in match.hand.bids:
            if record.seat == maker:
                shown |= Counter(record.bid.cards)
        known = infer(observe(match, other))
        if maker not in (match.hand.dealer, *(r.seat for r in match.hand.bids[1:])):
            for card, count in shown.items():
                assert (
                    Bound(card, frozenset({maker}), count, known.unseen()[card]) in (known.bounds)
                    or known.unseen()[card] < count
                )
        assert any(maker in b.places for b in known.bounds)
        return
    raise AssertionError("no hidden declaration in 30 seeds")


def test_failed_fries_count_in_the_position_as_they_do_in_the_hand() -> None:
    """000 暗炒 「如果是庄家方炒底失败1次，则抓分方加80分;如果是抓分方炒底失败一次，扣80分」: once
    the bids are revealed every seat knows which fries failed, so a position built from a
    deal scores them as the real hand does."""
    for seed, penalty in ((9, 80), (20, -80)):
        match = Match(PRESETS["anchao"], seed=seed, max_hands=1)
        rng = random.Random(seed)
        while match.hand.phase is not Phase.PLAY:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        assert match.hand.fry_penalty == penalty
        for seat in range(4):
            view = observe(match, seat)
            assert infer(view).fry_penalty == penalty
            sampler = DealSampler(view)
            assert sampler.hand_state(sampler.sample(rng)).fry_penalty == penalty


def test_an_inference_kept_through_a_game_knows_what_infer_knows_at_every_decision() -> None:
    """``Inference`` reads each view's new events on top of those it read: at every decision of
    whole matches of every preset (hidden bids revealed, redeals, buries, fries, failed and stood
    throws among them), for every seat that decides, its knowledge is ``infer``'s."""
    checked = 0
    for name, preset in sorted(PRESETS.items()):
        for seed in (1, 2):
            match, rng = Match(preset, seed=seed, max_hands=2), random.Random(seed)
            inferences = [Inference() for _ in range(4)]
            while not match.over:
                seat = match.to_play
                view = observe(match, seat)
                assert inferences[seat].knowledge(view) == infer(view), (name, seed, checked)
                checked += 1
                match.apply(seat, match.legal_actions().sample(rng))
    assert checked > 1000
