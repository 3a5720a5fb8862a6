"""A hand from the deal to the play: declaring, the kitty, 炒底, 暗炒 (000, 001 §1, 003 基本規則)."""

from __future__ import annotations

import pytest

from chaodipi.engine import IllegalPlay
from chaodipi.engine.actions import Bury, Declare, Fry, Pass
from chaodipi.engine.bidding import Bid, BidRecord
from chaodipi.engine.cards import Card, Rank, Suit
from chaodipi.engine.errors import IllegalAction
from chaodipi.engine.events import BidsRevealed, Declared, EventKind, KittyTurned
from chaodipi.engine.hand import MAX_REDEALS, HandState, Phase
from chaodipi.engine.presets import PRESETS

from .support import cards, stacked_deck


def new_hand(
    preset: str,
    seats: dict[int, str],
    kitty: str = "",
    *,
    dealer: int | None = None,
    level: str = "2",
) -> HandState:
    deck = stacked_deck(seats, kitty, first=0 if dealer is None else dealer, level=level)
    return HandState.deal(
        PRESETS[preset], "test", Rank.parse(level), dealer, first_hand=dealer is None, deck=deck
    )


def bid(text: str, level: str = "2") -> Bid:
    return Bid.parse(text, Rank.parse(level))


def offered(state: HandState) -> list[str]:
    return [str(b) for b in state.legal_actions().bids]


def pass_until(state: HandState, phase: Phase) -> None:
    while state.phase is not phase:
        state.apply(state.to_play, Pass())


def bury_any(state: HandState) -> None:
    seat = state.to_play
    state.apply(seat, Bury(tuple(state.hand(seat)[:8])))


def test_deal_25_each_and_8_in_the_kitty_in_packets() -> None:
    """003 「2副牌，共108張，每人25張，底牌8張」; the deal comes in five packets with a declaring
    round after each (docs/rules.md "bidding during the deal")."""
    state = HandState.deal(PRESETS["classic"], "s", Rank.TWO, None, first_hand=True)
    assert [len(state.hand(s)) for s in range(4)] == [5, 5, 5, 5] and len(state.kitty) == 8
    for _ in range(4):
        state.apply(state.to_play, Pass())
    assert [len(state.hand(s)) for s in range(4)] == [10, 10, 10, 10]


def test_kangqi_hand_deals_all_108_and_has_no_kitty() -> None:
    """000 扛旗 「而且不留底牌，全部抓光」: 27 cards each, straight to the play, no-trump."""
    state = HandState.deal(PRESETS["kangqi"], "s", None, 1, kangqi_hand=True)
    assert [len(state.hand(s)) for s in range(4)] == [27] * 4 and state.kitty == []
    assert state.phase is Phase.PLAY and state.to_play == 1
    assert state.trump is not None and state.trump.level is None and state.trump.suit is None


def test_open_override_takes_the_kitty_and_a_fry_takes_it_again() -> None:
    """003 亮主/反主/抄底: 「其他玩家可以根據亮主級別進行"反主"」; 「待莊家扣底牌之後，要按出牌順序依次詢問其他玩家是否抄底牌。
    抄底牌的玩家需按照"反主級別"的大小順序亮出比當前級別高的牌，可以拿起底牌進行重新扣底」; 「第一局的莊家由翻主方擔任」."""
    state = new_hand("classic", {1: "♣2", 2: "♥22", 3: "♠22"})
    state.apply(0, Pass())
    assert offered(state) == ["♣2"]
    state.apply(1, Declare(bid("♣2")))
    assert "♥22" in offered(state)
    state.apply(2, Declare(bid("♥22")))
    assert offered(state) == ["♠22"]  # ♠ outranks ♥ in 003's order; no more singles
    state.apply(3, Pass())
    pass_until(state, Phase.BURY)
    assert state.dealer == 2 and state.to_play == 2 and len(state.hand(2)) == 33
    bury_any(state)
    assert state.phase is Phase.FRY and state.to_play == 3
    assert offered(state) == ["♠22"]
    state.apply(3, Fry(bid("♠22")))
    assert state.phase is Phase.BURY and state.to_play == 3 and len(state.hand(3)) == 33
    bury_any(state)
    assert state.to_play == 0
    for seat in (0, 1, 2):
        state.apply(seat, Pass())
    assert state.phase is Phase.PLAY and state.dealer == 2 and state.to_play == 2
    assert state.trump is not None and state.trump.suit is Suit.SPADES


