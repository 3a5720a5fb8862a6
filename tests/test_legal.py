"""The legal-play set: exact, compact, and equal to what the checker accepts (perft-style)."""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest

from chaodipi.engine import Card, IllegalPlay, format_cards
from chaodipi.engine.legal import follow_options, lead_options
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.trick import check_follow

from .support import ANCHAO, cards, hand, lead, trump

T = trump("J", "♠")


def brute_force_follows(t: object, led: str, held: str) -> set[tuple[Card, ...]]:
    """Every sub-multiset of the hand of the lead's size that the checker accepts."""
    from chaodipi.engine import Trump

    assert isinstance(t, Trump)
    the_lead = lead(t, led)
    h = hand(held)
    flat = sorted(c for c, n in h.items() for _ in range(n))
    accepted = set()
    for picked in set(combinations(flat, len(the_lead.cards))):
        try:
            check_follow(t, the_lead, h, list(picked))
        except IllegalPlay:
            continue
        accepted.add(tuple(sorted(picked)))
    return accepted


@pytest.mark.parametrize(
    ("led", "held", "count"),
    [
        ("♣99", "♣KK ♣77 ♣3 ♥4 ♥6", 2),  # a pair from two
        ("♣99", "♣K ♣7 ♣3 ♥4 ♥6", 3),  # any two clubs of three
        ("♣9988", "♣6677 ♣QQ ♣3 ♦4", 1),  # the tractor
        ("♣9988", "♣66 ♣QQ ♣3 ♣4 ♦4", 1),  # both pairs
        ("♣9988", "♣66 ♣3 ♣4 ♣5 ♦4", 3),  # the pair and two of three
        ("♣A ♣KK", "♣QQ ♣1010 ♣3 ♦4", 4),  # a pair + one of the rest (deduplicated)
        ("♣998877", "♣3344 ♣QQ ♣5 ♦6", 1),  # three pairs, no tractor of three
        ("♣5 ♣10 ♣K", "♣3 ♣4 ♣6 ♣7 ♠2", 4),
        ("♠5 ♠10 ♠K", "♥5 BJ ♠3 ♠4 ♦A", 1),  # trump 5-10-K: highest trumps (ANCHAO below)
        ("♣A", "♦3 ♦4 ♥5", 3),  # void: any one card
    ],
)
def test_perft_follow_counts(led: str, held: str, count: int) -> None:
    t = ANCHAO_T if led.startswith("♠5") else T
    legal = follow_options(t, lead(t, led), hand(held))
    assert legal.count() == count
    assert set(legal) == brute_force_follows(t, led, held)


ANCHAO_T = trump("J", "♠", ANCHAO)


def test_free_discard_is_described_not_listed() -> None:
    """The issue's example: void in the suit led, discarding six of 25 different cards gives
    C(25, 6) = 177,100 plays, described by one option."""
    held = "♦2345678910QKA ♥2346789 ♠345678"
    assert len(cards(held)) == 25
    legal = follow_options(T, lead(T, "♣AAKK ♣QQ"), hand(held))
    assert legal.count() == comb(25, 6) == 177_100
    assert len(legal.options) == 1
    option = legal.options[0]
    assert (option.forced, option.k_min, option.k_max) == ((), 6, 6)


def test_option_text_says_forced_plus_any_k() -> None:
    legal = follow_options(T, lead(T, "♣99 ♣A"), hand("♣77 ♣3 ♣4 ♥5"))
    assert [str(o) for o in legal.options] == ["♣77 + any 1 of ♣43"]


def test_lead_options_one_per_suit_held() -> None:
    h = hand("♣3 ♣3 ♣4 ♠2 BJ ♥5 ♥10 ♥K")
    legal = lead_options(trump("J", "♠", ANCHAO), h)
    # ♣: {3,3,4} → 5 non-empty sub-multisets; ♥: 10, K → 3; trumps ♠2 BJ ♥5 → 7;
    # plus the hearts 5-10-K that borrows the trump ♥5
    assert legal.count() == 5 + 3 + 7 + 1
    assert tuple(sorted(cards("♥5 ♥10 ♥K"))) in set(legal)


def test_check_play_names_the_turn() -> None:
    play = CardPlay(T, [cards("♣3"), cards("♣4"), cards("♣5"), cards("♣6")], dealer=0)
    with pytest.raises(IllegalPlay, match="it is seat 0's turn, not seat 2's"):
        play.check_play(2, cards("♣5"))
    with pytest.raises(IllegalPlay, match="hold none"):
        play.check_play(0, cards("♣4"))
    assert format_cards(play.legal_plays().options[0].pool) == "♣3"
