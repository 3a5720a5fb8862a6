"""A match as text, the way a spectator sees it: the public events, one line each.

>>> import random
>>> from chaodipi.engine import Match, PRESETS
>>> match, rng = Match(PRESETS["classic"], seed=2, max_hands=1), random.Random(2)
>>> for _ in range(12):
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> print(transcript(match).splitlines()[0])
hand 1
"""

from __future__ import annotations

from chaodipi.engine.cards import format_cards
from chaodipi.engine.events import (
    BidsRevealed,
    Buried,
    DealerFixed,
    Declared,
    Event,
    Fried,
    HandOver,
    KittyTurned,
    Passed,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.match import Match

__all__ = ["describe", "transcript"]


def describe(event: Event) -> str | None:
    """One public event in words (``None``: nothing a spectator is shown)."""
    p = event.payload
    match p:
        case Declared(seat=seat, bid=bid) | Fried(seat=seat, bid=bid):
            verb = "declares" if isinstance(p, Declared) else "fries"
            return f"seat {seat} {verb} {'(hidden)' if bid is None else bid}"
        case Passed(seat=seat, stage=stage):
            return f"seat {seat} passes ({stage.value})"
        case DealerFixed(seat=seat):
            return f"seat {seat} deals"
        case TookKitty(seat=seat):
            return f"seat {seat} takes the kitty"
        case Buried(seat=seat):
            return f"seat {seat} buries"
        case Redealt(redeals=n):
            return f"nobody declared: dealt again ({n})"
        case KittyTurned(cards=cards, suit=suit):
            return f"the kitty is turned: {format_cards(cards)}, trump {suit or 'none'}"
        case BidsRevealed(bids=bids):
            shown = ", ".join(f"seat {b.seat} {b.bid}{'' if b.stood else ' (failed)'}"
                              for b in bids)
            return f"bids: {shown}"
        case TrumpFixed(level=level, suit=suit, dealer=dealer):
            return (f"trump: level {level or 'none'}, suit {suit or 'no-trump'};"
                    f" seat {dealer} leads")
        case Played(seat=seat, cards=cards, attempted=attempted, penalty=penalty):
            text = f"seat {seat} plays {format_cards(cards)}"
            if attempted is not None:
                text += f" (throw {format_cards(attempted)} failed, penalty {penalty:+d})"
            return text
        case TrickWon(seat=seat, points=points):
            return f"  seat {seat} wins the trick ({points} points)"
        case HandOver(total=total, kitty=kitty, progress=progress, note=note):
            dug = f"kitty {format_cards(kitty)}" if kitty else "no kitty"  # 扛旗: 「不留底牌」
            return (f"hand over: defenders {total}, {dug}; progress"
                    f" {progress[0]}-{progress[1]}{'; ' + note if note else ''}")
    return None


def transcript(match: Match) -> str:
    """Every public event of ``match`` so far, a ``hand N`` line before each hand's."""
    lines: list[str] = []
    hand = -1
    for event in match.log:
        if not event.public:
            continue
        if event.hand != hand:
            hand = event.hand
            lines.append(f"hand {hand + 1}")
        text = describe(event)
        if text is not None:
            lines.append(text)
    if not lines:
        lines.append(f"hand {match.number + 1}")
    if match.over:
        winner = "a draw" if match.winner is None else f"team {match.winner} wins"
        lines.append(f"match over: {winner}")
    return "\n".join(lines)