def test_a_lower_or_equal_bid_is_refused_with_the_bids_you_have() -> None:
    state = new_hand("classic", {0: "♠22", 1: "♥22"})
    state.apply(0, Declare(bid("♠22")))
    with pytest.raises(IllegalAction, match="cannot declare ♥22 now; your bids: none"):
        state.apply(1, Declare(bid("♥22")))


def test_nobody_declares_in_the_first_hand_redeal() -> None:
    """003 「若第一把無人叫主，重新發牌」; after three redeals seat 0 deals with the kitty turned
    (docs/rules.md "a first hand nobody declares")."""
    state = HandState.deal(PRESETS["classic"], "s", Rank.TWO, None, first_hand=True)
    first = state.hand(0)
    pass_until_redeal = 20
    for _ in range(pass_until_redeal):
        state.apply(state.to_play, Pass())
    assert state.redeals == 1 and len(state.hand(0)) == 5 and state.hand(0) != first
    assert any(e.kind is EventKind.REDEAL for e in state.events)
    for _ in range(MAX_REDEALS - 1):
        for _ in range(20):
            state.apply(state.to_play, Pass())
    assert state.redeals == MAX_REDEALS
    for _ in range(20):
        state.apply(state.to_play, Pass())
    assert state.phase is Phase.BURY and state.dealer == 0 and state.kitty_turned


def test_nobody_declares_later_the_kitty_is_turned() -> None:
    """003 「若打牌過程中無人叫主，則翻底，底牌中第三張牌的花色即為本副牌的主牌，如為王，則為無主，但是本副牌無法炒底」."""
    state = new_hand("classic", {}, kitty="♦3 ♦4 ♣9 ♦6 ♦7 ♦8 ♦9 ♦10", dealer=1)
    pass_until(state, Phase.BURY)
    assert state.kitty_turned and state.to_play == 1
    assert state.trump is not None and state.trump.suit is Suit.CLUBS
    turned = next(e.payload for e in state.events if isinstance(e.payload, KittyTurned))
    assert turned.suit is Suit.CLUBS and next(e for e in state.events if e.payload == turned).public
    bury_any(state)
    assert state.phase is Phase.PLAY  # no frying


def test_turned_joker_means_no_trump() -> None:
    state = new_hand("classic", {}, kitty="♦3 ♦4 BJ ♦6 ♦7 ♦8 ♦9 ♦10", dealer=1)
    pass_until(state, Phase.BURY)
    assert state.trump is not None and state.trump.suit is None


def test_joker_pairs_make_no_trump_and_red_fives_name_any_trump() -> None:
    """003 「若大小王對反主，則亮主後打無主…若紅5對反主，亮主後可以在無主或4種花色中選一種」."""
    state = new_hand("classic", {0: "LJ LJ ♥5 ♥5"})
    assert offered(state) == ["LJ LJ", "♥55=♠", "♥55=♥", "♥55=♣", "♥55=♦", "♥55=NT"]
    state.apply(0, Declare(bid("♥55=♦")))
    pass_until(state, Phase.BURY)
    bury_any(state)
    pass_until(state, Phase.PLAY)
    assert state.trump is not None and state.trump.suit is Suit.DIAMONDS


