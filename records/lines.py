"""The lines of a game record, one typed class per kind (``docs/game-record.md``).

A record (format :data:`RECORD_FORMAT`) is JSON lines: a :class:`Header`, then, in order, a
:class:`HandLine` as each hand begins, the event lines (one per event of the match's log: the
16 kinds of :data:`EventLine`), a :class:`DealtLine` once a deal is complete and an
:class:`ActionLine` per action. Each class here states the keys of its kind as the JSON Schema
(``record.schema.json``, :func:`record_schema`) does; ``tests/test_record.py`` keeps the two
the same (this module's annotations are evaluated, not postponed, so that a class knows its
optional keys). Each is final, so that a check of a key (``"to" in line``) tells the kinds
apart.

>>> len(LINE_KINDS), LINE_KINDS["trick"].__name__
(20, 'TrickLine')
>>> record_schema()["$defs"]["trick_event"]["properties"]["type"]
{'const': 'trick'}
"""

import json
from functools import cache
from importlib import resources
from typing import Any, Literal, NotRequired, TypedDict, final

__all__ = [
    "LINE_KINDS",
    "RECORD_FORMAT",
    "ActionLine",
    "BidShown",
    "BotName",
    "BuriedLine",
    "BuryLine",
    "ClockLine",
    "DealLine",
    "DealerLine",
    "DealtLine",
    "DeclareLine",
    "EventLine",
    "FryLine",
    "HandLine",
    "HandOverLine",
    "Header",
    "KittyLine",
    "KittyTurnedLine",
    "Line",
    "LineKind",
    "LiveHeader",
    "Options",
    "PassLine",
    "PlayLine",
    "RedealLine",
    "Result",
    "RevealLine",
    "Score",
    "TookKittyLine",
    "TrickLine",
    "TrumpLine",
    "record_schema",
]

RECORD_FORMAT = "chaodipi-record/1"
"""The format's name and version: a reader refuses another (``docs/game-record.md``)."""


# -- the header ---------------------------------------------------------------------------------


@final
class BotName(TypedDict):
    """A seat's bot in the header: its seat, its team and the name it gave."""

    seat: int
    team: int
    name: str


@final
class Result(TypedDict):
    """How the game ended (the header's ``result``): ``winner`` a team or None (a draw, or
    undecided), ``forfeited_by`` the seat whose team forfeited, ``reward`` the winner's
    margin, ``hands`` the hands finished, ``progress`` the teams' at the end."""

    ending: Literal["played out", "forfeit", "stopped", "failed"]
    reason: str
    winner: int | None
    forfeited_by: int | None
    reward: int
    hands: int
    progress: list[int]


@final
class ClockLine(TypedDict):
    """The table's clock (the header's ``clock``)."""

    decision_ms: int
    bank_ms: int
    max_strikes: int


@final
class Options(TypedDict):
    """Every option of the preset, by group, as plain JSON values (the header's ``options``)."""

    card: dict[str, Any]
    bid: dict[str, Any]
    score: dict[str, Any]
    match: dict[str, Any]


@final
class Header(TypedDict):
    """The first line: the format, the engine, the rules, the seed, the bots and the result;
    ``game``, ``deal``, ``table`` and ``clock`` when the arena knows them."""

    type: Literal["header"]
    format: str
    engine: str
    preset: str
    options: Options
    seed: str | int
    max_hands: int | None
    date: str
    bots: list[BotName]
    result: Result
    game: NotRequired[str]
    deal: NotRequired[int]
    table: NotRequired[str]
    clock: NotRequired[ClockLine]


@final
class LiveHeader(TypedDict):
    """The header of a spectator's live record (``arena watch``): a spectator is told the
    table and, when the server says them, the bots' names; not the preset or (yet) the
    result. No record file holds one."""

    type: Literal["header"]
    format: str
    table: str
    bots: NotRequired[list[BotName]]


# -- what the record adds to the events --------------------------------------------------------


@final
class HandLine(TypedDict):
    """A hand begins (the ``hand_begun`` event, :class:`chaodipi.engine.HandBegun`): its
    ``level`` (None: the 扛旗 hand has none), its ``dealer`` (None: decided by declaring) and
    the teams' ``progress`` then. ``seq`` is the event's in the log (a record made before
    hands began with an event has none)."""

    type: Literal["hand"]
    seq: NotRequired[int]
    hand: int
    level: str | None
    dealer: int | None
    progress: list[int]


@final
class DealtLine(TypedDict):
    """The deal is complete: the four hands as dealt, and the kitty (the referee's view)."""

    type: Literal["dealt"]
    hand: int
    hands: list[str]
    kitty: str


@final
class ActionLine(TypedDict):
    """A seat's action, and how it was taken (``asked`` False: forced, nothing else said)."""

    type: Literal["action"]
    hand: int
    seat: int
    action: str
    asked: NotRequired[bool]
    ms: NotRequired[int]
    timeout: NotRequired[bool]
    strikes: NotRequired[int]
    refused: NotRequired[int]
    fallback: NotRequired[bool]
    note: NotRequired[str]


# -- the events: ``seq`` the log's number, ``to`` the seats that saw it when not all four -------


