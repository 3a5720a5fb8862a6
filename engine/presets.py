"""Named, frozen rule presets: one per seed room or text.

| preset     | source                                   |
| ---------- | ---------------------------------------- |
| ``anchao``   | 000 暗炒房间 (hidden bidding, 逼红5/保红5)  |
| ``kangqi``   | 000 扛旗房间                              |
| ``mingchao`` | 000 明炒房间 (open bidding, J到底)         |
| ``hefei``    | 001 合肥炒地皮 competition rules           |
| ``classic``  | 003 the general description               |

Each preset lists every option; ``docs/rules.md`` says which seed sentence each rests on.
This module holds the card-play options; the hand and match options join them as they are built.

>>> sorted(PRESETS)
['anchao', 'classic', 'hefei', 'kangqi', 'mingchao']
>>> PRESETS["hefei"].card.red_five
False
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from types import MappingProxyType

from chaodipi.engine.cards import Rank, Suit
from chaodipi.engine.rules import BidRules, CardRules, Demotion, HeavenEarth, MatchRules, ScoreRules

__all__ = ["PRESETS", "Preset", "preset"]


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of rules: where it comes from and every option."""

    name: str
    source: str
    summary: str
    card: CardRules
    bid: BidRules
    score: ScoreRules
    match: MatchRules

    def describe(self) -> str:
        """Every option of the preset, one per line (for ``arena presets``)."""
        lines = [f"{self.name}: {self.summary} (seed {self.source})"]
        for group in (self.card, self.bid, self.score, self.match):
            for name in group.__dataclass_fields__:
                lines.append(f"  {type(group).__name__}.{name} = {_text(getattr(group, name))}")
        return "\n".join(lines)


def _text(value: object) -> str:
    """An option's value as the engine prints cards: a suit or rank by its symbol, another
    enum by its value, a sequence and a dataclass by their parts.

    >>> _text((Suit.DIAMONDS, Suit.CLUBS)), _text(Rank.ACE), _text(HeavenEarth.EXACT)
    ('(♦, ♣)', 'A', 'exact')
    >>> _text(Demotion(level=Rank.JACK, pair=False, to=Rank.TWO, points=80, exact=True))
    'Demotion(level=J, pair=False, to=2, points=80, exact=True)'
    """
    if isinstance(value, Suit | Rank):
        return str(value)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(item) for item in value) + ")"
    if is_dataclass(value) and not isinstance(value, type):
        parts = (f"{f.name}={_text(getattr(value, f.name))}" for f in fields(value))
        return f"{type(value).__name__}({', '.join(parts)})"
    return repr(value)


_S, _H, _C, _D = Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS
_J, _A, _2 = Rank.JACK, Rank.ACE, Rank.TWO

_ALL = (
    Preset(
        "anchao",
        "000 暗炒房间",
        "hidden bidding (暗炒) with 回头望 and failed fries, 逼红5/保红5, three circuits",
        CardRules(skip_level_rank=False, trump_level_in_suit_tractor=True),
        BidRules(pair_order=(_C, _D, _S, _H), huitouwang=True, hidden=True),
        ScoreRules(red_five_bonus=50, heaven_earth=HeavenEarth.EXACT, heaven_earth_reward=16),
        MatchRules(circuits=3, must_play=(_A,), must_play_last_circuit_only=True),
    ),
    Preset(
        "kangqi",
        "000 扛旗房间",
        "open bidding, pairs skip the level rank, the no-trump 扛旗 hand after A",
        CardRules(
            skip_level_rank=True, trump_level_in_suit_tractor=True, red_five_in_hearts_ftk=False
        ),
        BidRules(pair_order=(_D, _C, _H, _S)),
        ScoreRules(heaven_earth=HeavenEarth.CONTAINS, heaven_earth_defenders_only=True),
        MatchRules(must_play=(_A,), kangqi=True),
    ),
    Preset(
        "mingchao",
        "000 明炒房间",
        "open bidding with 回头望 on top, J到底, J and A must be played",
        CardRules(skip_level_rank=False, trump_level_in_suit_tractor=True),
        BidRules(pair_order=(_D, _C, _H, _S), huitouwang=True),
        ScoreRules(
            heaven_earth=HeavenEarth.CONTAINS,
            heaven_earth_defenders_only=True,
            heaven_earth_reward=13,
        ),
        MatchRules(
            must_play=(_J, _A),
            demotions=(
                Demotion(_J, pair=False, to=_2, exact=True),
                Demotion(_A, pair=True, to=_J, exact=True),
            ),
        ),
    ),
    Preset(
        "hefei",
        "001 合肥炒地皮",
        "hidden calls, frying by order, 10 points a level, must-play 2/J/A, 跳级, no red five",
        CardRules(
            red_five=False,
            ace_low_tractors=False,
            skip_level_rank=True,
            trump_level_in_suit_tractor=False,
            top_trump_tractors=True,
            five_ten_king=False,
            ftk_answer_highest=False,
        ),
        BidRules(pair_order=None, hidden=True, failed_fry_penalty=0, fry_by_order=True),
        ScoreRules(
            take_over=80,
            level_step=10,
            kitty_by_unit=True,
            heaven_earth=HeavenEarth.NONE,
            penalty_floor=True,
        ),
        MatchRules(
            must_play=(_2, _J, _A),
            must_play_once=True,
            demotions=(
                Demotion(_A, pair=True, to=_2),
                Demotion(_A, pair=False, to=_J),
                Demotion(_J, pair=False, to=_2),
            ),
            jump_to_ace=True,
        ),
    ),
    Preset(
        "classic",
        "003 炒地皮",
        "the general description: open bidding, 抄底 without limit, the 60-200 score table",
        CardRules(
            skip_level_rank=False,
            trump_level_in_suit_tractor=True,
            red_five_in_hearts_ftk=False,
            ftk_answer_highest=False,
        ),
        BidRules(pair_order=(_D, _C, _H, _S)),
        ScoreRules(heaven_earth=HeavenEarth.EXACT),
        MatchRules(must_play=(_A,)),
    ),
)

PRESETS = MappingProxyType({p.name: p for p in _ALL})
"""Every preset by name."""


def preset(name: str) -> Preset:
    """The preset of this name; the error lists the names there are."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"no preset {name!r}; choose one of {', '.join(sorted(PRESETS))}"
        ) from None
