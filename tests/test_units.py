"""Units of a play: pairs and tractors (连对) under every formation rule of the seeds."""

from __future__ import annotations

import pytest

from chaodipi.engine import IllegalPlay
from chaodipi.engine.rules import CardRules
from chaodipi.engine.trick import PlayKind
from chaodipi.engine.units import decompose, decompose_format

from .support import (
    ANCHAO,
    CLASSIC,
    HEFEI,
    KANGQI,
    MINGCHAO,
    cards,
    lead,
    trick_winner,
    trump,
)

PRESET_RULES = {
    "anchao": ANCHAO,
    "kangqi": KANGQI,
    "mingchao": MINGCHAO,
    "hefei": HEFEI,
    "classic": CLASSIC,
}


def units(text: str, level: str | None, suit: str | None, rules: CardRules = CLASSIC) -> list[str]:
    return [str(u) for u in decompose(trump(level, suit, rules), cards(text))]


def is_tractor(text: str, level: str | None, suit: str | None, rules: CardRules = CLASSIC) -> bool:
    try:
        return lead(trump(level, suit, rules), text).kind is PlayKind.TRACTOR
    except IllegalPlay:
        return False


def test_adjacent_same_suit_pairs_form_a_tractor() -> None:
    """001 §3 「梅花对7、梅花对8、梅花对9可组成梅花三连对」; 000 「凡牌点数相邻且花色相同的对子称为连对」."""
    assert units("♣778899", "2", "♠") == ["♣998877"]
    assert decompose_format(trump("2", "♠"), cards("♣7788 ♣JJ ♣3")).tractors == (2,)
    assert not is_tractor("♣7799", "2", "♠")


def test_joker_pairs_make_a_tractor() -> None:
    """000/003 「一对大王和一对小王算做连对」."""
    for rules in (CLASSIC, ANCHAO, KANGQI, HEFEI):
        assert is_tractor("BJ BJ LJ LJ", "2", "♠", rules)
        assert is_tractor("BJ BJ LJ LJ", "2", None, rules)


def test_red_five_pair_never_joins_a_tractor() -> None:
    """000/003 「红桃5对不能与其他对形成连对」."""
    assert not is_tractor("♥55 BJ BJ", "2", "♠")
    assert units("♥55 BJ BJ LJ LJ", "2", "♠") == ["BJ BJ LJ LJ", "♥55"]


def test_ace_low_and_ace_high_tractors_but_not_across() -> None:
    """000/003 「A对既可以作为1形成，同花色的AA22…连对;也可作为…AAKK…连对。但是…KKAA22不能作为连对」."""
    assert is_tractor("♣AA22", "7", "♠")
    assert is_tractor("♣AAKK", "7", "♠")
    assert not is_tractor("♣KKAA22", "7", "♠")
    fmt = decompose_format(trump("7", "♠"), cards("♣KKAA22"))
    assert fmt.tractors == (2,) and fmt.pairs == 1


def test_ace_counts_as_one_in_aa22() -> None:
    """000 「A对在的AAKK……中为A最大，在AA22……连对中为1最小」: ♣3344 beats ♣AA22."""
    t = trump("7", "♠")
    assert trick_winner(t, "♣AA22", "♣3344", "♦3456", "♦789J") == 1
    assert trick_winner(t, "♣3344", "♣AA22", "♦3456", "♦789J") == 0
    assert trick_winner(t, "♣AA22", "♣AAKK", "♦3456", "♦789J") == 1


def test_hefei_has_no_ace_low_tractor() -> None:
    """001 §3 「最多可由对2一直连到对A」: the chain runs 2 to A only."""
    assert not is_tractor("♣AA22", "7", "♠", HEFEI)


def test_level_pair_cannot_join_a_side_suit_tractor() -> None:
    """000 「级牌对不能形成副牌的连对」: at level 7 the ♥7 pair is trump, so ♥66♥77 is no lead."""
    with pytest.raises(IllegalPlay, match="mixes suits"):
        lead(trump("7", "♠", ANCHAO), "♥66 ♥77")


