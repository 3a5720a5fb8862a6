"""A game record as a transcript a person reads in a terminal of 80 columns (``arena show``).

For each hand: the hands as dealt (``♠A K 10 …``), the auction in one paragraph, the kitty and
what was buried, then each trick on a line (who played what, who won it, its points, and the
defenders' running total), and the hand's result. Bots' notes follow the play they belong to.

:func:`seat_view` keeps only what one seat knew (``--seat N``): the events it saw, its own
cards and notes, and what the end of each hand showed everyone. :class:`Transcript` turns lines
into text one at a time, so a live table can be followed as it plays. Its text is safe to print
on a terminal: bots' names and notes, and every line it makes, pass through
:func:`chaodipi.records.text.visible`. :func:`spectator_view` keeps what a spectator at the
table knows (every public line, and that a seat took the kitty or buried, or made a hidden
bid, without the cards or the bid); :func:`match_transcript` tells a match so far that way
(the RL environment's ``render()``).

>>> spaced("♠AK10 ♥5 LJ BJ")
'♠A K 10  ♥5  LJ BJ'
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import assert_never
from unicodedata import east_asian_width

from chaodipi.engine import Match, parse_cards, print_order
from chaodipi.records.lines import (
    ActionLine,
    BuriedLine,
    BuryLine,
    DealerLine,
    DealLine,
    DealtLine,
    DeclareLine,
    FryLine,
    HandLine,
    HandOverLine,
    Header,
    KittyLine,
    KittyTurnedLine,
    Line,
    LiveHeader,
    PassLine,
    PlayLine,
    RedealLine,
    RevealLine,
    TookKittyLine,
    TrickLine,
    TrumpLine,
)
from chaodipi.records.making import LineMaker, news, record_lines
from chaodipi.records.text import visible

__all__ = ["Transcript", "match_transcript", "seat_view", "spaced", "spectator_view", "transcript"]


def spaced(cards: str) -> str:
    """Cards as a person reads them: one group per suit, ranks apart, groups two apart."""
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


def seat_view(lines: Iterable[Line], seat: int) -> list[Line]:
    """The lines of a record that ``seat`` knew as the game went: the header, hand starts,
    the events it saw (public, or with ``seat`` in ``to``), and its own actions (with its
    notes); not the full deal (``dealt``), nor the other seats' actions and notes."""
    kept: list[Line] = []
    for line in lines:
        if line["type"] == "dealt":
            continue
        if line["type"] == "action" and line["seat"] != seat:
            continue
        if "to" in line and seat not in line["to"]:
            continue
        kept.append(line)
    return kept


def spectator_view(lines: Iterable[Line]) -> list[Line]:
    """The lines of a record a spectator at the table knew: the header, hand starts, the
    public events, and the copy every seat but the actor saw of a private one (a seat took
    the kitty, buried, made a hidden bid: not the cards, nor the bid); no actions, no notes,
    no full deal."""
    kept: list[Line] = []
    for line in lines:
        if line["type"] in ("dealt", "action"):
            continue
        if "to" not in line or (
            "seat" in line and len(line["to"]) == 3 and line["seat"] not in line["to"]
        ):
            kept.append(line)
    return kept


def _seat_names(header: Header | LiveHeader | None) -> list[str]:
    if header is None or "bots" not in header:
        return ["", "", "", ""]
    names = [visible(bot["name"]) for bot in header["bots"]]
    return names if len(names) == 4 else ["", "", "", ""]


def _team_name(header: Header, team: int) -> str:
    names = _seat_names(header)
    both = {names[team], names[team + 2]} - {""}
    return "/".join(sorted(both)) or f"seats {team}+{team + 2}"


def _result_text(header: Header) -> str:
    result = header["result"]
    progress = " : ".join(str(p) for p in result["progress"])
    winner = result["winner"]
    ending = result["ending"]
    if winner is None:
        what = "a draw" if ending == "played out" else f"undecided ({ending})"
    else:
        what = f"team {winner} ({_team_name(header, winner)}) won"
        if result["reward"]:
            what += f" (reward {result['reward']})"
        if ending == "forfeit":
            what += " on a forfeit"
    return f"{what}: {result['reason']}; {result['hands']} hands, progress {progress}"