def test_huitouwang_after_someone_else_overrides() -> None:
    """明炒 「回头望:如果亮主的人开始只亮1张主，而手中实际有2张所亮的主。在别人反主之后，可以用手中2张所亮的主牌反主」 — above everything."""
    state = new_hand("mingchao", {0: "♦22", 1: "BJ BJ"})
    state.apply(0, Declare(bid("♦2")))
    state.apply(1, Declare(bid("BJ BJ")))
    state.apply(2, Pass())
    state.apply(3, Pass())
    assert offered(state) == ["回头望 ♦22"]
    state.apply(0, Declare(bid("回头望 ♦22")))
    pass_until(state, Phase.BURY)
    assert state.dealer == 0


@pytest.mark.parametrize("preset", ["mingchao", "anchao"])
def test_no_huitouwang_after_declaring_a_pair(preset: str) -> None:
    """000 明炒/暗炒 「如果亮主的人开始只亮1张主，而手中实际有2张所亮的主。在别人反主之后，可以用手中2张
    所亮的主牌反主，称为"回头望"」: only a first declarer who showed ONE card may look back.

    Position: first hand, level 2; seat 0 declares ♦22 (two cards shown), seat 1 declares BJ BJ,
    seats 2 and 3 pass. Verdict: seat 0 is offered no 回头望 (and no other bid: nothing it holds
    beats BJ BJ); the BJ BJ stands and seat 1 deals in no-trump."""
    state = new_hand(preset, {0: "♦22", 1: "BJ BJ"})
    state.apply(0, Declare(bid("♦22")))
    state.apply(1, Declare(bid("BJ BJ")))
    state.apply(2, Pass())
    state.apply(3, Pass())
    assert state.to_play == 0
    assert not [b for b in offered(state) if b.startswith("回头望")]
    with pytest.raises(IllegalAction, match="cannot declare 回头望"):
        state.apply(0, Declare(bid("回头望 ♦22")))
    pass_until(state, Phase.BURY)
    assert state.dealer == 1


@pytest.mark.parametrize("preset", ["mingchao", "anchao"])
def test_huitouwang_needs_the_pair_held_when_the_single_was_shown(preset: str) -> None:
    """000 明炒/暗炒 「如果亮主的人开始只亮1张主，而手中实际有2张所亮的主。在别人反主之后，可以用手中2张所亮的
    主牌反主，称为"回头望"」: 回头望 is for a declarer that held both cards when it showed one
    (docs/rules.md "回头望 needs the pair in hand when the single was shown").

    Position: first hand, level 2. Seat 0's first packet holds one ♠2, its second packet the
    other. Seat 0 declares ♠2, seat 1 overrides with ♦22; the second packet comes. Verdict: seat
    0 holds ♠2♠2 but is offered no 回头望: its pair is an ordinary ♠ pair bid, which beats ♦22
    (♦ is the lowest pair in both rooms), and 回头望 ♠22 is refused."""
    state = new_hand(preset, {0: "♠2 ♣3 ♣4 ♣6 ♣7 ♠2", 1: "♦22"})
    state.apply(0, Declare(bid("♠2")))
    state.apply(1, Declare(bid("♦22")))
    state.apply(2, Pass())
    state.apply(3, Pass())
    assert state.to_play == 0 and state.hand(0).count(Card.parse("♠2")) == 2
    assert offered(state) == ["♠22"]
    with pytest.raises(IllegalAction, match="cannot declare 回头望"):
        state.apply(0, Declare(bid("回头望 ♠22")))


