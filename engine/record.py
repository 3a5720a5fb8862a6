"""The game record: a whole match as JSON lines a person, a viewer and the engine can read.

A record (format :data:`RECORD_FORMAT`, documented in ``docs/game-record.md`` and checked by the
JSON Schema :func:`record_schema`) is a header line, then one line per thing that happened, in
order: every event of the match's log (each with the seats that saw it, ``to``, when not all
four), every action with who took it and how (the time the bot took, its strikes, its note),
a ``hand`` line as each hand begins and a ``dealt`` line with the four hands and the kitty once
the deal is complete. Cards are written sorted, as :func:`chaodipi.engine.cards.format_cards`
prints them (``♠AK ♥5 LJ BJ``), bids as :class:`chaodipi.engine.bidding.Bid` prints them,
actions as :func:`chaodipi.engine.actions.parse_action` reads them.

The engine makes the event lines (:func:`record_lines`, :class:`LineMaker`); the arena gives
what only it knows (the bots' names, the date, how the game ended, each decision's clock).
:func:`replay_record` plays a record's actions through the engine again and checks that every
line comes out the same.

>>> import random
>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> match = Match(PRESETS["hefei"], seed=11, max_hands=1)
>>> rng = random.Random(1)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> lines = list(record_lines(match, bots=("a", "b", "a", "b")))
>>> lines[0]["format"], lines[0]["result"]["ending"], lines[1]["type"]
('chaodipi-record/1', 'played out', 'hand')
>>> again = replay_record(lines)
>>> again.records == match.records
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from typing import Any

from chaodipi.engine.actions import parse_action
from chaodipi.engine.bidding import Bid
from chaodipi.engine.cards import DECK, Card, Rank, Suit, format_cards
from chaodipi.engine.errors import ReplayError
from chaodipi.engine.events import (
    EVERYONE,
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Event,
    Fried,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.match import Ending, Match
from chaodipi.engine.presets import Preset, preset

__all__ = [
    "FORCED",
    "NOTE_MAX_BYTES",
    "RECORD_FORMAT",
    "Decision",
    "GameEnd",
    "LineMaker",
    "cards_text",
    "dump_lines",
    "load_lines",
    "preset_options",
    "record_lines",
    "record_schema",
    "replay_record",
]

RECORD_FORMAT = "chaodipi-record/1"
"""The format's name and version: a reader refuses another (``docs/game-record.md``)."""

NOTE_MAX_BYTES = 256
"""A bot's note is at most this many bytes of UTF-8 (longer ones are cut by the table)."""

Line = dict[str, Any]