@dataclass
class _Hand:
    """What the transcript keeps while a hand is told."""

    number: int
    dealer: int | None = None
    auction: list[str] = field(default_factory=list)
    plays: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    defenders: int | None = 0
    """The defenders' points so far, as the lines said (None: a record made before they
    did)."""
    dealt: list[list[str]] = field(default_factory=lambda: [[], [], [], []])
    shown: bool = False
    trick: int = 0
    """The number of the trick being played."""
    passes: list[int] = field(default_factory=list)
    """The seats of the passes in a row just told (told as one item of the auction)."""


class Transcript:
    """Turns record lines, in order, into transcript text (``feed`` returns the new text
    lines; ``close`` whatever is still held). ``seat``: tell only what that seat knew (give
    it the lines of :func:`seat_view`); ``hand``: only that hand (numbered from 1, as
    printed); ``times``: each turn's time beside its play. Event lines alone will do (a
    live table's, made by :class:`chaodipi.records.making.LineMaker`): each hand then begins
    at its first event. ``spectator``: the lines are a spectator's (:func:`spectator_view`,
    or the public ones of ``arena watch``), so each hand's cards are told at its end."""

    def __init__(
        self,
        *,
        seat: int | None = None,
        hand: int | None = None,
        width: int = 80,
        times: bool = False,
        spectator: bool = False,
    ) -> None:
        self.seat = seat
        self.spectator = spectator
        self.only_hand = hand
        self.width = width
        self.times = times
        self.header: Header | LiveHeader | None = None
        self._hand: _Hand | None = None
        self._pending: dict[int, ActionLine] = {}
        """The last action line of each seat, until its play (or bid) is told."""

    # -- helpers --------------------------------------------------------------------------------

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "table"
        names = _seat_names(self.header)
        return f"{seat} {names[seat]}" if names[seat] else f"seat {seat}"

    def seats(self) -> list[str]:
        """The header's seats line (wrapped): each seat, its bot's name and its team."""
        seats = [f"{self._name(s)} (team {s % 2})" for s in range(4)]
        return self._wrap("seats: " + " · ".join(seats), indent="")

    def _wrap(self, text: str, indent: str = "  ", more: str = "    ") -> list[str]:
        """``text`` wrapped to the width (counting a CJK character as the two columns it
        takes), its first line after ``indent``, the others after ``more``."""
        wide = sum(1 for char in text if east_asian_width(char) in "WF")
        return textwrap.wrap(
            text,
            max(20, self.width - wide),
            initial_indent=indent,
            subsequent_indent=more,
            break_on_hyphens=False,
        ) or [indent.rstrip()]

    def _showing(self, line: Line) -> bool:
        if self.only_hand is None or line["type"] == "header":
            return True
        return line["hand"] + 1 == self.only_hand

    def _turn(self, seat: int) -> str:
        """What to say of how ``seat`` took its last action: time (with ``times``), a
        strike, refusals, a fallback (its kit answered for it); its note goes to the notes."""
        action = self._pending.pop(seat, None)
        if action is None or not action.get("asked"):
            return ""
        hand = self._hand
        bits = []
        if self.times and "ms" in action:  # a match played without a table has no clock
            bits.append(f"{action['ms'] / 1000:.2f}s")
        if action.get("timeout"):
            bits.append(f"strike {action.get('strikes', 0)}")
        if action.get("refused"):
            bits.append(f"{action.get('refused')} refused")
        if action.get("fallback"):
            bits.append("fallback: its kit answered for it")
        note = action.get("note")
        if note and hand is not None:
            hand.notes.append(f"{self._name(seat)}: {visible(note)}")
        return f" ({', '.join(bits)})" if bits else ""

    # -- lines ----------------------------------------------------------------------------------

    def feed(self, line: Line | LiveHeader) -> list[str]:
        """The transcript's new text after ``line`` (visible text: no control characters)."""
        return [visible(text) for text in self._feed(line)]

    def _feed(self, line: Line | LiveHeader) -> list[str]:
        if line["type"] == "header":
            self.header = line
            return self._header(line) if "preset" in line else []
        if not self._showing(line):
            return []
        if line["type"] == "action":
            self._pending[line["seat"]] = line
            return []
        if (
            self.seat is None
            and not self.spectator
            and "to" in line
            and ("seat" not in line or line["seat"] not in line["to"])
        ):
            return []  # the others' copy of a private fact, told whole by its other half
        begun: list[str] = []
        told_hand = None if self._hand is None else self._hand.number
        if line["type"] != "hand" and line["hand"] != told_hand:
            # a stream without hand lines (a live table's events): the hand begins here
            begun = [*self._close(), "", f"── hand {line['hand'] + 1} ──"]
            self._hand = _Hand(line["hand"])
        return begun + list(self._tell(line))

    def _tell(self, line: Line) -> Iterable[str]:
        """The text of one line (a hand's, the deal's or an event's)."""
        match line["type"]:
            case "header" | "action":
                return ()  # told by _feed
            case "hand":
                return self._on_hand(line)
            case "dealt":
                return self._on_dealt(line)
            case "deal":
                return self._on_deal(line)
            case "declare":
                return self._on_declare(line)
            case "fry":
                return self._on_fry(line)
            case "pass":
                return self._on_pass(line)
            case "dealer":
                return self._on_dealer(line)
            case "kitty":
                return self._on_kitty(line)
            case "took_kitty":
                return self._on_took_kitty(line)
            case "bury":
                return self._on_bury(line)
            case "buried":
                return self._on_buried(line)
            case "redeal":
                return self._on_redeal(line)
            case "kitty_turned":
                return self._on_kitty_turned(line)
            case "reveal":
                return self._on_reveal(line)
            case "trump":
                return self._on_trump(line)
            case "play":
                return self._on_play(line)
            case "trick":
                return self._on_trick(line)
            case "hand_over":
                return self._on_hand_over(line)
            case other:
                assert_never(other)

    def close(self) -> list[str]:
        """What is still held (the auction or the tricks of a hand cut short)."""
        return [visible(text) for text in self._close()]

    def _close(self) -> list[str]:
        hand = self._hand
        if hand is None:
            return []
        out = self._flush_auction()
        if hand.plays:  # the match ended inside a trick
            text = " │ ".join([*hand.plays, "(the game ended here)"])
            out += self._wrap(text, indent=f"{hand.trick:>3}. ")
        out += self._flush_notes()
        self._hand = None
        return out

    def _header(self, header: Header) -> list[str]:
        title = header.get("game") or header.get("table") or "game"
        bits = [f"preset {header['preset']}"]
        if header["date"]:
            bits.append(header["date"])
        out = [f"{title} · {' · '.join(bits)}"]
        out += self.seats()
        out += self._wrap("result: " + _result_text(header), indent="")
        if self.seat is not None:
            out.append(f"as seat {self.seat} saw it")
        return out

    def _on_hand(self, line: HandLine) -> Iterator[str]:
        yield from self._close()
        self._hand = _Hand(line["hand"], dealer=line["dealer"])
        level = line["level"] if line["level"] is not None else "none (扛旗)"
        dealer = "decided by declaring" if line["dealer"] is None else self._name(line["dealer"])
        progress = " : ".join(str(p) for p in line["progress"])
        yield ""
        number = line["hand"] + 1
        yield from self._wrap(
            f"── hand {number} · level {level} · dealer {dealer} · progress {progress} ──",
            indent="",
        )

    def _hand_rows(self, hands: Sequence[str], kitty: str | None) -> Iterator[str]:
        for seat, cards in enumerate(hands):
            yield from self._wrap(spaced(cards), indent=f"  {self._name(seat):<12.12} ")
        if kitty is not None:
            yield from self._wrap(spaced(kitty), indent=f"  {'kitty':<12} ")

    def _on_dealt(self, line: DealtLine) -> Iterator[str]:
        yield "dealt:"
        yield from self._hand_rows(line["hands"], line["kitty"] or None)

    def _on_deal(self, line: DealLine) -> Iterator[str]:
        hand = self._hand
        if hand is None or self.seat is None or line["seat"] != self.seat:
            return
        hand.dealt[self.seat].extend(line["cards"].split())
        cards = " ".join(hand.dealt[self.seat])
        if len(parse_cards(cards)) == 25 and not hand.shown:
            hand.shown = True
            yield f"dealt to {self._name(self.seat)}:"
            yield from self._wrap(spaced(cards))

    def _on_declare(self, line: DeclareLine) -> list[str]:
        bid = line["bid"] if line["bid"] is not None else "(hidden)"
        self._say(f"{self._name(line['seat'])} declares {bid}{self._turn(line['seat'])}")
        return []

    def _on_fry(self, line: FryLine) -> list[str]:
        bid = line["bid"] if line["bid"] is not None else "(hidden)"
        self._say(f"{self._name(line['seat'])} fries {bid}{self._turn(line['seat'])}")
        return []

    def _on_pass(self, line: PassLine) -> list[str]:
        self._turn(line["seat"])
        hand = self._hand
        if hand is None:
            return []
        if hand.passes:
            hand.auction.pop()
        hand.passes.append(line["seat"])
        seats = hand.passes
        if len(seats) <= 4:
            hand.auction.append(f"{', '.join(str(s) for s in seats)} pass")
        else:
            hand.auction.append(f"{len(seats)} passes")
        return []

    def _say(self, text: str) -> list[str]:
        if self._hand is not None:
            self._hand.auction.append(text)
            self._hand.passes = []
        return []

    def _on_dealer(self, line: DealerLine) -> list[str]:
        if self._hand is not None:
            self._hand.dealer = line["seat"]
        return self._say(f"{self._name(line['seat'])} deals")

    def _on_kitty(self, line: KittyLine) -> list[str]:
        return self._say(f"{line['seat']} takes the kitty {line['cards']}")

    def _on_took_kitty(self, line: TookKittyLine) -> list[str]:
        return self._say(f"{line['seat']} takes the kitty")

    def _on_bury(self, line: BuryLine) -> list[str]:
        return self._say(f"{line['seat']} buries {line['cards']}{self._turn(line['seat'])}")

    def _on_buried(self, line: BuriedLine) -> list[str]:
        return self._say(f"{line['seat']} buries 8 cards")

    def _on_redeal(self, line: RedealLine) -> list[str]:
        self._say(f"nobody declared: redeal {line['redeals']}")
        if self._hand is not None:
            self._hand.dealt = [[], [], [], []]
            self._hand.shown = False
        return []

    def _on_kitty_turned(self, line: KittyTurnedLine) -> list[str]:
        trump = line["suit"] or "no-trump"
        return self._say(f"nobody declared: the kitty is turned, {line['cards']}: {trump}")

    def _on_reveal(self, line: RevealLine) -> list[str]:
        bids = [f"{b['seat']} {b['bid']}{'' if b['stood'] else ' (failed)'}" for b in line["bids"]]
        return self._say("bids shown: " + ", ".join(bids))

    def _flush_auction(self) -> list[str]:
        hand = self._hand
        if hand is None or not hand.auction:
            return []
        out = ["auction:", *self._wrap(" · ".join(hand.auction))]
        hand.auction = []
        hand.passes = []
        return out

    def _flush_notes(self) -> list[str]:
        hand = self._hand
        if hand is None or not hand.notes:
            return []
        out: list[str] = []
        for note in hand.notes:
            out += self._wrap(f"» {note}", indent="      ", more="        ")
        hand.notes = []
        return out

    def _on_trump(self, line: TrumpLine) -> Iterator[str]:
        yield from self._flush_auction()
        yield from self._flush_notes()
        if self._hand is not None:
            self._hand.dealer = line["dealer"]
        suit = line["suit"] or "no-trump"
        level = line["level"] or "none (扛旗)"
        yield f"trump {suit}, level {level}; {self._name(line['dealer'])} leads"

    def _on_play(self, line: PlayLine) -> list[str]:
        hand = self._hand
        if hand is None:
            return []
        hand.trick = line["trick"]
        text = f"{line['seat']} {spaced(line['cards'])}"
        if "attempted" in line:
            throw = spaced(line["attempted"])
            text += f" (threw {throw}: failed, defenders {line.get('penalty', 0):+d})"
            hand.defenders = line.get("defenders")
        hand.plays.append(text + self._turn(line["seat"]))
        return []

    def _on_trick(self, line: TrickLine) -> Iterator[str]:
        hand = self._hand
        if hand is None:
            return
        hand.defenders = line.get("defenders")
        so_far = "" if hand.defenders is None else f" (defenders {hand.defenders})"
        won = f"→ {line['seat']} +{line['points']}{so_far}"
        yield from self._wrap(" │ ".join([*hand.plays, won]), indent=f"{line['trick']:>3}. ")
        hand.plays = []
        yield from self._flush_notes()

    def _on_hand_over(self, line: HandOverLine) -> Iterator[str]:
        yield from self._flush_auction()
        yield from self._flush_notes()
        score = line["score"]
        parts = [f"tricks {score['trick_points']}"]
        if score["kitty_multiplier"]:
            parts.append(f"kitty {score['kitty_points']}×{score['kitty_multiplier']}")
        for value, label in (
            (score["throw_penalty"], "throws"),
            (score["fry_penalty"], "fries"),
            (score["red_five"], "red fives"),
        ):
            if value:
                parts.append(f"{label} {value:+d}")
        told = ", ".join(parts)
        if score.get("floored"):  # 001 §4.1 「台下罚分罚至0分为止」: the parts sum below 0
            told += "; floored at 0"
        progress = " : ".join(str(p) for p in line["progress"])
        # the 扛旗 hand deals every card: 「不留底牌」
        yield f"kitty buried: {spaced(line['kitty'])}" if line["kitty"] else "no kitty"
        yield from self._wrap(
            f"hand {line['hand'] + 1}: defenders {line['total']} ({told}); "
            f"{line['note']}; progress {progress}; next dealer {line['next_dealer']}",
            indent="",
        )
        if self.seat is not None or self.spectator:
            yield "every hand, as dealt:"
            yield from self._hand_rows(line["dealt"], None)
        self._hand = None


