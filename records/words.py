"""A record's lines in words: the one place every view of a game says what happened.

``arena show`` and ``arena watch`` (:mod:`chaodipi.records.transcript`) lay these words out
for a terminal; the HTML viewer (:mod:`chaodipi.records.viewer`) gets them written into its
page, a sentence per line, and shows them as they are. Each view names a seat its own way
(``name``: ``2 alice`` in a terminal, ``seat 2 (alice)`` on the page); the words around the
name are these. How the game ended is :meth:`chaodipi.engine.Outcome.said`, which the SDK
speaks too.

>>> bots = [{"seat": s, "team": s % 2, "name": "ab"[s % 2]} for s in range(4)]
>>> names = seat_names({"type": "header", "format": "chaodipi-record/1", "table": "t",
...                     "bots": bots})
>>> name = lambda seat: f"{seat} {names[seat]}"
>>> sentence({"type": "buried", "seq": 9, "hand": 0, "to": [0, 1, 3], "seat": 2}, name)
'2 a buries 8 cards'
>>> said({"type": "pass", "seq": 3, "hand": 0, "seat": 1, "stage": "fry"}, name)
(1, 'passes (frying)')
>>> team_name(1, names), team_name(1, ["", "", "", ""])
('team 1 (b)', 'team 1 (seats 1 and 3)')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

from chaodipi.engine import KITTY_SIZE, parse_cards, print_order
from chaodipi.records.lines import (
    ActionLine,
    DealtLine,
    EventLine,
    HandLine,
    HandOverLine,
    Header,
    LiveHeader,
    PlayLine,
    Score,
)

__all__ = [
    "Namer",
    "hand_over_words",
    "said",
    "score_words",
    "seat_names",
    "sentence",
    "spaced",
    "team_name",
    "throw_words",
    "turn_words",
]

Namer = Callable[[int], str]
"""How a view names a seat in its sentences."""

NO_TRUMP = "no-trump"
NO_LEVEL = "none (扛旗)"
"""The level of the 扛旗 hand, which has none."""


def spaced(cards: str) -> str:
    """Cards as a person reads them: one group per suit, ranks apart, groups two apart.

    >>> spaced("♠AK10 ♥5 LJ BJ")
    '♠A K 10  ♥5  LJ BJ'
    """
    if not cards:
        return "—"
    groups: list[list[str]] = []
    last = None
    jokers: list[str] = []
    for card in print_order(sorted(parse_cards(cards))):
        if card.is_joker:
            jokers.append(str(card))
            continue
        if card.suit != last:
            groups.append([str(card)])
            last = card.suit
        else:
            groups[-1].append(str(card)[1:])
    parts = [" ".join(group) for group in groups]
    if jokers:
        parts.append(" ".join(jokers))
    return "  ".join(parts)


def seat_names(header: Header | LiveHeader | None) -> list[str]:
    """Each seat's bot's name as the header gives it ('' where it gives none)."""
    if header is None or "bots" not in header:
        return ["", "", "", ""]
    names = [bot["name"] for bot in header["bots"]]
    return names if len(names) == 4 else ["", "", "", ""]


def team_name(team: int, names: Sequence[str]) -> str:
    """A team as the views name it: its bots' names, or its seats when they have none."""
    bots = {names[team], names[team + 2]} - {""}
    return f"team {team} ({'/'.join(sorted(bots)) or f'seats {team} and {team + 2}'})"


def _bid(bid: str | None) -> str:
    return "a hidden bid" if bid is None else bid


def _progress(progress: Sequence[int]) -> str:
    return " : ".join(str(p) for p in progress)


def throw_words(line: PlayLine) -> str:
    """What a failed throw cost (``''`` for a play that was none)."""
    if "attempted" not in line:
        return ""
    penalty = line.get("penalty", 0)
    return f"threw {spaced(line['attempted'])}: failed, defenders {penalty:+d}"


def score_words(score: Score, total: int) -> str:
    """A hand's score as the sum of its parts: ``tricks 70 + kitty 10 × 2 = 90`` (the floor
    said when the parts sum below 0; the kitty's points said when the defenders did not dig
    it)."""
    parts = [f"tricks {score['trick_points']}"]
    if score["kitty_multiplier"]:
        parts.append(f"kitty {score['kitty_points']} × {score['kitty_multiplier']}")
    for value, label in (
        (score["throw_penalty"], "throws"),
        (score["fry_penalty"], "fries"),
        (score["red_five"], "red fives"),
    ):
        if value:
            parts.append(f"{label} {value}")
    # 001 §4.1 「台下罚分罚至0分为止」: parts summing below 0 are floored at 0 where the preset says
    text = " + ".join(parts) + (" < 0; floored at 0" if score.get("floored") else f" = {total}")
    if not score["kitty_multiplier"] and score["kitty_points"]:
        text += f"; the kitty's {score['kitty_points']} not dug"
    return text


