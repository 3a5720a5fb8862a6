"""Card-play rule options: the switches on which the seed rooms differ when cards are played.

Each field cites the seed sentence it stands for; ``docs/rules.md`` has the full table. The
presets (one per seed room) build these; the card-play code only ever reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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

    skip_level_rank: bool = False
    """Pairs either side of the level rank are adjacent in a suit its level pair has left
    (扛旗 room 「但可以跳过级牌的数字形成连对」;
    001 「当轮级牌为6，则梅花对5与梅花对7也可组成连对」).
    False: tractors are pairs of adjacent face ranks only (000/003 「凡牌点数相邻」), so the
    level rank leaves a hole. No text skips the hole the ♥5 leaves in hearts: ♥44♥66 is never
    a tractor while the ♥5 is the red five."""

    trump_level_in_suit_tractor: bool = True
    """The trump suit's level pair sits inside trump-suit tractors at its face rank
    (000 「级牌形成的连对中级牌仅以实际点数参与比较大小」; 003 「凡牌點數相鄰且花色相同」,
    as read in docs/rules.md)."""

    top_trump_tractors: bool = False
    """The top trump pairs chain into tractors: LJ pair – trump level pair – other level pair –
    trump A pair (001 §3; the hefei preset)."""

    five_ten_king: bool = True
    """Same-suit 5-10-K (and 55-1010-KK) is a play of its own (000, 003)."""

    red_five_in_hearts_ftk: bool = True
    """With hearts not trump, the ♥5 (a trump) may make a hearts 5-10-K, as the 暗炒 and 明炒
    rooms grant (「红桃为副牌时，红桃5可以形成红桃5、10、K」). False where no text grants it: 扛旗
    withholds it (「…不可以…」) and 003 is silent (the classic preset)."""

    ftk_answer_highest: bool = True
    """A trump 5-10-K lead must be answered with one's highest trumps
    (000 「必须出主牌中最大的牌应对」)."""

    throw_penalty_per_card: int = 10
    """Points per card of a failed throw (000 「庄家方甩错1张牌，抓分方加10分」, 001 §4.2)."""


@dataclass(frozen=True, slots=True)
class BidRules:
    """Declaring (亮主/反主) during the deal and frying (炒底) the kitty after it."""

    pair_order: tuple[int, ...] | None = (3, 2, 1, 0)
    """Suits whose level pairs override, lowest first (``Suit`` values); then LJ pair, BJ pair,
    ♥5 pair (and 回头望 where allowed). ``None``: order, not rank, decides (001 §1.1
    「炒底时只按顺序，不分花色大小」). Default: 003 「方塊對、梅花對、紅桃對、黑桃對…」."""

    huitouwang: bool = False
    """回头望: the first declarer may override with the pair of the card they showed, ranking
    above everything (000 暗炒/明炒, 003)."""

    hidden: bool = False
    """暗炒: a declaration or fry is seen only by its maker until frying ends
    (000 暗炒, 001, 003)."""

    failed_fry_penalty: int = 80
    """暗炒: a fry lower than the bid in force fails: ±80 by side (000 暗炒, 003)."""

    deal_rounds: int = 5
    """The deal comes in this many packets; after each, every seat in turn may declare or pass."""

    fry_by_order: bool = False
    """Frying goes by order, not rank: every fry stands and the last one makes trump; each
    seat fries with each pair once; jokers fry only no-trump and the ♥5 pair is no bid; the
    declarer and dealer fry only after someone else has; in the first hand the last fryer to
    take the kitty deals (001 §1.1, §1.2; the hefei preset)."""


@dataclass(frozen=True, slots=True)
class Demotion:
    """A kitty dug at a must-play level sends the dealers down (明炒 J到底; 001 §2.2).

    When the hand's level is ``level``, the defenders win the last trick with a play holding a
    pair of level cards of one suit (``pair``) or any level card (``exact``: a play that is
    just that card or pair), and took at least ``points`` in tricks, the dealers' level goes
    back to ``to``.
    """

    level: int
    pair: bool
    to: int
    points: int = 80
    exact: bool = False
    """The winning play is exactly the level card: one card or a pair of one suit, nothing
    else (明炒 「抓分方最后一张或一对是J」); False: any play holding one
    (001 §2.2 「最后一次脱手牌中带有同花色的一对“A”」)."""


class HeavenEarth(StrEnum):
    """Which last plays count as 上天入地 (a same-suit 5-10-K winning the last trick)."""

    EXACT = "exact"
    """Exactly the three cards 5-10-K of one suit (000)."""
    CONTAINS = "contains"
    """A play holding them (扛旗/明炒 「含有」)."""
    NONE = "none"
    """No 上天入地 (001)."""


class Side(StrEnum):
    """One side of a hand: the dealing team or the defending team."""

    DEALERS = "dealers"
    DEFENDERS = "defenders"


@dataclass(frozen=True, slots=True)
class ScoreRules:
    """Points of a hand and what they are worth in levels."""

    take_over: int = 60
    """Defenders' points that take the deal (003 「抓分方獲得60分取得勝利資格，莊家下莊」)."""

    level_step: int = 0
    """0: the 003 table (80 +1, 100 +2, 120 +3, 150 +4, 180 +5, 200 +6); N: N points a level
    beyond the take-over mark either way (001 §2.1 「10分为一级，零头5分不算分」)."""

    kitty_by_unit: bool = False
    """抠底 multiplier: False ×2 singles / ×4 with a pair (003); True ×2 single, ×4 pair, ×8
    tractor, ×16 three-pair tractor … by the winning play's largest unit (001 §4.7)."""

    red_five_bonus: int = 0
    """逼红5/保红5: points per red five forced out or saved (000 暗炒: 50)."""

    heaven_earth: HeavenEarth = HeavenEarth.EXACT
    """上天入地 on the last trick: which last plays count."""

    heaven_earth_defenders_only: bool = False
    """Only the defenders' 抠底 counts (扛旗/明炒 「抓分方用含有…抠底」), not the dealers' 保底."""

    heaven_earth_reward: int = 16
    """积分 to the rewarded side (000: 16; 明炒: 13)."""

    penalty_floor: bool = False
    """The defenders' penalties stop at 0 points (001 §4.1 「台下罚分罚至0分为止」)."""


