"""Sampling hidden hands (chaodipi.engine.sampling, chaodipi.engine.knowledge).

* On random whole games of every preset, at many points and for every seat, every sampled deal
  is consistent with what the seat saw (checked here from the view's events, not with the
  engine's inference), and so is the true deal (the inference is sound).
* A sample never depends on what the seat cannot see: changing hidden cards leaves the
  sampler's output for the same rng seed unchanged.
* On small endgames the sample frequencies match the exact distribution, enumerated here by
  brute force over the physical cards (a chi-square test with a fixed seed).
* A sampled deal becomes an engine position that plays on exactly like the real hand.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from chaodipi.engine.actions import Play
from chaodipi.engine.bidding import Bid
from chaodipi.engine.cards import DECK, Card, Rank, Suit, parse_cards
from chaodipi.engine.events import (
    BidsRevealed,
    Declared,
    Fried,
    KittyTaken,
    Played,
    TookKitty,
)
from chaodipi.engine.knowledge import KITTY, UNDEALT, Bound, Knowledge, infer
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.sampling import Deal, DealSampler, count_deals, position, sample_deals
from chaodipi.engine.throws import beats_unit
from chaodipi.engine.trick import PlayKind, classify_lead
from chaodipi.engine.trump import Trump
from chaodipi.engine.view import SeatView, observe
from tests.support import copied

P_FLOOR = 1e-6
"""A chi-square p-value below this fails: with the fixed seeds a false failure would need a
one-in-a-million draw."""


KANGQI_HAND = "kangqi/扛旗"
"""Not a preset: the kangqi preset's 扛旗 hand (after the dealers' A; 27 cards a seat, no
kitty, no trump), reached by starting a match there."""


def points_of_games(preset: str, seeds: range, every: int) -> Iterator[Match]:
    """Random whole matches (two hands each), stopping every ``every`` actions."""
    for seed in seeds:
        if preset == KANGQI_HAND:
            match = Match(PRESETS["kangqi"], seed=seed, max_hands=1, progress=[13, 0], dealer=0)
            assert match.hand.kangqi_hand
        else:
            match = Match(PRESETS[preset], seed=seed, max_hands=2)
        rng = random.Random(f"{preset}/{seed}")
        step = 0
        while not match.over:
            if step % every == 0:
                yield match
            match.apply(match.to_play, match.legal_actions().sample(rng))
            step += 1


def truth(match: Match) -> Deal:
    """Where the cards really are now."""
    hand = match.hand
    hands = tuple(tuple(sorted(hand.hand(s))) for s in range(4))
    kitty = tuple(sorted(hand.kitty)) if hand.phase is not Phase.BURY else ()
    left = Counter(DECK)
    for cards in (*hands, kitty):
        left.subtract(cards)
    for event in hand.events:
        if isinstance(event.payload, Played):
            left.subtract(event.payload.cards)
    undealt = tuple(sorted((+left).elements())) if hand.phase is Phase.DECLARE else ()
    return Deal(hands, kitty, undealt)


def _show(shown: dict[int, Counter[Card]], seat: int, bid: Bid) -> None:
    have = shown.setdefault(seat, Counter())
    for card, n in Counter(bid.cards).items():
        have[card] = max(have[card], n)


def problems(view: SeatView, deal: Deal) -> list[str]:
    """What in ``deal`` contradicts what ``view``'s seat saw, worked out from its events."""
    found: list[str] = []
    seat = view.seat
    if sorted(deal.hands[seat]) != sorted(view.hand):
        found.append("its own hand differs")
    played: dict[int, list[Card]] = {s: [] for s in range(4)}
    plays: list[tuple[int, Played]] = []
    took_kitty: set[int] = set()
    shown: dict[int, Counter[Card]] = {}
    for event in view.events:
        match event.payload:
            case Played() as p:
                played[p.seat].extend(p.cards)
                plays.append((len(plays), p))
            case KittyTaken(seat=s) | TookKitty(seat=s):
                took_kitty.add(s)
            case Declared(seat=s, bid=Bid() as bid) | Fried(seat=s, bid=Bid() as bid):
                _show(shown, s, bid)
            case BidsRevealed(bids=bids):
                for record in bids:
                    _show(shown, record.seat, record.bid)
    everything = Counter(c for h in deal.hands for c in h)
    everything.update(deal.kitty)
    everything.update(deal.undealt)
    for cards in played.values():
        everything.update(cards)
    if everything != Counter(DECK):
        found.append("the cards do not add up to the shoe")
    real_kitty = len(deal.kitty)
    if view.phase is Phase.PLAY and real_kitty != (0 if view.level is None else 8):
        found.append(f"a kitty of {real_kitty}")
    start = len(view.hand) + len(played[seat])
    if view.phase is Phase.PLAY:
        for s in range(4):
            if len(deal.hands[s]) != start - len(played[s]):
                found.append(f"seat {s} holds {len(deal.hands[s])} cards")
    # voids, and stood throws' singles and pairs, from the tricks
    trump = view.trump
    for index, (_, p) in enumerate(plays):
        if trump is None or index % 4:
            continue
        lead = classify_lead(trump, p.cards)
        trick = plays[index : index + 4]
        for _, follow in trick[1:]:
            short = sum(trump.suit_of[c] == lead.suit for c in follow.cards) < len(p.cards)
            if short and any(trump.suit_of[c] == lead.suit for c in deal.hands[follow.seat]):
                found.append(f"seat {follow.seat} showed a void in {lead.suit}")
        if lead.kind is PlayKind.THROW and p.attempted is None:
            for other in range(4):
                if other == p.seat:
                    continue
                then = Counter(deal.hands[other])
                for _, later in plays[index:]:
                    if later.seat == other:
                        then.update(later.cards)
                for unit in lead.units:
                    if unit.length <= 1 and beats_unit(trump, unit, lead.suit, dict(then)):
                        found.append(f"seat {other} could have beaten the throw {p.cards}")
        if p.attempted is not None:
            held = Counter(deal.hands[p.seat])
            for _, later in plays[index:]:
                if later.seat == p.seat:
                    held.update(later.cards)
            if Counter(p.attempted) - held:
                found.append(f"seat {p.seat} no longer holds its failed throw")
    # cards shown in bids, by seats that never took up the kitty since
    for s, cards in shown.items():
        if s == seat or s in took_kitty:
            continue
        held = Counter(deal.hands[s]) + Counter(played[s])
        if cards - held:
            found.append(f"seat {s} lost the cards it showed: {cards - held}")
    return found


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_every_sample_is_consistent_and_so_is_the_truth(preset: str) -> None:
    rng = random.Random(preset)
    points = 0
    for match in points_of_games(preset, range(3 if preset != KANGQI_HAND else 6), every=7):
        real = truth(match)
        for seat in range(4):
            view = observe(match, seat)
            sampler = DealSampler(view)
            assert sampler.count > 0
            assert problems(view, real) == [], (preset, seat, view.phase)
            knowledge = sampler.knowledge
            assert knowledge.sizes[UNDEALT] == len(real.undealt)
            for bound in knowledge.bounds:  # the inference is sound: the truth keeps it
                where = Counter(c for p in bound.places for c in _cards_in(real, p))
                assert bound.allows(where[bound.card]), (str(bound), preset, seat)
            for deal in sampler.samples(rng, 4):
                assert problems(view, deal) == [], (preset, seat, view.phase)
                assert deal.hands[seat] == view.hand
                for s in range(4):
                    assert len(deal.hands[s]) == len(real.hands[s])
                assert len(deal.kitty) == len(real.kitty)
                assert len(deal.undealt) == len(real.undealt)
            points += 1
    assert points > 80