def test_hefei_a_dealer_not_the_caller_may_override_before_taking_the_kitty() -> None:
    """001 §1.1 「如果庄家不是叫牌者，则庄家在拿底牌之前可先反主」: the dealer bids during the deal like
    every seat, and takes the kitty only when declaring ends.

    Position: a later Hefei hand at level 2, seat 2 deals. Seat 3 calls ♦2; when the next packet
    comes, the dealer (seat 2) overrides with ♣22; everyone passes. Verdict: seat 2 takes the
    kitty, nobody fries, and clubs are trump (the last bid, 「以最后所炒的花色为主牌」)."""
    state = new_hand("hefei", {2: "♣22", 3: "♦2"}, dealer=2)
    state.apply(2, Pass())
    state.apply(3, Declare(bid("♦2")))
    state.apply(0, Pass())
    state.apply(1, Pass())
    assert state.to_play == 2 and "♣22" in offered(state)
    state.apply(2, Declare(bid("♣22")))
    pass_until(state, Phase.BURY)
    assert state.to_play == 2
    bury_any(state)
    pass_until(state, Phase.PLAY)
    assert state.trump is not None and state.trump.suit is Suit.CLUBS and state.dealer == 2


def test_no_huitouwang_in_the_classic_preset() -> None:
    state = new_hand("classic", {0: "♦22", 1: "BJ BJ"})
    state.apply(0, Declare(bid("♦2")))
    state.apply(1, Declare(bid("BJ BJ")))
    state.apply(2, Pass())
    state.apply(3, Pass())
    assert offered(state) == []


def test_anchao_bid_order() -> None:
    """暗炒 「反主级别由低到高为:梅花对、方块对、黑桃对、红桃对、小王对、大王对、红5对、回头望」."""
    from chaodipi.engine.bidding import bid_rank

    rules = PRESETS["anchao"].bid
    order = ["♣22", "♦22", "♠22", "♥22", "LJ LJ", "BJ BJ", "♥55=♠", "回头望 ♣22"]
    ranks = [bid_rank(bid(text), rules) for text in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_kangqi_and_classic_bid_order() -> None:
    """扛旗 and 003 「方塊對、梅花對、紅桃對、黑桃對、小王對、大王對、紅5對」."""
    from chaodipi.engine.bidding import bid_rank

    for preset in ("kangqi", "classic", "mingchao"):
        rules = PRESETS[preset].bid
        order = ["♦22", "♣22", "♥22", "♠22", "LJ LJ", "BJ BJ", "♥55=NT"]
        ranks = [bid_rank(bid(text), rules) for text in order]
        assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks), preset


def _anchao_to_frying() -> HandState:
    state = new_hand("anchao", {1: "♠2", 2: "♥22", 3: "♦22"})
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♠2")))
    state.apply(2, Declare(bid("♥22")))
    state.apply(3, Pass())
    pass_until(state, Phase.BURY)
    bury_any(state)
    return state


def test_anchao_bids_are_hidden_until_frying_ends() -> None:
    """暗炒 「即亮主、反主等过程出现的主牌不公开显示，只有亮牌者自己知道。直到炒底结束后，公布所有玩家的炒底经过」."""
    state = _anchao_to_frying()
    seen_by_0 = [e.payload for e in state.events if e.kind is EventKind.DECLARE and 0 in e.audience]
    assert seen_by_0 == [Declared(1, None), Declared(2, None)]
    seen_by_2 = [e.payload for e in state.events if e.kind is EventKind.DECLARE and 2 in e.audience]
    assert Declared(2, bid("♥22")) in seen_by_2 and Declared(1, bid("♠2")) not in seen_by_2


def test_anchao_failed_fry_costs_80_by_side() -> None:
    """暗炒 「有炒底的牌级别比当前主牌小的可能…即为抄底失败。如果是庄家方炒底失败1次，则抓分方加80分;如果是抓分方炒底失败一次，扣80分」."""
    state = _anchao_to_frying()
    assert state.dealer == 2 and state.to_play == 3
    assert offered(state) == ["♦22"]  # hidden: a seat cannot see that ♦22 is below ♥22
    state.apply(3, Fry(bid("♦22")))
    bury_any(state)
    for seat in (0, 1, 2):
        state.apply(seat, Pass())
    assert state.phase is Phase.PLAY
    assert state.fry_penalty == -80  # seat 3 defends
    assert state.trump is not None and state.trump.suit is Suit.HEARTS
    reveal = next(e for e in state.events if e.kind is EventKind.REVEAL)
    assert reveal.public and isinstance(reveal.payload, BidsRevealed)
    assert reveal.payload.bids == (
        BidRecord(1, bid("♠2"), Phase.DECLARE, True),
        BidRecord(2, bid("♥22"), Phase.DECLARE, True),
        BidRecord(3, bid("♦22"), Phase.FRY, False),
    )


