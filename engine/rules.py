"""Card-play rule options: the switches on which the seed rooms differ when cards are played.

Each field cites the seed sentence it stands for; ``docs/rules.md`` has the full table. The
presets (one per seed room) build these; the card-play code only ever reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CardRules"]


@dataclass(frozen=True, slots=True)
class CardRules:
    """How cards rank, which pairs form tractors, and which special plays exist.

    >>> CardRules().red_five, CardRules(red_five=False).five_ten_king
    (True, True)
    """

    red_five: bool = True
    """♥5 is the highest trump, above the big joker, and trump even in no-trump (000, 003)."""

    ace_low_tractors: bool = True
    """An A pair may start a tractor as 1: AA22 (000, 003 「A对既可以作为1形成…AA22」)."""

    skip_gaps: bool = True
    """Pairs either side of a rank that left the suit (the level rank; the ♥5) are adjacent
    (扛旗 room 「可以跳过级牌的数字形成连对」;
    001 「当轮级牌为6，则梅花对5与梅花对7也可组成连对」)."""

    trump_level_in_suit_tractor: bool = False
    """The trump suit's level pair sits inside trump-suit tractors at its face rank
    (000 「级牌形成的连对中级牌仅以实际点数参与比较大小」, as read in docs/rules.md)."""

    hefei_trump_chain: bool = False
    """LJ pair – trump level pair – other level pair – trump A pair chain into tractors (001 §3)."""

    five_ten_king: bool = True
    """Same-suit 5-10-K (and 55-1010-KK) is a play of its own (000, 003)."""

    red_five_in_hearts_ftk: bool = True
    """With hearts not trump, the ♥5 may make a hearts 5-10-K
    (暗炒/明炒 「红桃为副牌时，红桃5可以形成红桃5、10、K」; 扛旗 「…不可以…」)."""

    ftk_answer_highest: bool = True
    """A trump 5-10-K lead must be answered with one's highest trumps
    (000 「必须出主牌中最大的牌应对」)."""

    throw_penalty_per_card: int = 10
    """Points per card of a failed throw (000 「庄家方甩错1张牌，抓分方加10分」, 001 §4.2)."""