def test_pairs_either_side_of_the_level_rank() -> None:
    """扛旗 room 「但可以跳过级牌的数字形成连对」 and 001 「当轮级牌为6，则梅花对5与梅花对7也可组成连对」;
    the 暗炒/明炒 rooms say no such thing, so there ♣55♣77 at level 6 is two pairs."""
    assert is_tractor("♣55 ♣77", "6", "♠", KANGQI)
    assert is_tractor("♣55 ♣77", "6", "♠", HEFEI)
    assert not is_tractor("♣55 ♣77", "6", "♠", ANCHAO)


@pytest.mark.parametrize(
    ("preset", "skips"),
    [("anchao", False), ("kangqi", True), ("mingchao", False), ("hefei", True), ("classic", False)],
)
def test_only_kangqi_and_hefei_skip_the_level_rank(preset: str, skips: bool) -> None:
    """000/003 「凡牌点数相邻且花色相同的对子称为连对」: face ranks adjacent. Only the 扛旗 room
    (「但可以跳过级牌的数字形成连对」) and 001 (「当轮级牌为6，则梅花对5与梅花对7也可组成连对」) skip
    the level rank; 003 and the 暗炒/明炒 rooms do not (docs/rules.md, "no skip where the text
    does not say so").

    Position: level 7, hearts trump; the lead ♠66 ♠88. Verdict: a tractor in kangqi and hefei;
    two pairs (a throw) in anchao, mingchao and classic."""
    t = trump("7", "♥", PRESET_RULES[preset])
    assert (lead(t, "♠66 ♠88").kind is PlayKind.TRACTOR) is skips
    assert decompose_format(t, cards("♠66 ♠88")).tractors == ((2,) if skips else ())


def test_classic_chains_the_trump_suit_by_face_rank() -> None:
    """003 「凡牌點數相鄰且花色相同的對子稱為連對」, read as written (docs/rules.md): at level 7 with
    spades trump, ♠66 ♠77 ♠88 are pairs of one suit on adjacent face ranks, so a tractor; the
    level rank is not skipped, so ♠66 ♠88 is two pairs; another suit's level pair is a trump,
    so ♣66 ♣77 mixes suits."""
    t = trump("7", "♠", CLASSIC)
    assert lead(t, "♠66 ♠77 ♠88").kind is PlayKind.TRACTOR
    assert lead(t, "♠66 ♠88").kind is PlayKind.THROW
    with pytest.raises(IllegalPlay, match="mixes suits"):
        lead(t, "♣66 ♣77")


def test_kangqi_skips_the_level_rank_only_where_the_level_pair_cannot_stand() -> None:
    """扛旗 room 「级牌对不能形成副牌的连对。但可以跳过级牌的数字形成连对」 (docs/rules.md, "the level
    gap in the trump suit"): the skip is the 但 of the sentence before, about side suits, where
    the level pair has left the suit. In the trump suit the 000 rooms let the level pair stand at
    its face rank (「级牌形成的连对中级牌仅以实际点数参与比较大小」), so there is no gap to skip.

    Position: kangqi, ♠ trump, level 6. Verdicts: ♣55♣77 is a tractor; ♠55♠66♠77 is a tractor;
    ♠55♠77 is two pairs (a throw), as ♠55♠88 would be."""
    assert is_tractor("♣55 ♣77", "6", "♠", KANGQI)
    assert is_tractor("♠55 ♠66 ♠77", "6", "♠", KANGQI)
    assert not is_tractor("♠55 ♠77", "6", "♠", KANGQI)
    assert lead(trump("6", "♠", KANGQI), "♠55 ♠77").kind is PlayKind.THROW
    # where the trump level pair never stands in the suit (hefei), the trump suit skips
    assert is_tractor("♠55 ♠77", "6", "♠", HEFEI)


