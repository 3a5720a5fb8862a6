"""Following and winning a trick: 000 「出牌及牌大小原则」, 001 §3, 003 「基本玩法」."""

from __future__ import annotations

import pytest

from chaodipi.engine import IllegalPlay
from chaodipi.engine.trick import check_follow

from .support import ANCHAO, CLASSIC, cards, hand, lead, trick_winner, trump

T = trump("J", "♠")  # level J, spades trump: no level card in the examples below


def follow(t: object, led: str, held: str, played: str) -> None:
    assert hasattr(t, "order")
    check_follow(T if t is None else t, lead(t, led), hand(held), cards(played))  # type: ignore[arg-type]


def refused(led: str, held: str, played: str, t: object = T) -> str:
    with pytest.raises(IllegalPlay) as err:
        follow(t, led, held, played)
    return str(err.value)


# -- following ----------------------------------------------------------------------------------


def test_follow_with_as_many_cards_as_the_lead() -> None:
    """000 「跟出牌数必须与首家出牌数相同」."""
    assert "as many as the lead" in refused("♣99", "♣3 ♣4 ♦5", "♣3")


def test_follow_suit_when_you_can() -> None:
    """003 「首家出某花色牌時，其餘家無此門花色時，可出副牌」: only when void may you play another suit."""
    assert "must follow ♣" in refused("♣9", "♣3 ♦A", "♦A")
    follow(T, "♣9", "♣3 ♦A", "♣3")


def test_short_in_the_suit_plays_all_of_it() -> None:
    assert "all your ♣" in refused("♣9988", "♣3 ♣4 ♦5 ♦6 ♦7", "♣3 ♦5 ♦6 ♦7")
    follow(T, "♣9988", "♣3 ♣4 ♦5 ♦6 ♦7", "♣3 ♣4 ♦5 ♦7")


def test_pairs_must_follow_a_pair() -> None:
    """000 「首家出对牌时，其余家有对牌必须出对牌(包括连对中的对牌)」."""
    message = refused("♣99", "♣77 ♣3 ♣4", "♣7 ♣3")
    assert message == "must follow ♣ with a pair: you hold ♣77"
    follow(T, "♣99", "♣77 ♣3 ♣4", "♣77")
    # a pair inside a tractor counts as a pair
    assert "pair" in refused("♣99", "♣7788 ♣3", "♣8 ♣3")


def test_tractor_with_tractor_else_pairs_else_anything() -> None:
    """000 「首家出连对时，其余家有连对必须出连对，若无连对，则必须出对牌，无对牌时才能出其它牌」."""
    assert "tractor" in refused("♣9988", "♣6677 ♣QQ ♣3", "♣77 ♣QQ")
    follow(T, "♣9988", "♣6677 ♣QQ ♣3", "♣6677")
    # no tractor: both pairs
    assert "2 pairs" in refused("♣9988", "♣66 ♣QQ ♣3 ♣4", "♣66 ♣3 ♣4")
    follow(T, "♣9988", "♣66 ♣QQ ♣3 ♣4", "♣66 ♣QQ")
    # one pair: that pair plus anything of the suit
    follow(T, "♣9988", "♣66 ♣3 ♣4 ♣5", "♣66 ♣3 ♣5")
    # no pair: any four clubs
    follow(T, "♣9988", "♣3 ♣4 ♣5 ♣6 ♣7", "♣3 ♣4 ♣6 ♣7")


def test_a_shorter_tractor_must_be_played_to_a_longer_one() -> None:
    """000 「首家出连对时，其余家有连对必须出连对，若无连对，则必须出对牌」 (docs/rules.md "tractor
    lengths", issue 12): a follower who holds a tractor must play one, even a shorter one.

    Position: ♣334455 led (level J, ♠ trump); the follower holds ♣7788 ♣QQ ♣AA ♣3. Verdict:
    ♣7788 plus ♣QQ or ♣AA; ♣77 ♣QQ ♣AA (three pairs, the tractor broken) is refused.
    Holding a longer tractor, the follower plays as much of it as the lead's length."""
    hand = "♣7788 ♣QQ ♣AA ♣3"
    assert "tractor" in refused("♣334455", hand, "♣77 ♣QQ ♣AA")
    follow(T, "♣334455", hand, "♣7788 ♣QQ")
    follow(T, "♣334455", hand, "♣7788 ♣AA")
    # a four-pair run answers a three-pair tractor with three of its pairs, in a row
    assert "tractor" in refused("♣334455", "♣66778899 ♣3", "♣6677 ♣99")
    follow(T, "♣334455", "♣66778899 ♣3", "♣778899")