def test_hefei_order_not_rank_decides_and_the_last_fryer_deals_the_first_hand() -> None:
    """001 §1.1 「炒底时只按顺序，不分花色大小，以最后所炒的花色为主牌」; §1.2 「以最后反主拿底者为庄家」."""
    state = new_hand("hefei", {1: "♠2", 2: "♥22", 3: "♦22"})
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♠2")))
    state.apply(2, Declare(bid("♥22")))
    state.apply(3, Pass())
    pass_until(state, Phase.BURY)
    assert state.dealer == 2
    bury_any(state)
    assert state.to_play == 3
    state.apply(3, Fry(bid("♦22")))
    bury_any(state)
    pass_until(state, Phase.PLAY)
    assert state.trump is not None and state.trump.suit is Suit.DIAMONDS
    assert state.dealer == 3 and state.fry_penalty == 0


def test_hefei_each_pair_fries_once_and_jokers_fry_no_trump() -> None:
    """001 §1.1 「一对牌只能炒一次」「炒底时，大、小王只能炒无主」."""
    state = new_hand("hefei", {1: "♠22", 3: "LJ LJ"})
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♠22")))
    pass_until(state, Phase.BURY)
    bury_any(state)
    # seat 2 is next after the dealer (seat 1, also the caller)
    assert state.to_play == 2
    state.apply(2, Pass())
    assert offered(state) == ["LJ LJ"]
    state.apply(3, Fry(bid("LJ LJ")))
    bury_any(state)
    pass_until(state, Phase.PLAY)
    assert state.trump is not None and state.trump.suit is None
    assert "♠22" not in [str(b.bid) for b in state.bids[1:]]


def test_hefei_caller_and_dealer_fry_only_after_someone_else() -> None:
    """001 §1.1 「如果第一轮除叫牌者和庄家外无人炒底，则叫牌者和庄家均不能炒底」."""
    state = new_hand("hefei", {1: "♠22 ♥22"}, dealer=1)
    state.apply(1, Declare(bid("♠22")))
    pass_until(state, Phase.BURY)
    bury_any(state)
    seats = []
    while state.phase is Phase.FRY:
        seats.append(state.to_play)
        assert state.to_play != 1 or offered(state) == []
        state.apply(state.to_play, Pass())
    assert state.phase is Phase.PLAY


def test_hefei_the_caller_is_the_seat_whose_call_stands() -> None:
    """001 §1.1 「炒底按逆时针方向从庄家的下一家开始，如果庄家的下一家为叫牌者，则从叫牌者的下一家开始炒底。如果第一
    轮除叫牌者和庄家外无人炒底，则叫牌者和庄家均不能炒底」: the 叫牌者 is the seat whose call stands
    when the deal ends, an override included (docs/rules.md "who the 叫牌者 is").

    Position: a later Hefei hand at level 2, seat 0 deals. Seat 1 calls ♠2 and seat 3 overrides
    with ♥22 during the deal; everyone passes and seat 0 takes the kitty and buries. Verdicts:
    frying starts at seat 1 (the seat after the dealer, not the caller), which may fry with its
    ♣22; after seats 1 and 2 pass, seat 3 (the caller) may not fry, and frying ends with hearts
    trump."""
    state = new_hand("hefei", {1: "♠2 ♣22", 3: "♥22 ♦22"}, dealer=0)
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♠2")))
    state.apply(2, Pass())
    state.apply(3, Declare(bid("♥22")))
    pass_until(state, Phase.BURY)
    assert state.to_play == 0
    bury_any(state)
    assert state.to_play == 1 and offered(state) == ["♣22"]
    state.apply(1, Pass())
    state.apply(2, Pass())
    assert state.to_play == 3 and offered(state) == []
    state.apply(3, Pass())
    assert state.phase is Phase.PLAY  # three passes in a row
    assert state.trump is not None and state.trump.suit is Suit.HEARTS and state.dealer == 0