@dataclass(frozen=True, slots=True)
class MatchRules:
    """Levels, circuits and the end of a match."""

    circuits: int = 1
    """Circuits from 2 to A a team must complete (000 暗炒 「每轮比赛打三圈」: 3)."""

    must_play: tuple[int, ...] = (12,)
    """Level ranks (``Rank`` values) a climb cannot jump over (001 §2.1: 2, J, A; 明炒: J, A)."""

    must_play_last_circuit_only: bool = False
    """The must-play levels bind only in the last circuit (000 「第三圈的A必打」)."""

    must_play_once: bool = False
    """A must-play level binds a team only until it has played it (dealt a hand at it, won or
    lost): after that its climbs run past it
    (001 §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌，也可以计分升级」).
    False: it binds every time the team reaches it, until the team passes it as dealers."""

    kangqi: bool = False
    """After passing A a team plays the 扛旗 hand: no-trump, only ♥5/BJ/LJ trump, no kitty,
    27 cards each; holding it ends the match (000 扛旗房间)."""

    kangqi_take_over: int = 100
    """Defenders' points that take the deal in the 扛旗 hand
    (「抓分方必须拿满 100 分才可以上台」)."""

    demotions: tuple[Demotion, ...] = ()
    """Level drops for a kitty dug with the level card (明炒 J到底; 001 §2.2)."""

    jump_to_ace: bool = False
    """跳级: 打大光 (the defenders won no point card) or the defenders' 200 jumps the winners
    to A, and in a hand played at J or above wins the match; in the first hand, 打大光 or 80
    with the kitty dug wins the match (001 §2.3, §2.4; the hefei preset)."""