def test_trumps_follow_a_trump_lead() -> None:
    """001 §3: all trumps are one suit for following."""
    assert "must follow trump" in refused("♠9", "BJ ♥A", "♥A")
    follow(T, "♠9", "BJ ♥A", "BJ")


# -- winning ------------------------------------------------------------------------------------


def test_equal_plays_the_first_wins() -> None:
    """000 「出牌时同等大小的牌以先出者为大」: two equal ♣A, or two other-suit level cards."""
    assert trick_winner(T, "♣A", "♣A", "♣3", "♣4") == 0
    t7 = trump("7", "♠")
    assert trick_winner(t7, "♥7", "♣7", "♦7", "♠3") == 0


def test_higher_card_of_the_suit_wins() -> None:
    assert trick_winner(T, "♣9", "♣10", "♣A", "♣3") == 2


def test_tractors_of_different_suits_the_trump_one_wins_else_the_first() -> None:
    """000 「不同花色、同长度的连对之间，如果有主花色连对，则为最大:其他情况下，先出的连对最大」.

    Position: ♣3344 led (level J, ♠ trump). Verdicts: a ♦QQKK from a seat void in clubs is a
    discard, so the ♣3344 led first wins; a ♠5566 (trump) from a void seat wins."""
    assert trick_winner(T, "♣3344", "♦QQKK", "♥2 ♥3 ♥4 ♥6", "♦2 ♦3 ♦4 ♦6") == 0
    assert trick_winner(T, "♣3344", "♦QQKK", "♠5566", "♦2 ♦3 ♦4 ♦6") == 2


def test_discard_never_wins() -> None:
    """000 「…可出副牌，称为"垫牌"，比出牌大小时为最小」."""
    assert trick_winner(T, "♣3", "♦A", "♥A", "♣4") == 3


def test_a_pair_lead_is_beaten_only_by_a_higher_pair() -> None:
    assert trick_winner(T, "♣99", "♣A ♣K", "♣1010", "♣3 ♣4") == 2


def test_any_trump_ruffs_a_single() -> None:
    """000 「首家出某花色副牌时，其余家无此门花色时，也可出主牌，称为"毙"…毙牌在比出牌大小时最大」."""
    assert trick_winner(T, "♣A", "♠2", "♣K", "♣3") == 1


def test_two_different_trumps_do_not_ruff_a_pair() -> None:
    """000 「若首家出的牌中有连对或对牌…对牌的数目也不得少于…否则被视为垫牌」."""
    assert trick_winner(T, "♣99", "BJ LJ", "♣3 ♣4", "♣5 ♣6") == 0
    assert trick_winner(T, "♣99", "♠22", "♣3 ♣4", "♣5 ♣6") == 1


def test_worked_example_998872_ruffs_ak5544_not_aa5544() -> None:
    """000 「主牌998872可毙副牌AK5544,但不能毙副牌AA5544」."""
    assert trick_winner(T, "♣A ♣K ♣5544", "♠998872", "♦234567", "♥234567") == 1
    assert trick_winner(T, "♣AA ♣5544", "♠998872", "♦234567", "♥234567") == 0


def test_worked_example_977_ruffs_544_and_884_overruffs() -> None:
    """000 「主牌977可毙副牌544,主牌884可盖毙」."""
    assert trick_winner(T, "♣5 ♣44", "♠9 ♠77", "♠88 ♠4", "♦2 ♦3 ♦4") == 2


def test_worked_example_977_ruffs_567_and_884_does_not_overruff() -> None:
    """000 「若首家出牌中没有连对或对牌，毙牌的大小以毙牌中最大牌为准(如主牌977可毙副牌567,主牌884不能盖毙)」."""
    assert trick_winner(T, "♣5 ♣6 ♣7", "♠9 ♠77", "♠88 ♠4", "♦2 ♦3 ♦4") == 1


