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

from dataclasses import dataclass
from types import MappingProxyType

from engine.rules import CardRules

__all__ = ["PRESETS", "Preset", "preset"]


@dataclass(frozen=True, slots=True)
class Preset:
    """A named set of rules: where it comes from and every option."""

    name: str
    source: str
    summary: str
    card: CardRules


_ALL = (
    Preset(
        "anchao",
        "000 暗炒房间",
        "Yancheng app, hidden-bidding room: red fives above the jokers, 5-10-K, three circuits.",
        CardRules(skip_gaps=False, trump_level_in_suit_tractor=True),
    ),
    Preset(
        "kangqi",
        "000 扛旗房间",
        "Yancheng app, 扛旗 room: pairs skip the level rank; a no-trump 扛旗 hand after A.",
        CardRules(skip_gaps=True, trump_level_in_suit_tractor=True, red_five_in_hearts_ftk=False),
    ),
    Preset(
        "mingchao",
        "000 明炒房间",
        "Yancheng app, open-bidding room: 回头望 on top, J到底, J and A must be played.",
        CardRules(skip_gaps=False, trump_level_in_suit_tractor=True),
    ),
    Preset(
        "hefei",
        "001 合肥炒地皮",
        "Hefei competition rules: no red-five rule, no 5-10-K, the trump tractor chain.",
        CardRules(
            red_five=False,
            ace_low_tractors=False,
            skip_gaps=True,
            hefei_trump_chain=True,
            five_ten_king=False,
            ftk_answer_highest=False,
        ),
    ),
    Preset(
        "classic",
        "003 炒地皮",
        "The general description: red fives, 5-10-K, 回头望, 暗炒 and 扛旗 as options.",
        CardRules(ftk_answer_highest=False),
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