def hand_over_words(line: HandOverLine, name: Namer) -> tuple[str, str, str]:
    """A scored hand in three parts: the defenders' total, the sum that made it, who deals
    next (:func:`sentence` joins them with the note and the progress)."""
    head = f"hand {line['hand'] + 1} over: the defenders have {line['total']}"
    next_dealer = f"next dealer {name(line['next_dealer'])}"
    return head, score_words(line["score"], line["total"]), next_dealer


def said(line: HandLine | DealtLine | EventLine, name: Namer) -> tuple[int | None, str]:
    """Who did what a line says (the seat, or ``None`` for the table) and what, in words."""
    match line["type"]:
        case "hand":
            dealer = line["dealer"]
            by = "decided by declaring" if dealer is None else name(dealer)
            level = line["level"] or NO_LEVEL
            number = line["hand"] + 1
            return None, f"hand {number} · level {level} · dealer {by} · progress " + _progress(
                line["progress"]
            )
        case "dealt":
            return None, f"the deal is complete; the kitty: {spaced(line['kitty'])}"
        case "deal":
            return line["seat"], f"is dealt {spaced(line['cards'])}"
        case "declare":
            return line["seat"], f"declares {_bid(line['bid'])}"
        case "fry":
            return line["seat"], f"fries (炒底) with {_bid(line['bid'])}"
        case "pass":
            return line["seat"], "passes" + (" (frying)" if line["stage"] == "fry" else "")
        case "dealer":
            return line["seat"], "deals this hand"
        case "kitty":
            return line["seat"], f"takes the kitty: {spaced(line['cards'])}"
        case "took_kitty":
            return line["seat"], "takes the kitty"
        case "bury":
            return line["seat"], f"buries {spaced(line['cards'])}"
        case "buried":
            return line["seat"], f"buries {KITTY_SIZE} cards"
        case "redeal":
            return None, f"nobody declared: the cards are dealt again (redeal {line['redeals']})"
        case "kitty_turned":
            kitty, trump = spaced(line["cards"]), line["suit"] or NO_TRUMP
            return None, f"nobody declared: the kitty {kitty} is turned; trump {trump}"
        case "reveal":
            bids = [
                f"{name(b['seat'])} {b['bid']}{'' if b['stood'] else ' (did not stand)'}"
                for b in line["bids"]
            ]
            return None, "bids shown: " + ", ".join(bids)
        case "trump":
            level = line["level"] or NO_LEVEL
            suit = line["suit"] or NO_TRUMP
            return None, f"trump {suit}, level {level}; {name(line['dealer'])} leads"
        case "play":
            throw = throw_words(line)
            return line["seat"], f"plays {spaced(line['cards'])}" + (f" ({throw})" if throw else "")
        case "trick":
            so_far = f" (defenders {line['defenders']})" if "defenders" in line else ""
            return line["seat"], f"wins trick {line['trick']}: {line['points']} points{so_far}"
        case "hand_over":
            head, score, next_dealer = hand_over_words(line, name)
            progress = _progress(line["progress"])
            return None, f"{head} ({score}); {line['note']}; progress {progress}; {next_dealer}"
        case other:
            assert_never(other)


def sentence(line: HandLine | DealtLine | EventLine, name: Namer) -> str:
    """A line in words, its seat named by ``name``: ``2 alice buries 8 cards``."""
    seat, what = said(line, name)
    return what if seat is None else f"{name(seat)} {what}"


def turn_words(action: ActionLine, *, time: bool = True) -> str:
    """How a seat's action was taken: ``forced`` (it had nothing to choose), or its time
    (with ``time``, when the record has a clock), a strike, the answers refused, a fallback
    (its kit answered for it); ``''`` when there is nothing to say."""
    if not action.get("asked", True):
        return "forced"
    bits = []
    if time and "ms" in action:
        bits.append(f"{action['ms']} ms")
    if action.get("timeout"):
        bits.append(f"strike {action.get('strikes', 0)}")
    if action.get("refused"):
        bits.append(f"{action.get('refused')} refused")
    if action.get("fallback"):
        bits.append("fallback: its kit answered for it")
    return ", ".join(bits)