def _cards_in(deal: Deal, place: int) -> tuple[Card, ...]:
    if place == KITTY:
        return deal.kitty
    if place == UNDEALT:
        return deal.undealt
    return deal.hands[place]


def swap_hidden(match: Match, seat: int, rng: random.Random) -> bool:
    """Exchange a card between two other seats, and the kitty's with a third seat's unless
    ``seat`` knows the kitty: all cards ``seat`` cannot see."""
    hand = match.hand
    hands = hand.play.hands if hand.play is not None else hand.hands
    a, b = rng.sample([s for s in range(4) if s != seat], 2)
    options = [(x, y) for x in hands[a] for y in hands[b] if x != y]
    if not options:
        return False
    x, y = rng.choice(options)
    for s, out, inn in ((a, x, y), (b, y, x)):
        hands[s][out] -= 1
        if not hands[s][out]:
            del hands[s][out]
        hands[s][inn] = hands[s].get(inn, 0) + 1
    buried_by_seat = any(
        e.kind.value == "bury" and e.seat == seat for e in hand.events if seat in e.audience
    )
    if hand.kitty and not buried_by_seat and hands[a]:
        out = next(iter(hands[a]))
        kitty = hand.kitty
        inn = kitty.pop(0)
        kitty.append(out)
        hands[a][out] -= 1
        if not hands[a][out]:
            del hands[a][out]
        hands[a][inn] = hands[a].get(inn, 0) + 1
    return True


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_samples_do_not_depend_on_hidden_cards(preset: str) -> None:
    rng = random.Random(preset)
    changed = 0
    for trial, played in enumerate(points_of_games(preset, range(2), every=11)):
        match = copied(played)  # the game goes on from the unchanged one
        seat = trial % 4
        before = observe(match, seat)
        drawn = sample_deals(before, random.Random(trial), 5)
        real = truth(match)
        if not swap_hidden(match, seat, rng):
            continue
        assert truth(match) != real
        after = observe(match, seat)
        assert after == before  # the view hides them (tests/test_view.py)...
        assert sample_deals(after, random.Random(trial), 5) == drawn  # ...so the samples do
        changed += 1
    assert changed > 10


