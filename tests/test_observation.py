"""``observe(match, seat)`` shows a seat what it may know and nothing else: changing what the
seat cannot see (another hand, the kitty it did not bury, another seat's hidden bid) leaves its
observation byte-identical."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engine.hand import Phase
from engine.match import Match
from engine.observation import observe
from engine.presets import PRESETS


def seen(match: Match, seat: int) -> str:
    return json.dumps(observe(match, seat), sort_keys=True, ensure_ascii=False)


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
    burier = next(e.seat for e in reversed(hand.events) if e.kind == "bury")
    before = {seat: seen(match, seat) for seat in range(4)}
    hand.kitty = list(reversed(sorted(hand.kitty)))
    hand.kitty[0] = hand.kitty[1]  # a different kitty altogether
    for seat in range(4):
        if seat != burier:
            assert seen(match, seat) == before[seat]
    bury_event = next(e for e in reversed(hand.events) if e.kind == "bury")
    assert bury_event.visible == frozenset((burier,))


def test_hidden_bids_show_only_to_their_maker_until_the_reveal() -> None:
    """暗炒 「只有亮牌者自己知道。直到炒底结束后，公布所有玩家的炒底经过」."""
    rng = random.Random(3)
    for seed in range(20):
        match = Match(PRESETS["anchao"], seed=seed)
        while match.hand.phase is Phase.DECLARE and not match.hand.bids:
            advance(match, rng, 1)
        if not match.hand.bids or match.hand.phase is not Phase.DECLARE:
            continue
        maker = match.hand.bids[0].seat
        events = match.hand.events
        index = next(
            i for i, e in enumerate(events) if e.kind == "declare" and e.visible == {maker}
        )
        before = {seat: seen(match, seat) for seat in range(4)}
        events[index] = replace(events[index], data={"bid": "BJ BJ"})
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
    events = observe(match, 1)["events"]
    over = next(e for e in events if e["kind"] == "hand_over")
    assert len(over["kitty"]) == 8 and [len(d) for d in over["dealt"]] == [25, 25, 25, 25]
