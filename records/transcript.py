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

Every line's words are :mod:`chaodipi.records.words`' (the viewer's too); this module lays
them out.

>>> lines = [{"type": "trump", "seq": 7, "hand": 0, "level": "2", "suit": "♠", "dealer": 1}]
>>> teller = Transcript()
>>> teller.feed(lines[0])[-1]
'trump ♠, level 2; seat 1 leads'
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import assert_never
from unicodedata import east_asian_width

from chaodipi.engine import Match, parse_cards
from chaodipi.records.lines import (
    ActionLine,
    BuryLine,
    DealerLine,
    DealLine,
    DealtLine,
    DeclareLine,
    FryLine,
    HandLine,
    HandOverLine,
    Header,
    Line,
    LiveHeader,
    PassLine,
    PlayLine,
    RedealLine,
    TrickLine,
    TrumpLine,
)
from chaodipi.records.making import LineMaker, news, outcome_of, record_lines
from chaodipi.records.text import visible
from chaodipi.records.words import (
    seat_names,
    sentence,
    spaced,
    team_name,
    throw_words,
    turn_words,
)

__all__ = ["Transcript", "match_transcript", "seat_view", "spectator_view", "transcript"]


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


def _result_text(header: Header) -> str:
    names = seat_names(header)
    return outcome_of(header["result"]).said(lambda team: team_name(team, names))


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
        names = seat_names(self.header)
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
        """What to say of how ``seat`` took its last action (its words, :func:`turn_words`:
        the time with ``times``, a strike, refusals, a fallback), nothing for a forced one;
        its note goes to the notes."""
        action = self._pending.pop(seat, None)
        if action is None or not action.get("asked"):
            return ""
        note = action.get("note")
        if note and self._hand is not None:
            self._hand.notes.append(f"{self._name(seat)}: {visible(note)}")
        words = turn_words(action, time=self.times)
        return f" ({words})" if words else ""

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
            case "declare" | "fry":
                return self._on_bid(line)
            case "pass":
                return self._on_pass(line)
            case "dealer":
                return self._on_dealer(line)
            case "bury":
                return self._on_bury(line)
            case "redeal":
                return self._on_redeal(line)
            case "kitty" | "took_kitty" | "buried" | "kitty_turned" | "reveal":
                return self._say(sentence(line, self._name))
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
        yield ""
        yield from self._wrap(f"── {sentence(line, self._name)} ──", indent="")

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

    def _on_bid(self, line: DeclareLine | FryLine) -> list[str]:
        """A declaration or a fry, with how its seat took it."""
        return self._say(sentence(line, self._name) + self._turn(line["seat"]))

    def _on_pass(self, line: PassLine) -> list[str]:
        """Passes in a row are told as one item of the auction (``3, 0, 1 pass``)."""
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
        """Add ``text`` to the auction (told as one paragraph when the card play begins)."""
        if self._hand is not None:
            self._hand.auction.append(text)
            self._hand.passes = []
        return []

    def _on_dealer(self, line: DealerLine) -> list[str]:
        if self._hand is not None:
            self._hand.dealer = line["seat"]
        return self._say(sentence(line, self._name))

    def _on_bury(self, line: BuryLine) -> list[str]:
        return self._say(sentence(line, self._name) + self._turn(line["seat"]))

    def _on_redeal(self, line: RedealLine) -> list[str]:
        self._say(sentence(line, self._name))
        if self._hand is not None:
            self._hand.dealt = [[], [], [], []]
            self._hand.shown = False
        return []

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
        yield sentence(line, self._name)

    def _on_play(self, line: PlayLine) -> list[str]:
        """A play, in the trick's row: the seat's number and its cards (a trick's row is a
        score sheet's, its words the failed throw's)."""
        hand = self._hand
        if hand is None:
            return []
        hand.trick = line["trick"]
        text = f"{line['seat']} {spaced(line['cards'])}"
        throw = throw_words(line)
        if throw:
            text += f" ({throw})"
            hand.defenders = line.get("defenders")
        hand.plays.append(text + self._turn(line["seat"]))
        return []

    def _on_trick(self, line: TrickLine) -> Iterator[str]:
        """A trick's row: its plays, then ``→`` its winner, the points it took and the
        defenders' points so far."""
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
        # the 扛旗 hand deals every card: 「不留底牌」
        yield f"kitty buried: {spaced(line['kitty'])}" if line["kitty"] else "no kitty"
        yield from self._wrap(sentence(line, self._name), indent="")
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