def transcript(
    lines: Iterable[Line],
    *,
    seat: int | None = None,
    hand: int | None = None,
    width: int = 80,
    times: bool = False,
) -> list[str]:
    """A whole record's transcript, as text lines (see :class:`Transcript`)."""
    if seat is not None:
        lines = seat_view(lines, seat)
    teller = Transcript(seat=seat, hand=hand, width=width, times=times)
    out: list[str] = []
    for line in lines:
        out += teller.feed(line)
    return out + teller.close()


def match_transcript(match: Match, *, width: int = 80, held: bool = True) -> list[str]:
    """A match so far as a spectator at the table sees it (:func:`spectator_view`), hand by
    hand, and its result once it is over (the RL environment's ``render()``). ``held``: the
    text still held (the auction or the trick under way) too; without it, only the lines
    that stay as they are whatever comes next.

    >>> import random
    >>> from chaodipi.engine import PRESETS, Match
    >>> match, rng = Match(PRESETS["classic"], seed=2, max_hands=1), random.Random(2)
    >>> for _ in range(12):
    ...     match.apply(match.to_play, match.legal_actions().sample(rng))
    >>> match_transcript(match)[0]
    '── hand 1 · level 2 · dealer decided by declaring · progress 0 : 0 ──'
    """
    header = next(record_lines(match))  # its result is the match's only once it is over
    assert header["type"] == "header"
    teller = Transcript(width=width, spectator=True)
    teller.header = header
    out: list[str] = []
    for line in spectator_view(news(match, LineMaker(), 0)):  # from the log as it is
        out += teller.feed(line)
    if held or match.over:
        out += teller.close()
    if match.over:
        out.append(visible("match over: " + _result_text(header)))
    return out[1:] if out[:1] == [""] else out  # no blank line before the first hand's