JSON_SPACE = " \t\r"
"""The whitespace JSON allows around a value on a line (a line of nothing else is skipped)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """How one action was taken, as the table saw it (what the action alone does not say).

    ``asked`` False: the seat had one legal action and the table played it without asking
    (nothing else is then meaningful). Otherwise ``ms`` is the time from the Decision to the
    accepted answer (or to the timeout), ``timed_out`` that the table played the default,
    ``strikes`` the seat's strikes after it, ``refused`` the answers refused before the one
    taken, ``note`` the bot's note on its answer ('' for none), and ``fallback`` that the
    bot's kit chose the answer for it (the protocol's ``Answer.fallback``)."""

    asked: bool = True
    ms: int = 0
    timed_out: bool = False
    strikes: int = 0
    refused: int = 0
    note: str = ""
    fallback: bool = False
    cursor: int | None = None
    """The match log's cursor just before the action (``match.log.cursor``), when the table
    noted it: the record is then made from the log as it is, without playing the match
    again."""


FORCED = Decision(asked=False)
"""An action the table took for a seat with nothing to choose (``replace(FORCED,
cursor=…)`` notes the log's cursor)."""


@dataclass(frozen=True, slots=True)
class GameEnd:
    """How the game ended, as the arena saw it: ``winner`` is a team (None: undecided or a
    draw), ``forfeited_by`` the seat whose team forfeited."""

    ending: Ending
    reason: str
    winner: int | None
    forfeited_by: int | None = None
    reward: int = 0


def cards_text(cards: Iterable[int]) -> str:
    """Cards as a record writes them: sorted, then printed (``♠AK ♥5 BJ``); '' for none."""
    return format_cards(sorted(cards))


def _bid(bid: Bid | None) -> str | None:
    return None if bid is None else str(bid)


def _suit(suit: Suit | None) -> str | None:
    return None if suit is None else suit.symbol


def _rank(rank: Rank | None) -> str | None:
    return None if rank is None else str(rank)


def preset_options(rules: Preset) -> dict[str, Any]:
    """Every option of a preset, as plain JSON values (enums by value)."""
    groups = {
        "card": asdict(rules.card),
        "bid": asdict(rules.bid),
        "score": asdict(rules.score),
        "match": asdict(rules.match),
    }
    plain: dict[str, Any] = json.loads(json.dumps(groups))
    return plain


class LineMaker:
    """Turns a match's events, in order, into record lines; keeps what a line needs from
    earlier ones (the trick's number, the cards dealt so far, the teams' progress).

    Feed it every event of the log (the referee's view), or only one seat's: the lines are the
    same for what it is given."""

    def __init__(self) -> None:
        self._hand = -1
        self._trick = 1
        self._dealt: list[list[Card]] = [[], [], [], []]

    def start_hand(
        self, number: int, level: Rank | None, dealer: int | None, progress: Sequence[int]
    ) -> Line:
        """The ``hand`` line: hand ``number`` begins at ``level``, dealt by ``dealer`` (None:
        the first hand's dealer is decided by the declaring)."""
        self._hand = number
        self._trick = 1
        self._dealt = [[], [], [], []]
        return {
            "type": "hand",
            "hand": number,
            "level": _rank(level),
            "dealer": dealer,
            "progress": list(progress),
        }

    def lines(self, event: Event) -> list[Line]:
        """The line of ``event`` (and the ``dealt`` line after the packet that ends a deal)."""
        payload = event.payload
        line: Line = {"type": event.kind.value, "seq": event.seq, "hand": event.hand}
        if event.audience != EVERYONE:
            line["to"] = sorted(event.audience)
        if payload.seat is not None:
            line["seat"] = payload.seat
        after: list[Line] = []
        match payload:
            case Dealt(seat=seat, cards=cards):
                line["cards"] = cards_text(cards)
                self._dealt[seat].extend(cards)
                if sum(len(d) for d in self._dealt) == len(DECK) - 8:
                    after.append(self._deal_complete(event.hand))
            case Declared(bid=bid) | Fried(bid=bid):
                line["bid"] = _bid(bid)
            case Passed(stage=stage):
                line["stage"] = stage.value
            case KittyTaken(cards=cards) | BuriedCards(cards=cards):
                line["cards"] = cards_text(cards)
            case DealerFixed() | TookKitty() | Buried():
                pass
            case Redealt(redeals=redeals):
                line["redeals"] = redeals
                self._dealt = [[], [], [], []]
            case KittyTurned(cards=cards, suit=suit):
                line["cards"] = cards_text(cards)
                line["suit"] = _suit(suit)
            case BidsRevealed(bids=bids):
                line["bids"] = [
                    {"seat": b.seat, "bid": str(b.bid), "stage": b.stage.value, "stood": b.stood}
                    for b in bids
                ]
            case TrumpFixed(level=level, suit=suit, dealer=dealer):
                line.update(level=_rank(level), suit=_suit(suit), dealer=dealer)
            case Played(cards=cards, attempted=attempted, penalty=penalty):
                line["trick"] = self._trick
                line["cards"] = cards_text(cards)
                if attempted is not None:
                    line["attempted"] = cards_text(attempted)
                    line["penalty"] = penalty
            case TrickWon(points=points):
                line["trick"] = self._trick
                line["points"] = points
                self._trick += 1
            case HandOver() as over:
                result = over.result
                line.update(
                    total=over.total,
                    kitty=cards_text(over.kitty),
                    dealt=[cards_text(cards) for cards in over.dealt],
                    progress=list(over.progress),
                    next_dealer=over.next_dealer,
                    note=over.note,
                    score={
                        "dealer": result.dealer,
                        "trick_points": result.trick_points,
                        "kitty_points": result.kitty_points,
                        "kitty_multiplier": result.kitty_multiplier,
                        "throw_penalty": result.throw_penalty,
                        "fry_penalty": result.fry_penalty,
                        "red_five": result.red_five,
                        "heaven_earth": None
                        if result.heaven_earth is None
                        else result.heaven_earth.value,
                        "last_winner": result.last_winner,
                        "shut_out": result.shut_out,
                        "floored": result.floored,
                    },
                )
        return [line, *after]

    def _deal_complete(self, hand: int) -> Line:
        """The ``dealt`` line: the four hands as dealt, and the kitty (the cards left)."""
        left = list(DECK)
        for cards in self._dealt:
            for card in cards:
                left.remove(card)
        return {
            "type": "dealt",
            "hand": hand,
            "hands": [cards_text(cards) for cards in self._dealt],
            "kitty": cards_text(left),
        }


def _action_line(hand: int, seat: int, action: str, decision: Decision | None) -> Line:
    line: Line = {"type": "action", "hand": hand, "seat": seat, "action": action}
    if decision is not None:
        line["asked"] = decision.asked
        if decision.asked:
            line.update(
                ms=decision.ms,
                timeout=decision.timed_out,
                strikes=decision.strikes,
                refused=decision.refused,
                fallback=decision.fallback,
            )
            if decision.note:
                line["note"] = decision.note
    return line


def _header(
    match: Match,
    bots: Sequence[str],
    end: GameEnd | None,
    date: str,
    about: Mapping[str, Any],
) -> Line:
    if end is None:
        over = match.over
        end = GameEnd(
            Ending.PLAYED_OUT if over else Ending.STOPPED,
            "played to the end" if over else "not finished",
            match.winner,
            reward=match.reward,
        )
    header: Line = {
        "type": "header",
        "format": RECORD_FORMAT,
        "engine": _engine_version(),
        "preset": match.preset.name,
        "options": preset_options(match.preset),
        "seed": match.seed,
        "max_hands": match.max_hands,
        "date": date,
        "bots": [{"seat": s, "team": s % 2, "name": name} for s, name in enumerate(bots)],
        "result": {
            "ending": end.ending.value,
            "reason": end.reason,
            "winner": end.winner,
            "forfeited_by": end.forfeited_by,
            "reward": end.reward,
            "hands": len(match.records),
            "progress": list(match.progress),
        },
    }
    header.update(about)
    return header


def _engine_version() -> str:
    from chaodipi.engine import __version__

    return __version__


def record_lines(
    match: Match,
    decisions: Sequence[Decision] | None = None,
    *,
    bots: Sequence[str] = ("", "", "", ""),
    end: GameEnd | None = None,
    date: str = "",
    about: Mapping[str, Any] | None = None,
) -> Iterator[Line]:
    """The record of ``match`` (played or stopped), line by line: the header, then every hand,
    event and action in order. ``decisions``: one per action of ``match.actions`` (None: the
    actions carry no clock). ``bots``: the name of each seat's bot; ``end``: how the arena
    ended the game (default: as the match stands); ``date``: when (ISO 8601); ``about``: more
    header fields (``game``, ``deal``, ``table``, ``clock``: ``docs/game-record.md``)."""
    actions = match.actions
    if decisions is not None and len(decisions) != len(actions):
        raise ValueError(f"{len(decisions)} decisions for {len(actions)} actions")
    if len(bots) != 4:
        raise ValueError(f"a record names 4 bots, one per seat, not {len(bots)}")
    yield _header(match, bots, end, date, about or {})
    if decisions is not None and all(d.cursor is not None for d in decisions):
        yield from _from_log(match, decisions)
        return
    shadow = Match(match.preset, match.seed, match.max_hands)
    maker = LineMaker()
    yield from _news(shadow, maker, 0, -1)
    for index, (seat, action) in enumerate(actions):
        hand = shadow.number
        yield _action_line(hand, seat, str(action), None if decisions is None else decisions[index])
        cursor = shadow.log.cursor
        shadow.push(seat, action)
        yield from _news(shadow, maker, cursor, hand)


def _from_log(match: Match, decisions: Sequence[Decision]) -> Iterator[Line]:
    """The lines after the header, from ``match``'s log as it is: each action goes after the
    events up to the cursor its decision noted (the same lines as playing it again)."""
    maker = LineMaker()
    events = match.log.all_since(0)
    done = 0  # events told so far
    hand = -1  # the hand of the last event told
    for (seat, action), decision in zip(match.actions, decisions, strict=True):
        assert decision.cursor is not None
        upto = decision.cursor
        yield from _lines(match, maker, events[done:upto], hand)
        if upto > done:
            hand = events[upto - 1].hand
            done = upto
        yield _action_line(max(hand, 0), seat, str(action), decision)
    yield from _lines(match, maker, events[done:], hand)


def _lines(match: Match, maker: LineMaker, events: Sequence[Event], hand: int) -> Iterator[Line]:
    """The lines of ``events`` (``hand``: that of the event before them), with a ``hand``
    line for each hand begun (``match`` says how it began)."""
    for event in events:
        if event.hand != hand:
            hand = event.hand
            yield maker.start_hand(hand, _level_of(match, hand), *_start_of(match, hand))
        yield from maker.lines(event)


def _news(shadow: Match, maker: LineMaker, cursor: int, hand: int) -> Iterator[Line]:
    """The lines of the events after ``cursor``, and a ``hand`` line for a hand begun."""
    return _lines(shadow, maker, shadow.log.all_since(cursor), hand)


def _level_of(match: Match, hand: int) -> Rank | None:
    if hand < len(match.records):
        return match.records[hand].level
    return match.hand.level


def _start_of(match: Match, hand: int) -> tuple[int | None, tuple[int, int]]:
    """Who was to deal hand ``hand`` (None: decided by declaring), and the progress then."""
    if hand == 0:
        return None, (0, 0)
    before = match.records[hand - 1]
    return before.next_dealer, before.progress_after


def dump_lines(lines: Iterable[Line]) -> str:
    """Lines as the record's text: one compact JSON object per line, UTF-8 kept."""
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )


def load_lines(text: str) -> list[Line]:
    """A record's text back into its lines; :class:`ReplayError` names the first bad line.

    Lines end at ``\n`` alone: a note or a name may hold U+2028, U+0085 or another character
    ``str.splitlines`` would break at, which JSON writes as it is inside a string.

    >>> header = {"type": "header", "format": RECORD_FORMAT, "note": "a\\u2028b\\x85"}
    >>> load_lines(dump_lines([header])) == [header]
    True
    """
    lines: list[Line] = []
    for number, row in enumerate(text.split("\n"), start=1):
        if not row.strip(JSON_SPACE):
            continue
        try:
            line = json.loads(row)
        except RecursionError:
            raise ReplayError(f"line {number} is not JSON: nested too deep") from None
        except ValueError as err:  # not JSON, or a number of more digits than int() reads
            raise ReplayError(f"line {number} is not JSON: {err}") from None
        if not isinstance(line, dict) or not isinstance(line.get("type"), str):
            raise ReplayError(f"line {number} is not a record line (an object with a type)")
        lines.append(line)
    if not lines or lines[0]["type"] != "header":
        raise ReplayError("a record starts with its header line")
    if lines[0].get("format") != RECORD_FORMAT:
        raise ReplayError(
            f"not a {RECORD_FORMAT} record (its format is {lines[0].get('format')!r})"
        )
    return lines