def test_a_ruff_counts_the_leads_tractors_and_pairs() -> None:
    """000 「若首家出的牌中有连对或对牌，毙牌时所出的牌必须全是主牌，且其连对的数目不得少于首家出的牌中的
    连对的数目，对牌的数目也不得少于首家出的牌中的对牌的数目，否则被视为垫牌」; 003 「斃牌時所出的主牌
    連對數目不得少於首家連對數目」 (docs/rules.md "ruff structure", issue 12): numbers, not lengths.

    Position: ♣334455 led (level J, ♠ trump); seat 1, void in clubs, plays ♠9988 ♠KK: one
    tractor and three pairs, as many as the lead. Verdict: it ruffs and wins; ♠99 ♠33 ♠KK
    (three pairs, no tractor) is a discard. Ruffs compare by their tractors, longest first,
    then by the top pair: ♠QQKK ♠44 over-ruffs ♠9988 ♠KK, ♠334455 over-ruffs both."""
    assert trick_winner(T, "♣334455", "♠9988 ♠KK", "♦234567", "♥234567") == 1
    assert trick_winner(T, "♣334455", "♠99 ♠33 ♠KK", "♦234567", "♥234567") == 0
    assert trick_winner(T, "♣334455", "♠9988 ♠KK", "♠QQKK ♠44", "♥234567") == 2
    assert trick_winner(T, "♣334455", "♠9988 ♠KK", "♠QQKK ♠44", "♠334455") == 3
    assert trick_winner(T, "♣334455", "♠998877", "♦234567", "♥234567") == 1
    # a run of four pairs may stand for two tractors
    assert trick_winner(T, "♣3344 ♣7788", "♠99887766", "♦23456789", "♥23456789") == 1
    # two tractors led: one tractor and four pairs is not enough
    assert trick_winner(T, "♣3344 ♣7788", "♠998877 ♠KK", "♦23456789", "♥23456789") == 0


def test_overruff_by_longer_tractor() -> None:
    """000 「不同长度的连对之，长度最长的连对最大」 where ruffs of a throw meet."""
    assert trick_winner(T, "♣3344 ♣66 ♣A", "♠AAKK ♠33 ♠2", "♠778899 ♠4", "♦234567") == 2


def test_a_ruff_of_a_pair_overruffed_by_a_higher_pair() -> None:
    assert trick_winner(T, "♣99", "♠33", "♠22", "BJ BJ") == 3


# -- 5-10-K -------------------------------------------------------------------------------------


def test_trump_five_ten_king_is_the_highest_play() -> None:
    """000 「主花色的5、10、K共同出为最大」."""
    assert trick_winner(T, "♠5 ♠10 ♠K", "♥5 BJ LJ", "♠A ♠A ♠Q", "♠3 ♠4 ♠6") == 0


def test_a_trump_five_ten_king_played_as_a_follow_is_plain_trumps() -> None:
    """000 「主花色的5、10、K共同出为最大，其他玩家也有主花色的三张5、10、K则必出」 is about a trump
    5-10-K led (docs/rules.md "a trump 5-10-K as a follow", issue 12): 共同出 names the lead, as
    in the next sentence 「副牌同花色的5、10、K共同出后，其他玩家…」, where the only follow it grants
    is over a side 5-10-K. Played on any other lead, the three cards are plain trumps.

    Positions (level J, ♠ trump), verdicts:
    - ♣77 ♣3 led; seat 1, void in clubs, plays ♠5 ♠10 ♠K: no pair, so a discard (000 「…对牌的
      数目也不得少于…否则被视为垫牌」); the lead wins, and ♠33 ♠4 from seat 2 ruffs it;
    - ♣A ♣K ♣Q led (singles): ♠5 ♠10 ♠K is an ordinary ruff, over-ruffed by ♠A ♠3 ♠4;
    - the trump throw ♠AA ♠Q led: ♠5 ♠10 ♠K follows suit and cannot beat a throw."""
    assert trick_winner(T, "♣77 ♣3", "♠5 ♠10 ♠K", "♦2 ♦3 ♦4", "♥2 ♥3 ♥4") == 0
    assert trick_winner(T, "♣77 ♣3", "♠5 ♠10 ♠K", "♠33 ♠4", "♥2 ♥3 ♥4") == 2
    assert trick_winner(T, "♣A ♣K ♣Q", "♠5 ♠10 ♠K", "♦2 ♦3 ♦4", "♥2 ♥3 ♥4") == 1
    assert trick_winner(T, "♣A ♣K ♣Q", "♠5 ♠10 ♠K", "♠A ♠3 ♠4", "♥2 ♥3 ♥4") == 2
    assert trick_winner(T, "♠AA ♠Q", "♠5 ♠10 ♠K", "♠2 ♠3 ♠4", "♠6 ♠7 ♠8") == 0


