"""The score of a hand: 抠底, 上天入地, 逼红5/保红5, failed throws and fries (003 摳底/上天入地/得分規則;
000 暗炒; 001 §4)."""

from __future__ import annotations

from chaodipi.engine.actions import Play
from chaodipi.engine.cards import Card
from chaodipi.engine.hand import HandState, Phase
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.rules import HeavenEarth, Side
from chaodipi.engine.scoring import heaven_earth_side, kitty_multiplier

from .support import cards, trump

T = trump("7", "♠")


def winning(text: str) -> tuple[Card, ...]:
    return tuple(sorted(cards(text)))


def test_kitty_times_two_with_singles_four_with_a_pair() -> None:
    """003 「若摳底牌都是單張，則抓分方獲得底中所有分牌分數和的2倍；若摳底牌中有對，則…4倍」."""
    assert kitty_multiplier(T, winning("♠A"), by_unit=False) == 2
    assert kitty_multiplier(T, winning("♠A ♠K"), by_unit=False) == 2
    assert kitty_multiplier(T, winning("♠AA"), by_unit=False) == 4
    assert kitty_multiplier(T, winning("♠AAKK"), by_unit=False) == 4


def test_hefei_kitty_multiplier_by_the_largest_unit() -> None:
    """001 §4.7 「台下以单张牌挖底牌可得底牌分数的2倍，用对子挖可得4倍。用连对挖可得8倍，用三连对挖可得16倍」."""
    h = trump("7", "♠", PRESETS["hefei"].card)
    assert kitty_multiplier(h, winning("♠A"), by_unit=True) == 2
    assert kitty_multiplier(h, winning("♠AA ♠3"), by_unit=True) == 4
    assert kitty_multiplier(h, winning("♠AAKK"), by_unit=True) == 8
    assert kitty_multiplier(h, winning("♠AAKKQQ"), by_unit=True) == 16


def test_heaven_earth_exact_or_contained() -> None:
    """暗炒 「但是仅同花色的5、10、K这3张牌保(抠)底可以享受奖励…带其他牌…不享受奖励」; 扛旗/明炒
    「抓分方用含有同花色的5、10、K的牌型抠底可以享受奖励」."""
    five_ten_king, bigger = winning("♣5 ♣10 ♣K"), winning("♣5 ♣10 ♣K ♣A")
    assert heaven_earth_side(T, HeavenEarth.EXACT, five_ten_king, True, False) == Side.DEFENDERS
    assert heaven_earth_side(T, HeavenEarth.EXACT, five_ten_king, False, False) == Side.DEALERS  # 保底
    assert heaven_earth_side(T, HeavenEarth.EXACT, bigger, True, False) is None
    assert heaven_earth_side(T, HeavenEarth.CONTAINS, bigger, True, True) == Side.DEFENDERS
    assert heaven_earth_side(T, HeavenEarth.CONTAINS, five_ten_king, False, True) is None  # defenders only
    assert heaven_earth_side(T, "none", five_ten_king, True, False) is None


def play_out(state: HandState, *plays: tuple[int, str]) -> None:
    for seat, text in plays:
        state.apply(seat, Play(tuple(cards(text))))


def test_red_five_saved_as_the_last_play_after_winning_the_one_before() -> None:
    """暗炒 「保红5:若最后一张牌(或者一对)为红5，并且此人倒数第二手牌为大，那么保红5成功，每张红5加50分」:
    the dealer saves it, so the defenders lose 50."""
    hands = [cards("♠A ♥5"), cards("♠3 ♣4"), cards("♠4 ♣5"), cards("♠6 ♣6")]
    state = HandState.from_position(PRESETS["anchao"], T, hands, dealer=0)
    play_out(
        state,
        (0, "♠A"),
        (1, "♠3"),
        (2, "♠4"),
        (3, "♠6"),
        (0, "♥5"),
        (1, "♣4"),
        (2, "♣5"),
        (3, "♣6"),
    )
    assert state.phase is Phase.OVER and state.result is not None
    assert state.result.red_five == -50