@cache
def record_schema() -> dict[str, Any]:
    """The JSON Schema of one record line (``record.schema.json``, shipped with the engine)."""
    text = resources.files("chaodipi.engine").joinpath("record.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def replay_record(lines: Sequence[Line]) -> Match:
    """Play a record's actions through the engine again, each checked, and compare every line
    the engine makes with the record's; :class:`ReplayError` at the first difference. Returns
    the match as the record leaves it."""
    if not lines or lines[0].get("format") != RECORD_FORMAT:
        raise ReplayError(f"not a {RECORD_FORMAT} record")
    header = lines[0]
    try:
        rules = preset(header["preset"])
    except ValueError as err:
        raise ReplayError(str(err)) from None
    if header.get("options") != preset_options(rules):
        raise ReplayError(
            f"the record was played under other rules than this engine's preset {rules.name!r}"
        )
    match = Match(rules, header["seed"], header.get("max_hands"))
    maker = LineMaker()
    position = 1
    for made in _news(match, maker, 0, -1):
        position = _expect(lines, position, made)
    while position < len(lines):
        line = lines[position]
        if line.get("type") != "action":
            raise ReplayError(f"line {position + 1}: the engine makes no {line.get('type')!r} here")
        if match.over:
            raise ReplayError(f"line {position + 1}: an action after the match's end")
        hand, cursor = match.number, match.log.cursor
        try:
            action = parse_action(str(line["action"]), match.hand.level, rules.card)
            match.apply(int(line["seat"]), action)
        except (KeyError, ValueError) as err:
            raise ReplayError(f"line {position + 1}: {line.get('action')!r}: {err}") from None
        if line.get("hand") != hand:
            raise ReplayError(
                f"line {position + 1}: an action of hand {hand}, not {line.get('hand')}"
            )
        position += 1
        for made in _news(match, maker, cursor, hand):
            position = _expect(lines, position, made)
    _check_result(header, match)
    return match


def _expect(lines: Sequence[Line], position: int, made: Line) -> int:
    if position >= len(lines):
        raise ReplayError(f"the record ends where the engine has a {made['type']!r} line")
    got = lines[position]
    if got != made:
        raise ReplayError(f"line {position + 1}: recorded {got}, the engine makes {made}")
    return position + 1


def _check_result(header: Line, match: Match) -> None:
    result = header.get("result", {})
    if result.get("hands") != len(match.records):
        raise ReplayError(
            f"the header says {result.get('hands')} hands, the record plays {len(match.records)}"
        )
    if (
        result.get("ending") == Ending.PLAYED_OUT.value
        and match.over
        and (result.get("winner") != match.winner or result.get("progress") != list(match.progress))
    ):
        raise ReplayError(
            f"the header says team {result.get('winner')} won at {result.get('progress')}; "
            f"replayed, team {match.winner} wins at {list(match.progress)}"
        )