def test_holder_of_the_trump_five_ten_king_must_answer_with_it() -> None:
    """000/003 「其他玩家也有主花色的三张5、10、K则必出」; a second one ties, so the first wins."""
    assert "answer the trump 5-10-K with yours" in refused(
        "♠5 ♠10 ♠K", "♠5 ♠10 ♠K BJ LJ", "BJ LJ ♠K"
    )
    follow(T, "♠5 ♠10 ♠K", "♠5 ♠10 ♠K BJ LJ", "♠5 ♠10 ♠K")
    assert trick_winner(T, "♠5 ♠10 ♠K", "♠5 ♠10 ♠K", "♠3 ♠4 ♠6", "♠7 ♠8 ♠9") == 0


def test_trump_five_ten_king_answered_with_your_highest_trumps() -> None:
    """000 「必须出主牌中最大的牌应对」 (暗炒/扛旗/明炒 rooms); 003 asks no more than following."""
    t = trump("J", "♠", ANCHAO)
    message = refused("♠5 ♠10 ♠K", "♥5 BJ ♠3 ♠4 ♦A", "♥5 ♠3 ♠4", t)
    assert message == "answer a trump 5-10-K with your highest trumps: ♥5 BJ ♠4"
    follow(t, "♠5 ♠10 ♠K", "♥5 BJ ♠3 ♠4 ♦A", "♥5 BJ ♠4")
    follow(trump("J", "♠", CLASSIC), "♠5 ♠10 ♠K", "♥5 BJ ♠3 ♠4 ♦A", "♥5 ♠3 ♠4")


def test_side_five_ten_king_only_a_trump_five_ten_king_beats_it() -> None:
    """000 「副牌同花色的5、10、K共同出后，其他玩家仅无该花色后，仅可以以主花色的5、10、K压，其他任何牌型主牌都不能压」."""
    assert trick_winner(T, "♣5 ♣10 ♣K", "♣A ♣A ♣Q", "♥5 BJ BJ", "♦3 ♦4 ♦6") == 0
    assert trick_winner(T, "♣5 ♣10 ♣K", "♣A ♣A ♣Q", "♠5 ♠10 ♠K", "♦3 ♦4 ♦6") == 2


def test_side_five_ten_king_is_followed_by_three_of_its_suit() -> None:
    follow(T, "♣5 ♣10 ♣K", "♣3 ♣4 ♣6 ♠2", "♣3 ♣4 ♣6")
    assert "must follow ♣" in refused("♣5 ♣10 ♣K", "♣3 ♣4 ♣6 ♠2", "♣3 ♣4 ♠2")


def test_paired_five_ten_king_forces_pairs() -> None:
    """000 「副牌同花色的5对、10对、K对逼对」; 003 「主花色的5對、10對、K對同出，其他玩家需出主牌中對牌」."""
    assert "2 pairs" in refused("♣55 ♣1010 ♣KK", "♣77 ♣99 ♣3 ♣4 ♣6 ♣8", "♣77 ♣3 ♣4 ♣6 ♣8")
    follow(T, "♣55 ♣1010 ♣KK", "♣77 ♣99 ♣3 ♣4 ♣6 ♣8", "♣77 ♣99 ♣3 ♣4")
    assert "pair" in refused("♠55 ♠1010 ♠KK", "♠77 ♠3 ♠4 ♠6 ♠8 ♠9", "♠3 ♠4 ♠6 ♠8 ♠9 ♠7")


def test_paired_five_ten_king_cannot_be_beaten_in_its_suit_but_can_be_ruffed() -> None:
    """docs/rules.md "paired 5-10-K": it stands like a throw that cannot fail."""
    assert trick_winner(T, "♣55 ♣1010 ♣KK", "♣AA ♣QQ ♣JJ", "♦2 ♦3 ♦4 ♦6 ♦7 ♦8", "♥234678") == 0
    assert trick_winner(T, "♣55 ♣1010 ♣KK", "♠33 ♠44 ♠88", "♦2 ♦3 ♦4 ♦6 ♦7 ♦8", "♥234678") == 1