@pytest.mark.parametrize("preset", ["anchao", "kangqi", "mingchao", "hefei", "classic"])
def test_no_tractor_across_the_gap_the_red_five_leaves(preset: str) -> None:
    """000/003 「凡牌点数相邻」 and 「红桃5对不能与其他对形成连对」; the only skip the texts allow is
    the level rank's (扛旗 「但可以跳过级牌的数字形成连对」), so nothing closes the hole the ♥5
    leaves in hearts (docs/rules.md, "the ♥5 gap"). In hefei the ♥5 is a plain heart (001 §3),
    and ♥44 ♥66 are not adjacent either.

    Positions: level 2, hearts a side suit (spades trump) and hearts trump. Verdict in every
    preset: ♥44 ♥66 is two pairs, not a tractor."""
    rules = PRESET_RULES[preset]
    assert not is_tractor("♥44 ♥66", "2", "♠", rules)
    assert not is_tractor("♥44 ♥66", "2", "♥", rules)


def test_at_level_five_the_gap_in_hearts_is_the_level_ranks() -> None:
    """扛旗 room 「但可以跳过级牌的数字形成连对」 (docs/rules.md, "level 5" and "the ♥5 gap"): at level
    5 the 5 is the level rank, so where the level rank is skipped ♥44 ♥66 is a tractor, with
    hearts trump (the trump level pair would be the ♥5 pair, which joins no tractor) or not;
    where it is not skipped it is two pairs.

    Positions: level 5, spades trump and hearts trump. Verdict: a tractor in kangqi, not in
    anchao."""
    for suit in ("♠", "♥"):
        assert is_tractor("♥44 ♥66", "5", suit, KANGQI)
        assert not is_tractor("♥44 ♥66", "5", suit, ANCHAO)


def test_trump_level_pair_in_a_trump_suit_tractor_at_face_rank() -> None:
    """000 「级牌形成的连对中级牌仅以实际点数参与比较大小」 (docs/rules.md, reading 1): in the seed
    000 rooms (and classic, 003 「凡牌點數相鄰且花色相同」) the trump suit's level pair sits in
    trump-suit tractors at its face rank."""
    assert is_tractor("♠66 ♠77", "7", "♠", ANCHAO)
    assert is_tractor("♠66 ♠77 ♠88", "7", "♠", ANCHAO)
    assert is_tractor("♠66 ♠77", "7", "♠", CLASSIC)  # 003 read as written, the same way
    assert not is_tractor("♠66 ♠77", "7", "♠", HEFEI)  # 001: the level pair chains at the top
    # It compares by its face rank: ♠8899 beats ♠6677 although ♠7 outranks ♠9 as a single.
    t = trump("7", "♠", ANCHAO)
    assert trick_winner(t, "♠6677", "♠8899", "♦3456", "♦89JQ") == 1


def test_other_suits_level_pairs_never_join_outside_hefei() -> None:
    assert not is_tractor("♥77 ♠77", "7", "♠", ANCHAO)
    assert not is_tractor("♠77 LJ LJ", "7", "♠", CLASSIC)


def test_top_trump_tractors() -> None:
    """001 §3 「对大王和对小王；对小王和对主级牌；对主级牌和对其他级牌；对其他级牌和对主花色A之间也可组成连对」."""
    assert is_tractor("LJ LJ ♠77", "7", "♠", HEFEI)
    assert is_tractor("♠77 ♥77", "7", "♠", HEFEI)
    assert is_tractor("♥77 ♠AA", "7", "♠", HEFEI)
    assert is_tractor("♠AA ♦77 ♠77 LJ LJ BJ BJ", "7", "♠", HEFEI)
    assert not is_tractor("♥77 ♦77", "7", "♠", HEFEI)  # equal cards are not adjacent


def test_hefei_chain_at_level_ace_and_in_no_trump() -> None:
    """Seeds silent (docs/rules.md, "Hefei chain at A / no-trump"): at level A the other level
    pair follows the trump suit's K; in no-trump any level pair sits just below the LJ pair."""
    assert is_tractor("♠KK ♥AA", "A", "♠", HEFEI)
    assert is_tractor("♥77 LJ LJ", "7", None, HEFEI)
    assert not is_tractor("♥77 ♣77", "7", None, HEFEI)