# -- the exact distribution on small endgames ------------------------------------------------


def endgame(
    hand: str,
    hidden: str,
    sizes: dict[int, int],
    *,
    voids: dict[int, set[int]] | None = None,
    bounds: tuple[Bound, ...] = (),
    trump: Trump | None = None,
) -> Knowledge:
    """Seat 0 holds ``hand``; ``hidden`` is in seats 1-3 and the kitty, ``sizes`` each; every
    other card was played (by seat 0, which does not matter here)."""
    trump = trump or Trump(Rank.TWO, Suit.HEARTS)
    mine, unseen = parse_cards(hand), parse_cards(hidden)
    played = Counter(DECK)
    played.subtract(mine)
    played.subtract(unseen)
    assert sum(sizes.values()) == len(unseen) and min(played.values()) >= 0
    size = [len(mine), 0, 0, 0, 0, 0]
    for place, n in sizes.items():
        size[place] = n
    return Knowledge(
        seat=0,
        preset=PRESETS["classic"],
        phase=Phase.PLAY,
        dealer=0,
        trump=trump,
        hand=tuple(mine),
        played=(tuple(sorted((+played).elements())), (), (), ()),
        plays=(),
        sizes=tuple(size),
        kitty=None if sizes.get(KITTY) else (),
        voids=tuple(frozenset((voids or {}).get(s, set())) for s in range(4)),
        bounds=bounds,
        table=None,
    )


