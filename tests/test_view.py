"""``observe(match, seat)`` shows a seat what it may know and nothing else: changing what the
seat cannot see (another hand, the kitty it did not bury, another seat's hidden bid) leaves its
view equal, over random matches of every preset; and the log answers "what is new since"."""

from __future__ import annotations

import random

import pytest

from chaodipi.engine.bidding import Bid
from chaodipi.engine.events import Declared, EventKind, HandOver
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.view import SeatView, observe


def seen(match: Match, seat: int) -> SeatView:
    return observe(match, seat)


def advance(match: Match, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if match.over:
            return
        match.apply(match.to_play, match.legal_actions().sample(rng))


def swap_hidden_cards(match: Match, a: int, b: int, rng: random.Random) -> bool:
    """Swap one card between seats a and b (where it is still in their hands)."""
    hand = match.hand
    hands = hand.play.hands if hand.play is not None else hand.hands
    options = [(x, y) for x in hands[a] for y in hands[b] if x != y]
    if not options:
        return False
    x, y = rng.choice(options)
    for seat, out, inn in ((a, x, y), (b, y, x)):
        h = hands[seat]
        h[out] -= 1
        if not h[out]:
            del h[out]
        h[inn] = h.get(inn, 0) + 1
    return True


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_other_hands_do_not_show(preset: str) -> None:
    rng = random.Random(preset)
    for trial in range(12):
        match = Match(PRESETS[preset], seed=trial, max_hands=2)
        advance(match, rng, rng.randrange(1, 160))
        if match.over:
            continue
        for seat in range(4):
            before = seen(match, seat)
            others = [s for s in range(4) if s != seat]
            a, b = rng.sample(others, 2)
            if swap_hidden_cards(match, a, b, rng):
                assert seen(match, seat) == before, (preset, trial, seat)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_view_holds_only_events_for_its_seat(preset: str) -> None:
    """Redacted by construction: every event in a view has the seat in its audience, and they
    are exactly the hand's events the seat may see."""
    rng = random.Random(preset)
    match = Match(PRESETS[preset], seed=5, max_hands=2)
    while not match.over:
        for seat in range(4):
            view = observe(match, seat)
            assert all(seat in e.audience for e in view.events)
            assert view.events == tuple(e for e in match.hand.events if seat in e.audience)
            assert view.cursor == match.log.cursor
            assert (view.legal is not None) == (view.to_act == seat)
        advance(match, rng, 1)


def test_own_hand_does_show() -> None:
    """The control: the same change made to the seat's own hand does change what it sees."""
    rng = random.Random(1)
    match = Match(PRESETS["classic"], seed=1)
    advance(match, rng, 30)
    before = seen(match, 0)
    assert swap_hidden_cards(match, 0, 1, rng)
    assert seen(match, 0) != before


def test_kitty_shows_only_to_who_buried_it() -> None:
    rng = random.Random(2)
    match = Match(PRESETS["classic"], seed=2)
    while match.hand.phase is not Phase.FRY:
        advance(match, rng, 1)
    hand = match.hand
    burier = next(e.seat for e in reversed(hand.events) if e.kind is EventKind.BURY)
    before = {seat: seen(match, seat) for seat in range(4)}
    hand.kitty = list(reversed(sorted(hand.kitty)))
    hand.kitty[0] = hand.kitty[1]  # a different kitty altogether
    for seat in range(4):
        if seat != burier:
            assert seen(match, seat) == before[seat]
    bury_event = next(e for e in reversed(hand.events) if e.kind is EventKind.BURY)
    assert bury_event.audience == frozenset((burier,))


@pytest.mark.parametrize("preset", ["anchao", "hefei"])
def test_hidden_bids_show_only_to_their_maker_until_the_reveal(preset: str) -> None:
    """暗炒 「只有亮牌者自己知道。直到炒底结束后，公布所有玩家的炒底经过」."""
    rng = random.Random(3)
    for seed in range(20):
        match = Match(PRESETS[preset], seed=seed)
        while match.hand.phase is Phase.DECLARE and not match.hand.bids:
            advance(match, rng, 1)
        if not match.hand.bids or match.hand.phase is not Phase.DECLARE:
            continue
        maker = match.hand.bids[0].seat
        log = match.log
        index = next(
            i for i, e in enumerate(log) if e.kind is EventKind.DECLARE and e.audience == {maker}
        )
        before = {seat: seen(match, seat) for seat in range(4)}
        other = Bid.parse("BJ BJ", match.hand.level)
        # The test reaches in to change a hidden fact: the payload as recorded, and the event
        # the log made of it when the views above read it.
        log._payloads[index] = Declared(maker, other)
        log._made.clear()
        for seat in range(4):
            if seat != maker:
                assert seen(match, seat) == before[seat]
        assert seen(match, maker) != before[maker]
        return
    pytest.fail("no hidden declaration happened in 20 seeds")


def test_everything_is_shown_once_the_hand_is_over() -> None:
    """Full reveal at the end of a hand: every seat's dealt cards and the kitty."""
    rng = random.Random(4)
    match = Match(PRESETS["classic"], seed=4, max_hands=1)
    advance(match, rng, 10_000)
    assert match.over
    view = observe(match, 1)
    over = next(e.payload for e in view.events if isinstance(e.payload, HandOver))
    assert len(over.kitty) == 8 and [len(d) for d in over.dealt] == [25, 25, 25, 25]
    assert view.over and view.to_act is None and view.legal is None
    assert view.history == tuple(match.records)


def test_events_since_a_cursor_are_what_is_new() -> None:
    """A seat that looked at ``cursor`` learns exactly the rest from ``events_since``: the view
    then, plus what came after, is the view now (within a hand)."""
    rng = random.Random(6)
    match = Match(PRESETS["anchao"], seed=6, max_hands=1)
    for seat in range(4):
        view = observe(match, seat)
        while not match.over and match.number == 0 and match.hand.phase is not Phase.PLAY:
            advance(match, rng, 1)
        new = match.events_since(view.cursor, seat)
        assert all(e.seq > view.cursor and seat in e.audience for e in new)
        assert view.events + tuple(new) == observe(match, seat).events
    sequence = [e.seq for e in match.log]
    assert sequence == list(range(1, len(sequence) + 1))