def test_hefei_a_single_call_does_not_use_up_the_pair_for_frying() -> None:
    """001 §1.1 「一对牌只能炒一次」 with 「如果第一轮除叫牌者和庄家外无人炒底，则叫牌者和庄家均不能炒底」:
    only a pair bid with is used up; a single call shows one card, not a pair.

    Position: the first Hefei hand at level 2. Seat 1 holds ♠2♠2 and calls with a single ♠2;
    everyone passes, so seat 1 deals and buries. Seat 2 passes, seat 3 fries with ♥22, seat 0
    passes. Verdict: seat 1 (caller and dealer) may now fry, and is offered ♠22; frying with it
    makes spades trump."""
    state = new_hand("hefei", {1: "♠22", 3: "♥22"})
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♠2")))
    pass_until(state, Phase.BURY)
    assert state.to_play == 1
    state.apply(1, Bury(tuple(state.hand(1)[-8:])))  # keeps ♠2♠2, the lowest cards
    state.apply(2, Pass())
    state.apply(3, Fry(bid("♥22")))
    bury_any(state)
    state.apply(0, Pass())
    assert state.to_play == 1 and offered(state) == ["♠22"]
    state.apply(1, Fry(bid("♠22")))
    bury_any(state)
    pass_until(state, Phase.PLAY)
    assert state.trump is not None and state.trump.suit is Suit.SPADES


def test_hefei_a_caller_of_a_single_may_show_its_pair_later_in_the_deal() -> None:
    """001 §1.1 「一对牌只能炒一次」: a single call uses no pair up.

    Position: the first Hefei hand at level 2; seat 1's first packet holds ♦2♦2. It calls ♦2;
    the others pass; the next packet comes. Verdict: at its next turn seat 1 is offered ♦22;
    once it has shown ♦22 it is offered it no more."""
    state = new_hand("hefei", {1: "♦22"})
    state.apply(0, Pass())
    state.apply(1, Declare(bid("♦2")))
    state.apply(2, Pass())
    state.apply(3, Pass())
    state.apply(0, Pass())
    assert state.to_play == 1 and offered(state) == ["♦22"]
    state.apply(1, Declare(bid("♦22")))
    for seat in (2, 3, 0):
        state.apply(seat, Pass())
    assert state.to_play == 1 and offered(state) == []


def test_bury_exactly_eight_cards_you_hold() -> None:
    state = new_hand("classic", {0: "♠22"})
    state.apply(0, Declare(bid("♠22")))
    pass_until(state, Phase.BURY)
    with pytest.raises(IllegalAction, match="exactly 8 cards, not 7"):
        state.apply(0, Bury(tuple(state.hand(0)[:7])))
    with pytest.raises(IllegalAction, match="you bury ♥5 ×8 but hold"):
        state.apply(0, Bury(tuple(cards("♥5 ♥5 ♥5 ♥5 ♥5 ♥5 ♥5 ♥5"))))


def test_actions_out_of_phase_or_turn_are_refused() -> None:
    state = new_hand("classic", {})
    with pytest.raises(IllegalAction, match="seat 0's turn, not seat 2's"):
        state.apply(2, Pass())
    with pytest.raises(IllegalAction, match="cannot bury in the declare phase"):
        state.apply(0, Bury(tuple(state.hand(0)[:8])))
    with pytest.raises(IllegalAction, match="cannot play cards in the declare phase"):
        from chaodipi.engine.actions import Play

        state.apply(0, Play((Card.parse("♠3"),)))
    assert issubclass(IllegalPlay, IllegalAction)