def exact(knowledge: Knowledge) -> Counter[tuple[tuple[Card, ...], ...]]:
    """Every deal by brute force over the physical cards (copies told apart), as the key
    ``_key`` gives, with its number of ways."""
    places = knowledge.hidden_places()
    cards = sorted(knowledge.unseen().elements())
    trump = knowledge.trump
    assert trump is not None
    tally: Counter[tuple[tuple[Card, ...], ...]] = Counter()
    where: list[list[Card]] = [[] for _ in places]

    def go(i: int) -> None:
        if i == len(cards):
            held = {p: Counter(w) for p, w in zip(places, where, strict=True)}
            for b in knowledge.bounds:
                if not b.allows(sum(held[p][b.card] for p in b.places if p in held)):
                    return
            tally[tuple(tuple(sorted(w)) for w in where)] += 1
            return
        card = cards[i]
        for j, p in enumerate(places):
            if len(where[j]) == knowledge.sizes[p]:
                continue
            if p < 4 and trump.suit_of[card] in knowledge.voids[p]:
                continue
            where[j].append(card)
            go(i + 1)
            where[j].pop()

    go(0)
    return tally


def _key(knowledge: Knowledge, deal: Deal) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(sorted(_cards_in(deal, p))) for p in knowledge.hidden_places())


def assert_matches_exact(knowledge: Knowledge, draws: int, seed: int) -> None:
    from scipy.stats import chisquare  # a second's import, for the tests that draw many

    ways = exact(knowledge)
    total = sum(ways.values())
    assert count_deals(knowledge) == total
    sampler = DealSampler(knowledge)
    seen = Counter(_key(knowledge, d) for d in sampler.samples(random.Random(seed), draws))
    assert set(seen) <= set(ways)  # nothing impossible is ever drawn
    outcomes = sorted(ways)
    expected = [draws * ways[o] / total for o in outcomes]
    assert min(expected) >= 5, "too few draws for a chi-square test"
    result = chisquare([seen[o] for o in outcomes], expected)
    assert result.pvalue > P_FLOOR, result


def test_two_copies_split_weigh_twice_both_together() -> None:
    # two ♠9 and ♥3 ♥4 between seats 1 and 2, two cards each: of the C(4,2) = 6 ways, seat 1
    # has both ♠9 in one, ♥3♥4 in one, and one ♠9 (either copy) with ♥3 in two, with ♥4 in two
    knowledge = endgame("♣3", "♠9 ♠9 ♥3 ♥4", {1: 2, 2: 2, 3: 0})
    nine, three, four = parse_cards("♠9 ♥3 ♥4")
    assert exact(knowledge) == {
        ((nine, nine), (three, four)): 1,
        ((three, four), (nine, nine)): 1,
        ((nine, three), (nine, four)): 2,
        ((nine, four), (nine, three)): 2,
    }
    assert count_deals(knowledge) == 6
    assert_matches_exact(knowledge, 6000, seed=1)


def test_endgame_with_voids_and_bounds_matches_the_exact_distribution() -> None:
    # seat 1 is void in spades, seat 3 in trumps (hearts); seat 2 showed ♦5 (it or the kitty
    # has one) and holds at most one ♠A
    heart_trump = Trump(Rank.TWO, Suit.HEARTS)
    five, ace = parse_cards("♦5 ♠A")
    knowledge = endgame(
        "♣3 ♣4",
        "♠A ♠A ♠K ♥3 ♥4 ♦5 ♦5 BJ ♣9",
        {1: 2, 2: 3, 3: 2, KITTY: 2},
        voids={1: {Suit.SPADES}, 3: {4}},
        bounds=(
            Bound(five, frozenset({2, KITTY}), 1, 2),
            Bound(ace, frozenset({2}), 0, 1),
        ),
        trump=heart_trump,
    )
    assert_matches_exact(knowledge, 40_000, seed=2)


def test_endgame_where_only_classes_of_one_kind_remain() -> None:
    # every unseen kind is bounded: no plain class at all
    a, k = parse_cards("♠A ♠K")
    knowledge = endgame(
        "♣3",
        "♠A ♠A ♠K ♠K",
        {1: 1, 2: 2, 3: 1},
        bounds=(Bound(a, frozenset({1, 2}), 1, 2), Bound(k, frozenset({3}), 0, 0)),
    )
    assert_matches_exact(knowledge, 5000, seed=3)