def test_hearts_five_ten_king_with_the_red_five() -> None:
    """暗炒/明炒 「红桃为副牌时，红桃5可以形成红桃5、10、K」; 扛旗 「红桃5不可以形成红桃5、10、K」."""
    from .support import KANGQI

    assert lead(trump("J", "♠", ANCHAO), "♥5 ♥10 ♥K").kind.name == "FIVE_TEN_KING"
    assert lead(trump("J", "♠", ANCHAO), "♥55 ♥1010 ♥KK").kind.name == "FIVE_TEN_KING_PAIRS"
    with pytest.raises(IllegalPlay, match="mixes suits"):
        lead(trump("J", "♠", KANGQI), "♥5 ♥10 ♥K")
    # with hearts trump it is simply the trump 5-10-K
    assert lead(trump("J", "♥", KANGQI), "♥5 ♥10 ♥K").is_trump_five_ten_king


def test_classic_has_no_hearts_five_ten_king_with_the_red_five() -> None:
    """003 「同花色5、10、K為炒地皮遊戲中一種特殊的牌型」 with 「僅紅5、大小王、級牌為主牌」: in 003 the ♥5 is
    always a trump, and 003 has no sentence like 暗炒/明炒's 「红桃为副牌时，红桃5可以形成红桃5、10、K」, so
    classic keeps the rule that a 5-10-K is three cards of one suit as played (docs/rules.md
    "the ♥5 in a hearts 5-10-K").

    Position: level J, spades trump. Verdicts: in classic ♥5 ♥10 ♥K mixes suits (a trump and
    two hearts): it is no lead, a hand holding it is not offered it, and winning the last
    trick with it is no 上天入地; in anchao it is the hearts 5-10-K and 上天入地. With hearts
    trump all three are trumps: the trump 5-10-K in classic too."""
    from chaodipi.engine.legal import lead_options
    from chaodipi.engine.rules import HeavenEarth, Side
    from chaodipi.engine.scoring import heaven_earth_side

    ftk = tuple(sorted(cards("♥5 ♥10 ♥K")))
    classic, anchao = trump("J", "♠", CLASSIC), trump("J", "♠", ANCHAO)
    with pytest.raises(IllegalPlay, match="mixes suits"):
        lead(classic, "♥5 ♥10 ♥K")
    assert ftk not in set(lead_options(classic, hand("♥5 ♥10 ♥K ♣3")))
    assert ftk in set(lead_options(anchao, hand("♥5 ♥10 ♥K ♣3")))
    assert heaven_earth_side(classic, HeavenEarth.EXACT, ftk, True, False) is None
    assert heaven_earth_side(anchao, HeavenEarth.EXACT, ftk, True, False) is Side.DEFENDERS
    assert lead(trump("J", "♥", CLASSIC), "♥5 ♥10 ♥K").is_trump_five_ten_king


def test_level_card_in_a_side_five_ten_king_breaks_it() -> None:
    """docs/rules.md "5-10-K and level cards": at level 10 the ♣10 is a trump, so ♣5 ♣10 ♣K mixes
    suits; with clubs trump all three are trumps and it is the trump 5-10-K."""
    with pytest.raises(IllegalPlay, match="mixes suits"):
        lead(trump("10", "♠"), "♣5 ♣10 ♣K")
    assert lead(trump("10", "♣"), "♣5 ♣10 ♣K").is_trump_five_ten_king


def test_same_suit_five_ten_king_lead_is_never_a_throw() -> None:
    """docs/rules.md "a same-suit 5-10-K lead is the 5-10-K": ♣5 ♣10 ♣K leads as the special
    play even when, read as a throw, a ♣A elsewhere would beat it; without the rule (hefei) it
    is a throw."""
    from chaodipi.engine.trick import PlayKind

    from .support import HEFEI

    assert lead(T, "♣5 ♣10 ♣K").kind is PlayKind.FIVE_TEN_KING
    assert lead(trump("J", "♠", HEFEI), "♣5 ♣10 ♣K").kind is PlayKind.THROW