@final
class DealLine(TypedDict):
    """A packet of cards dealt to ``seat`` (seen by it only)."""

    type: Literal["deal"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    cards: str


@final
class DeclareLine(TypedDict):
    """A declaration; ``bid`` None in the copy the other seats saw while bids were hidden."""

    type: Literal["declare"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    bid: str | None


@final
class FryLine(TypedDict):
    """A fry (炒底): a bid, then ``seat`` takes the kitty; ``bid`` as for a declaration."""

    type: Literal["fry"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    bid: str | None


@final
class PassLine(TypedDict):
    """``seat`` passed while declaring or frying (``stage``)."""

    type: Literal["pass"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    stage: Literal["declare", "fry"]


@final
class DealerLine(TypedDict):
    """Declaring is over: ``seat`` deals this hand."""

    type: Literal["dealer"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int


@final
class KittyLine(TypedDict):
    """``seat`` picked up the kitty, these ``cards`` (seen by it only)."""

    type: Literal["kitty"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    cards: str


@final
class TookKittyLine(TypedDict):
    """``seat`` picked up the kitty (what the others saw)."""

    type: Literal["took_kitty"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int


@final
class BuryLine(TypedDict):
    """``seat`` buried these ``cards`` (seen by it only)."""

    type: Literal["bury"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    cards: str


@final
class BuriedLine(TypedDict):
    """``seat`` buried eight cards (what the others saw)."""

    type: Literal["buried"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int


@final
class RedealLine(TypedDict):
    """Nobody declared: dealt again (``redeals`` so far)."""

    type: Literal["redeal"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    redeals: int


@final
class KittyTurnedLine(TypedDict):
    """Nobody declared: the kitty shown; its third card names the trump ``suit``."""

    type: Literal["kitty_turned"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    cards: str
    suit: str | None


@final
class BidShown(TypedDict):
    """One bid as a ``reveal`` line shows it: who made it, at which stage, whether it stood."""

    seat: int
    bid: str
    stage: Literal["declare", "fry"]
    stood: bool


@final
class RevealLine(TypedDict):
    """Hidden bidding is over: every bid as made."""

    type: Literal["reveal"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    bids: list[BidShown]


@final
class TrumpLine(TypedDict):
    """The card play begins: the hand's ``level`` (None: the 扛旗 hand), trump ``suit`` (None:
    no-trump) and the ``dealer``, who leads."""

    type: Literal["trump"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    level: str | None
    suit: str | None
    dealer: int


@final
class PlayLine(TypedDict):
    """``seat`` played ``cards`` to ``trick``; after a failed throw, the cards ``attempted``,
    the ``penalty`` to the defenders' points and their points then (``defenders``)."""

    type: Literal["play"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    trick: int
    cards: str
    attempted: NotRequired[str]
    penalty: NotRequired[int]
    defenders: NotRequired[int]


@final
class TrickLine(TypedDict):
    """``seat`` won ``trick``, with ``points`` in it; ``defenders``: the defenders' points in
    the hand so far (tricks and throw penalties)."""

    type: Literal["trick"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    seat: int
    trick: int
    points: int
    defenders: NotRequired[int]


@final
class Score(TypedDict):
    """How a hand was scored (the ``hand_over`` line's ``score``)."""

    dealer: int
    trick_points: int
    kitty_points: int
    kitty_multiplier: int
    throw_penalty: int
    fry_penalty: int
    red_five: int
    heaven_earth: str | None
    last_winner: int
    shut_out: bool
    floored: NotRequired[bool]


@final
class HandOverLine(TypedDict):
    """The hand is scored and everything shown: the defenders' ``total``, the ``kitty``, the
    hands as ``dealt``, the teams' ``progress`` after it, who deals next, a ``note`` on what
    moved the levels and the ``score`` in detail."""

    type: Literal["hand_over"]
    seq: int
    hand: int
    to: NotRequired[list[int]]
    total: int
    kitty: str
    dealt: list[str]
    progress: list[int]
    next_dealer: int
    note: str
    score: Score


EventLine = (
    DealLine
    | DeclareLine
    | FryLine
    | PassLine
    | DealerLine
    | KittyLine
    | TookKittyLine
    | BuryLine
    | BuriedLine
    | RedealLine
    | KittyTurnedLine
    | RevealLine
    | TrumpLine
    | PlayLine
    | TrickLine
    | HandOverLine
)
"""The line of one event of the match's log."""

Line = Header | HandLine | DealtLine | ActionLine | EventLine
"""Any line of a record."""

LineKind = Literal[
    "header",
    "hand",
    "dealt",
    "action",
    "deal",
    "declare",
    "fry",
    "pass",
    "dealer",
    "kitty",
    "took_kitty",
    "bury",
    "buried",
    "redeal",
    "kitty_turned",
    "reveal",
    "trump",
    "play",
    "trick",
    "hand_over",
]
"""A line's ``type``."""

LINE_KINDS: dict[str, type] = {
    "header": Header,
    "hand": HandLine,
    "dealt": DealtLine,
    "action": ActionLine,
    "deal": DealLine,
    "declare": DeclareLine,
    "fry": FryLine,
    "pass": PassLine,
    "dealer": DealerLine,
    "kitty": KittyLine,
    "took_kitty": TookKittyLine,
    "bury": BuryLine,
    "buried": BuriedLine,
    "redeal": RedealLine,
    "kitty_turned": KittyTurnedLine,
    "reveal": RevealLine,
    "trump": TrumpLine,
    "play": PlayLine,
    "trick": TrickLine,
    "hand_over": HandOverLine,
}
"""The class of each kind of line, by its ``type``."""


@cache
def record_schema() -> dict[str, Any]:
    """The JSON Schema of one record line (``record.schema.json``, shipped with this
    package)."""
    text = resources.files("chaodipi.records").joinpath("record.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
