"""Throws (甩牌): 000 「甩牌」, 001 §3 and §4.2, 003 「甩牌」; docs/rules.md "failed throw"."""

from __future__ import annotations

from chaodipi.engine.playing import CardPlay
from chaodipi.engine.throws import check_throw

from .support import cards, hand, lead, trick_winner, trump

T = trump("6", "♠")


def failure(thrown: str, *others: str) -> str | None:
    result = check_throw(T, lead(T, thrown), [hand(h) for h in others])
    return None if result is None else str(result.forced)


def test_a_throw_of_top_cards_stands() -> None:
    """001 §3: ♣10 ♣J ♣Q when every higher club is gone; ♣K with ♣JJ when the A pair and the Q
    pair are gone (the other ♣K only ties, and nobody can hold ♣KK)."""
    assert failure("♣10 ♣J ♣Q", "♣9 ♣3", "♦A", "♥A") is None
    assert failure("♣K ♣JJ", "♣K ♣10", "♣9 ♣9", "♣3") is None


def test_a_throw_fails_when_any_other_seat_holds_a_stronger_unit() -> None:
    """000 「若并非都是大牌时，称"甩错牌"」; 001 §4.2 「若其余三人有一人手中该花色的牌有大于所甩的牌」 —
    the partner's hand counts too."""
    assert failure("♣A ♣Q", "♦3", "♣K", "♥3") == "♣Q"  # the partner (second seat after) holds ♣K
    assert failure("♣A ♣QQ", "♣K ♣3", "♦3", "♥3") is None  # a single K does not beat the QQ pair
    assert failure("♣A ♣QQ", "♣KK", "♦3", "♥3") == "♣QQ"


def test_a_tractor_in_a_throw_is_beaten_by_a_higher_tractor_only() -> None:
    assert failure("♣8899 ♣A", "♣1010 ♣QQ", "♦3", "♥3") is None
    assert failure("♣8899 ♣A", "♣1010JJ", "♦3", "♥3") == "♣9988"


def test_failed_throw_plays_the_beaten_unit_with_the_smallest_card() -> None:
    """000 「则其必须出欲联出的牌中的最小牌」, read as the beaten unit holding the smallest card
    (docs/rules.md "failed throw"): ♣K ♣QQ against a ♣A plays the ♣K, not the unbeaten ♣QQ;
    ♣A ♣Q ♣J against a ♣K plays the ♣J."""
    assert failure("♣K ♣QQ", "♣A", "♦3", "♥3") == "♣K"
    assert failure("♣A ♣Q ♣J", "♦3", "♣K", "♥3") == "♣J"


def test_failed_throw_keeps_the_rest_and_costs_ten_a_card() -> None:
    """000 「庄家方甩错1张牌，抓分方加10分;抓分方甩错1张牌，扣10分」."""
    hands = [cards("♣A ♣Q ♣J ♦2"), cards("♣K ♦3 ♦4 ♦5"), cards("♥2 ♥3 ♥4 ♥6"), cards("♥7 ♥8 ♥9 ♥Q")]
    dealer_side = CardPlay(T, hands, dealer=0)
    result = dealer_side.play(0, cards("♣A ♣Q ♣J"))
    assert result.played == tuple(cards("♣J")) and result.penalty == 30
    assert dealer_side.penalty_points == 30
    assert sorted(dealer_side.hand(0)) == sorted(cards("♣A ♣Q ♦2"))
    defenders = CardPlay(T, hands, dealer=1, leader=0)
    assert defenders.play(0, cards("♣A ♣Q ♣J")).penalty == -30


def test_a_throw_cannot_be_beaten_by_following_suit_but_can_be_ruffed() -> None:
    """000 「若其它各家无人"毙"，则比出牌大小时为最大」; 003 「其他各家若無此花色，可以用主"斃"，但主牌張數要和"甩牌"相等」."""
    assert trick_winner(T, "♣A ♣K", "♣A ♣Q", "♣3 ♣4", "♦3 ♦4") == 0
    assert trick_winner(T, "♣A ♣K", "♠3 ♠4", "♣3 ♣4", "♦3 ♦4") == 1
    assert trick_winner(T, "♣A ♣K", "♠3 ♠4", "♠5 ♠6", "♦3 ♦4") == 2