def test_last_trick_of_a_real_hand_matches_the_exact_distribution() -> None:
    """A seat that did not bury, in the last trick: three hidden cards and the kitty's eight."""
    for seed in range(40):
        match = Match(PRESETS["classic"], seed=seed, max_hands=1)
        rng = random.Random(seed)
        while match.hand.phase is not Phase.PLAY or len(match.hand.hand(0)) > 1:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        seat = match.to_play
        knowledge = infer(observe(match, seat))
        if knowledge.kitty is None and len(exact(knowledge)) >= 20:
            break
    else:
        pytest.fail("no fitting last trick in 40 seeds")
    assert knowledge.sizes[KITTY] == 8
    assert_matches_exact(knowledge, 30_000, seed=seed)


# -- positions -----------------------------------------------------------------------------


def _play_out(state: object, rng: random.Random) -> None:
    from chaodipi.engine.hand import HandState

    assert isinstance(state, HandState)
    while state.phase is Phase.PLAY:
        seat = state.to_play
        state.apply(seat, state.legal_actions(seat).sample(rng))


@pytest.mark.parametrize("preset", [*sorted(PRESETS), KANGQI_HAND])
def test_the_true_deal_as_a_position_plays_on_like_the_real_hand(preset: str) -> None:
    checked = 0
    for match in points_of_games(preset, range(2), every=13):
        if match.hand.phase is not Phase.PLAY:
            continue
        real = match.hand
        assert real.play is not None
        for seat in range(4):
            view = observe(match, seat)
            state = position(view, truth(match))
            assert state.play is not None
            assert state.play.hands == real.play.hands
            assert state.play.trick.plays == real.play.trick.plays
            assert state.play.trick.winner == real.play.trick.winner
            assert [t.plays for t in state.play.tricks] == [t.plays for t in real.play.tricks]
            assert state.play.defender_points == real.play.defender_points
            assert state.play.penalty_points == real.play.penalty_points
            assert state.to_play == real.to_play == view.to_act
            ours, theirs = state, copied(real)
            theirs.log = copied(real.log)
            _play_out(ours, random.Random(seat))
            _play_out(theirs, random.Random(seat))
            assert ours.result == theirs.result
            checked += 1
    assert checked >= 8


def test_sampled_positions_play_to_the_end() -> None:
    for preset in sorted(PRESETS):
        for match in points_of_games(preset, range(1), every=17):
            if match.hand.phase is not Phase.PLAY:
                continue
            view = observe(match, match.to_play)
            sampler = DealSampler(view)
            for deal in sampler.samples(random.Random(0), 3):
                state = sampler.hand_state(deal)
                assert view.legal is not None and view.legal.cards is not None
                legal = state.legal_actions(view.seat).cards
                assert legal is not None and set(legal) == set(view.legal.cards)
                _play_out(state, random.Random(1))
                assert state.result is not None


def test_no_position_before_the_card_play() -> None:
    match = Match(PRESETS["classic"], seed=1)
    view = observe(match, 0)
    deal = sample_deals(view, random.Random(0), 1)[0]
    assert len(deal.undealt) == 100 - 4 * len(view.hand)
    with pytest.raises(ValueError, match="in the card play, not in the declare phase"):
        position(view, deal)


def test_a_play_is_the_same_action_in_a_sampled_position() -> None:
    match = Match(PRESETS["classic"], seed=5)
    rng = random.Random(5)
    while match.hand.phase is not Phase.PLAY:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    view = observe(match, match.to_play)
    state = position(view, sample_deals(view, random.Random(0), 1)[0])
    assert view.legal is not None
    action = view.legal.sample(rng)
    assert isinstance(action, Play)
    state.apply(view.seat, action)
