"""The order of cards under a trump context (000 牌大小; 001 §3 「各牌型之间大小顺序」; 003 亮主/反主)."""

from __future__ import annotations

from chaodipi.engine import Card
from chaodipi.engine.rules import CardRules
from chaodipi.engine.trump import TRUMP

from .support import CLASSIC, HEFEI, KANGQI, cards, trump


def ranked(t_cards: str, level: str | None, suit: str | None, rules: CardRules = CLASSIC) -> str:
    """Cards from strongest to weakest (equal cards keep their order)."""
    t = trump(level, suit, rules)
    return " ".join(str(c) for c in sorted(cards(t_cards), key=t.strength, reverse=True))


def test_red_five_above_big_joker_then_jokers_levels_and_the_trump_suit() -> None:
    """000/003: ♥5 is the highest trump; then BJ, LJ, the trump suit's level card, the other
    level cards (equal), the trump suit from A down (001 §3: 常主>主级牌>其他级牌>主花色牌>副牌)."""
    assert ranked("♠A ♥5 BJ LJ ♠7 ♦7 ♠K ♠2 ♥A", "7", "♠") == "♥5 BJ LJ ♠7 ♦7 ♠A ♠K ♠2 ♥A"
    t = trump("7", "♠")
    assert t.order[Card.parse("♦7")] == t.order[Card.parse("♣7")] == t.order[Card.parse("♥7")]


def test_red_five_is_trump_in_no_trump() -> None:
    """003 「無主就是無主花色，僅紅5、大小王、級牌為主牌」."""
    t = trump("7", None)
    assert [t.is_trump(c) for c in cards("♥5 BJ LJ ♠7 ♥7 ♠A ♥6")] == [True] * 5 + [False] * 2


def test_kangqi_hand_only_red_five_and_jokers_are_trump() -> None:
    """000 扛旗: 「这时只有红五、大王、小王是主」 — no level cards, no trump suit."""
    t = trump(None, None, KANGQI)
    assert [str(c) for c in t.suit_cards[TRUMP]] == ["LJ", "BJ", "♥5"]
    assert not t.is_trump(Card.parse("♠2")) and not t.is_trump(Card.parse("♠A"))


def test_hefei_knows_no_red_five() -> None:
    """001 §3 「常主：大王、小王」: the ♥5 is an ordinary heart; BJ is the highest card."""
    assert ranked("♥5 BJ LJ ♠7 ♦7 ♥6", "7", "♠", HEFEI) == "BJ LJ ♠7 ♦7 ♥6 ♥5"
    assert not trump("7", "♠", HEFEI).is_trump(Card.parse("♥5"))


def test_level_five_keeps_the_red_five_on_top() -> None:
    """Seeds silent (docs/rules.md, "level 5"): at level 5 the ♥5 stays the highest trump; the
    other fives are level cards; with hearts trump there is no separate trump-suit level card."""
    assert ranked("♥5 BJ ♠5 ♦5 ♠A", "5", "♠") == "♥5 BJ ♠5 ♦5 ♠A"
    assert ranked("♥5 BJ ♠5 ♦5 ♥A", "5", "♥") == "♥5 BJ ♠5 ♦5 ♥A"
    t = trump("5", "♥")
    assert t.order[Card.parse("♠5")] == t.order[Card.parse("♦5")]


def test_side_suit_order_and_other_suits_level_cards_leave_their_suit() -> None:
    t = trump("7", "♠")
    assert [str(c) for c in t.suit_cards[1]] == [
        "♥2",
        "♥3",
        "♥4",
        "♥6",
        "♥8",
        "♥9",
        "♥10",
        "♥J",
        "♥Q",
        "♥K",
        "♥A",
    ]  # ♥5 and ♥7 are trumps


def test_describe() -> None:
    assert trump("7", "♠").describe() == "level 7, ♠ trump"
    assert trump("7", None).describe() == "level 7, no-trump"
