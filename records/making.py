"""Making a game record: the lines of a match, from its log and how each action was taken.

The engine's match gives the events; the arena gives what only it knows (the bots' names, the
date, how the game ended, each turn's clock): :func:`record_lines` makes the whole record,
:class:`LineMaker` the lines of events one at a time (a live table's, a seat's). Cards are
written sorted, as :func:`chaodipi.engine.format_cards` prints them (``♠AK ♥5 LJ BJ``), bids as
:class:`chaodipi.engine.Bid` prints them, actions as :func:`chaodipi.engine.parse_action`
reads them.

>>> import random
>>> from chaodipi.engine import PRESETS, Match
>>> match = Match(PRESETS["hefei"], seed=11, max_hands=1)
>>> rng = random.Random(1)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> lines = list(record_lines(match, bots=("a", "b", "a", "b")))
>>> lines[0]["type"] == "header" and (lines[0]["format"], lines[0]["result"]["ending"])
('chaodipi-record/1', 'played out')
>>> lines[1]["type"]
'hand'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Literal, assert_never, cast

from chaodipi.engine import (
    DECK,
    EVERYONE,
    Bid,
    BidsRevealed,
    Buried,
    BuriedCards,
    Card,
    DealerFixed,
    Dealt,
    Declared,
    Ending,
    Event,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    Match,
    Outcome,
    Passed,
    Phase,
    Played,
    Preset,
    Rank,
    Redealt,
    Suit,
    TookKitty,
    TrickWon,
    TrumpFixed,
    format_cards,
    same_team,
)
from chaodipi.records.lines import (
    RECORD_FORMAT,
    ActionLine,
    DealtLine,
    EventLine,
    HandLine,
    Header,
    Line,
    Options,
    Result,
)

__all__ = [
    "FORCED",
    "LineMaker",
    "Turn",
    "cards_text",
    "news",
    "now",
    "outcome_of",
    "preset_options",
    "record_lines",
]


@dataclass(frozen=True, slots=True)
class Turn:
    """How one action was taken, as the table saw it (what the action alone does not say).

    ``asked`` False: the seat had one legal action and the table played it without asking
    (nothing else is then meaningful). Otherwise ``ms`` is the time from the Decision to the
    accepted answer (or until its clock ran out), ``struck`` that the clock ran out and the
    table played the default (a strike; the record's ``timeout``), ``strikes`` the seat's
    strikes after it, ``refused`` the answers refused before the one taken, ``note`` the bot's
    note on its answer ('' for none), and ``fallback`` that the bot's kit chose the answer for
    it (the protocol's ``Answer.fallback``)."""

    asked: bool = True
    ms: int = 0
    struck: bool = False
    strikes: int = 0
    refused: int = 0
    note: str = ""
    fallback: bool = False
    cursor: int | None = None
    """The match log's cursor just before the action (``match.log.cursor``), when the table
    noted it: the record is then made from the log as it is, without playing the match
    again."""


FORCED = Turn(asked=False)
"""An action the table took for a seat with nothing to choose (``replace(FORCED,
cursor=…)`` notes the log's cursor)."""


def now() -> str:
    """The time now as a record's ``date``: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def cards_text(cards: Iterable[int]) -> str:
    """Cards as a record writes them: sorted, then printed (``♠AK ♥5 BJ``); '' for none."""
    return format_cards(sorted(cards))


def _bid(bid: Bid | None) -> str | None:
    return None if bid is None else str(bid)


def _suit(suit: Suit | None) -> str | None:
    return None if suit is None else suit.symbol


def _rank(rank: Rank | None) -> str | None:
    return None if rank is None else str(rank)


def _stage(phase: Phase) -> Literal["declare", "fry"]:
    """A bid's or a pass's stage: declaring or frying (no other phase has bids)."""
    match phase:
        case Phase.DECLARE:
            return "declare"
        case Phase.FRY:
            return "fry"
        case Phase.BURY | Phase.PLAY | Phase.OVER:
            raise ValueError(f"no bid or pass is made in the {phase.value} phase")
        case _:
            assert_never(phase)


def preset_options(rules: Preset) -> Options:
    """Every option of a preset, as plain JSON values (enums by value)."""
    groups = {
        "card": asdict(rules.card),
        "bid": asdict(rules.bid),
        "score": asdict(rules.score),
        "match": asdict(rules.match),
    }
    plain: Options = json.loads(json.dumps(groups))
    return plain


class LineMaker:
    """Turns a match's events, in order, into record lines; keeps what a line needs from
    earlier ones (the trick's number, the cards dealt so far, the defenders' points).

    Feed it every event of the log (the referee's view), or only one seat's: the lines are the
    same for what it is given."""

    def __init__(self) -> None:
        self._hand = -1
        self._trick = 1
        self._dealt: list[list[Card]] = [[], [], [], []]
        self._dealer: int | None = None
        self._defenders = 0

    def _begin_hand(self, seq: int, begun: HandBegun, number: int) -> HandLine:
        """The ``hand`` line of a :class:`HandBegun` event; what a line keeps from earlier ones
        starts again."""
        self._hand = number
        self._trick = 1
        self._dealt = [[], [], [], []]
        self._dealer = None
        self._defenders = 0
        return {
            "type": "hand",
            "seq": seq,
            "hand": number,
            "level": _rank(begun.level),
            "dealer": begun.dealer,
            "progress": list(begun.progress),
        }

    def lines(self, event: Event) -> list[Line]:
        """The line of ``event`` (and the ``dealt`` line after the packet that ends a deal)."""
        line = self._line(event)
        if event.audience != EVERYONE:
            # ``to`` goes after the hand, as the format writes it
            fields = list(line.items())
            fields.insert(3, ("to", sorted(event.audience)))
            line = cast(EventLine, dict(fields))
        payload = event.payload
        if isinstance(payload, Dealt) and sum(len(d) for d in self._dealt) == len(DECK) - 8:
            return [line, self._deal_complete(event.hand)]
        return [line]

    def _line(self, event: Event) -> EventLine | HandLine:
        seq, hand = event.seq, event.hand
        payload = event.payload
        match payload:
            case HandBegun() as begun:
                return self._begin_hand(seq, begun, hand)
            case Dealt(seat=seat, cards=cards):
                self._dealt[seat].extend(cards)
                return {
                    "type": "deal",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "cards": cards_text(cards),
                }
            case Declared(seat=seat, bid=bid):
                return {"type": "declare", "seq": seq, "hand": hand, "seat": seat, "bid": _bid(bid)}
            case Fried(seat=seat, bid=bid):
                return {"type": "fry", "seq": seq, "hand": hand, "seat": seat, "bid": _bid(bid)}
            case Passed(seat=seat, stage=stage):
                return {
                    "type": "pass",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "stage": _stage(stage),
                }
            case DealerFixed(seat=seat):
                return {"type": "dealer", "seq": seq, "hand": hand, "seat": seat}
            case KittyTaken(seat=seat, cards=cards):
                return {
                    "type": "kitty",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "cards": cards_text(cards),
                }
            case TookKitty(seat=seat):
                return {"type": "took_kitty", "seq": seq, "hand": hand, "seat": seat}
            case BuriedCards(seat=seat, cards=cards):
                return {
                    "type": "bury",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "cards": cards_text(cards),
                }
            case Buried(seat=seat):
                return {"type": "buried", "seq": seq, "hand": hand, "seat": seat}
            case Redealt(redeals=redeals):
                self._dealt = [[], [], [], []]
                return {"type": "redeal", "seq": seq, "hand": hand, "redeals": redeals}
            case KittyTurned(cards=cards, suit=suit):
                return {
                    "type": "kitty_turned",
                    "seq": seq,
                    "hand": hand,
                    "cards": cards_text(cards),
                    "suit": _suit(suit),
                }
            case BidsRevealed(bids=bids):
                return {
                    "type": "reveal",
                    "seq": seq,
                    "hand": hand,
                    "bids": [
                        {
                            "seat": b.seat,
                            "bid": str(b.bid),
                            "stage": _stage(b.stage),
                            "stood": b.stood,
                        }
                        for b in bids
                    ],
                }
            case TrumpFixed(level=level, suit=suit, dealer=dealer):
                self._dealer = dealer
                return {
                    "type": "trump",
                    "seq": seq,
                    "hand": hand,
                    "level": _rank(level),
                    "suit": _suit(suit),
                    "dealer": dealer,
                }
            case Played(seat=seat, cards=cards, attempted=attempted, penalty=penalty):
                if attempted is None:
                    return {
                        "type": "play",
                        "seq": seq,
                        "hand": hand,
                        "seat": seat,
                        "trick": self._trick,
                        "cards": cards_text(cards),
                    }
                self._defenders += penalty
                return {
                    "type": "play",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "trick": self._trick,
                    "cards": cards_text(cards),
                    "attempted": cards_text(attempted),
                    "penalty": penalty,
                    "defenders": self._defenders,
                }
            case TrickWon(seat=seat, points=points):
                trick = self._trick
                self._trick += 1
                if self._dealer is not None and not same_team(seat, self._dealer):
                    self._defenders += points
                return {
                    "type": "trick",
                    "seq": seq,
                    "hand": hand,
                    "seat": seat,
                    "trick": trick,
                    "points": points,
                    "defenders": self._defenders,
                }
            case HandOver() as over:
                result = over.result
                return {
                    "type": "hand_over",
                    "seq": seq,
                    "hand": hand,
                    "total": over.total,
                    "kitty": cards_text(over.kitty),
                    "dealt": [cards_text(cards) for cards in over.dealt],
                    "progress": list(over.progress),
                    "next_dealer": over.next_dealer,
                    "note": over.note,
                    "score": {
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
                }
            case _:
                assert_never(payload)

    def _deal_complete(self, hand: int) -> DealtLine:
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


def _action_line(hand: int, seat: int, action: str, asked: bool, turn: Turn | None) -> ActionLine:
    """An action's line: whether the seat was ``asked``, and the rest of how it was taken
    when a ``turn`` says (a match played without a table has no clock)."""
    line: ActionLine = {
        "type": "action",
        "hand": hand,
        "seat": seat,
        "action": action,
        "asked": asked,
    }
    if turn is not None and turn.asked:
        line["ms"] = turn.ms
        line["timeout"] = turn.struck
        line["strikes"] = turn.strikes
        line["refused"] = turn.refused
        line["fallback"] = turn.fallback
        if turn.note:
            line["note"] = turn.note
    return line


def _header(
    match: Match,
    bots: Sequence[str],
    outcome: Outcome | None,
    date: str,
    about: Mapping[str, Any],
) -> Header:
    if outcome is None:
        outcome = match.outcome() or match.cut_short(Ending.STOPPED, "not finished")
    header: Header = {
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
            "ending": outcome.ending.value,
            "reason": outcome.reason,
            "winner": outcome.winner,
            "forfeited_by": outcome.forfeited_by,
            "reward": outcome.reward,
            "hands": outcome.hands,
            "progress": list(outcome.progress),
        },
    }
    return cast(Header, {**header, **about})


def outcome_of(result: Result) -> Outcome:
    """How the game ended, read back from the header's ``result`` that :func:`record_lines`
    wrote from it.

    >>> from chaodipi.engine import PRESETS
    >>> outcome = Outcome(Ending.FORFEIT, "seat 1 crashed", 0, 3, (4, 2), forfeited_by=1)
    >>> header = next(record_lines(Match(PRESETS["classic"], 1), outcome=outcome))
    >>> outcome_of(header["result"]) == outcome
    True
    """
    return Outcome(
        ending=Ending(result["ending"]),
        reason=result["reason"],
        winner=result["winner"],
        hands=result["hands"],
        progress=tuple(result["progress"]),
        forfeited_by=result["forfeited_by"],
        reward=result["reward"],
    )


def _engine_version() -> str:
    from chaodipi.engine import __version__

    return __version__


def record_lines(
    match: Match,
    turns: Sequence[Turn] | None = None,
    *,
    bots: Sequence[str] = ("", "", "", ""),
    outcome: Outcome | None = None,
    date: str = "",
    about: Mapping[str, Any] | None = None,
) -> Iterator[Line]:
    """The record of ``match`` (played or stopped), line by line: the header, then every hand,
    event and action in order. ``turns``: one per action of ``match.actions`` (None: the
    actions carry no clock, and a seat was asked wherever it had more than one legal action,
    as a table asks). ``bots``: the name of each seat's bot; ``outcome``: how the game
    ended, as the arena ended it (default: the match's own, or stopped where it stands);
    ``date``: when (ISO 8601); ``about``: more header fields (``game``, ``deal``,
    ``table``, ``clock``: ``docs/game-record.md``)."""
    actions = match.actions
    if turns is not None and len(turns) != len(actions):
        raise ValueError(f"{len(turns)} turns for {len(actions)} actions")
    if len(bots) != 4:
        raise ValueError(f"a record names 4 bots, one per seat, not {len(bots)}")
    yield _header(match, bots, outcome, date, about or {})
    if turns is not None and all(t.cursor is not None for t in turns):
        yield from _from_log(match, turns)
        return
    shadow = _again(match)
    maker = LineMaker()
    yield from news(shadow, maker, 0)
    for index, (seat, action) in enumerate(actions):
        hand = shadow.number
        if turns is None:
            asked = shadow.legal_actions(seat).forced() is None
            yield _action_line(hand, seat, str(action), asked, None)
        else:
            yield _action_line(hand, seat, str(action), turns[index].asked, turns[index])
        cursor = shadow.log.cursor
        shadow.push(seat, action)
        yield from news(shadow, maker, cursor)


def _again(match: Match) -> Match:
    """A new match as ``match`` began: its rules, seed and hand limit, and the position its
    first hand began at (what its first event, :class:`HandBegun`, says)."""
    begun = match.log.all_since(0)[0].payload
    assert isinstance(begun, HandBegun), "a match's log begins with its first hand's HandBegun"
    return Match(
        match.preset,
        match.seed,
        match.max_hands,
        progress=list(begun.progress),
        dealer=begun.dealer,
    )


def _from_log(match: Match, turns: Sequence[Turn]) -> Iterator[Line]:
    """The lines after the header, from ``match``'s log as it is: each action goes after the
    events up to the cursor its turn noted (the same lines as playing it again)."""
    maker = LineMaker()
    events = match.log.all_since(0)
    done = 0  # events told so far
    hand = -1  # the hand of the last event told
    for (seat, action), turn in zip(match.actions, turns, strict=True):
        assert turn.cursor is not None
        upto = turn.cursor
        yield from (made for event in events[done:upto] for made in maker.lines(event))
        if upto > done:
            hand = events[upto - 1].hand
            done = upto
        yield _action_line(max(hand, 0), seat, str(action), turn.asked, turn)
    yield from (made for event in events[done:] for made in maker.lines(event))


def news(match: Match, maker: LineMaker, cursor: int) -> Iterator[Line]:
    """The lines of ``match``'s events after ``cursor`` (each hand's lines begin with its
    ``hand`` line, made from the hand's first event, :class:`HandBegun`)."""
    for event in match.log.all_since(cursor):
        yield from maker.lines(event)