def test_red_five_forced_out_to_the_other_side() -> None:
    """暗炒 「逼红5:若在出牌过程中，有红5被逼出来，则每张红5扣50分」 (docs/rules.md "red fives"): a
    defender's ♥5 that falls to the dealers' trick costs the defenders 50; a dealer's that falls
    to the defenders' gains them 50."""
    hands = [cards("♥5 ♣3"), cards("♥5 ♣4"), cards("♦3 ♣5"), cards("♦4 ♣6")]
    state = HandState.from_position(PRESETS["anchao"], T, hands, dealer=0)
    play_out(
        state,
        (0, "♥5"),
        (1, "♥5"),
        (2, "♦3"),
        (3, "♦4"),
        (0, "♣3"),
        (1, "♣4"),
        (2, "♣5"),
        (3, "♣6"),
    )
    assert state.result is not None and state.result.red_five == -50
    state = HandState.from_position(PRESETS["anchao"], T, hands, dealer=1)
    play_out(
        state,
        (1, "♥5"),
        (2, "♦3"),
        (3, "♦4"),
        (0, "♥5"),
        (1, "♣4"),
        (2, "♣5"),
        (3, "♣6"),
        (0, "♣3"),
    )
    # seat 0 defends; its ♥5 fell to seat 1's trick
    assert state.result is not None and state.result.red_five == -50


def test_no_red_five_scoring_outside_anchao() -> None:
    hands = [cards("♥5 ♣3"), cards("♥5 ♣4"), cards("♦3 ♣5"), cards("♦4 ♣6")]
    state = HandState.from_position(PRESETS["classic"], T, hands, dealer=0)
    play_out(
        state,
        (0, "♥5"),
        (1, "♥5"),
        (2, "♦3"),
        (3, "♦4"),
        (0, "♣3"),
        (1, "♣4"),
        (2, "♣5"),
        (3, "♣6"),
    )
    assert state.result is not None and state.result.red_five == 0


def test_total_adds_tricks_kitty_and_penalties() -> None:
    """003 得分規則 and 摳底; 000 甩牌: the dealer's failed throw of two cards gives the defenders
    20, they take ♣K ♦5 (15) and the last trick with a single: the kitty's 15 points ×2."""
    hands = [cards("♣3 ♣4"), cards("♣A ♣K"), cards("♦5 ♦6"), cards("♦3 ♦4")]
    kitty = cards("♠5 ♠10 ♦2 ♦7 ♦8 ♦9 ♦J ♦Q")
    state = HandState.from_position(PRESETS["classic"], T, hands, dealer=0, kitty=kitty)
    play_out(state, (0, "♣3 ♣4"))
    assert state.play is not None and state.play.penalty_points == 20
    play_out(state, (1, "♣K"), (2, "♦5"), (3, "♦3"), (1, "♣A"), (2, "♦6"), (3, "♦4"), (0, "♣4"))
    result = state.result
    assert result is not None
    assert (result.trick_points, result.kitty_points, result.kitty_multiplier) == (15, 15, 2)
    assert result.throw_penalty == 20 and result.raw_total == 15 + 30 + 20


def test_hefei_penalties_stop_at_zero() -> None:
    """001 §4.1 「台下罚分罚至0分为止」: a defenders' failed throw cannot take them below 0; the
    same hand under 003 leaves them at −20."""
    hands = [cards("♣2 ♣Q ♣J"), cards("♦3 ♦4 ♦7"), cards("♦A ♣3 ♣4"), cards("♦6 ♦8 ♦9")]
    totals = {}
    for name in ("hefei", "classic"):
        t = trump("7", "♠", PRESETS[name].card)
        state = HandState.from_position(PRESETS[name], t, hands, dealer=1)
        play_out(state, (1, "♦3"), (2, "♦A"), (3, "♦6"), (0, "♣2"))
        play_out(state, (2, "♣3 ♣4"))  # the partner's ♣Q beats ♣3: plays ♣3, −20
        play_out(state, (3, "♦8"), (0, "♣Q"), (1, "♦4"))
        play_out(state, (0, "♣J"), (1, "♦7"), (2, "♣4"), (3, "♦9"))
        assert state.result is not None
        totals[name] = (state.result.raw_total, state.result.total)
    assert totals == {"hefei": (-20, 0), "classic": (-20, -20)}
