"""The game record: what a match leaves behind, and every view of it (``docs/game-record.md``).

Its public vocabulary is this package's ``__all__``:

* the lines: one typed class per kind (:class:`Header`, :class:`HandLine`, :class:`DealtLine`,
  :class:`ActionLine` and the 16 event lines of :data:`EventLine`; :data:`Line` is any),
  :data:`LINE_KINDS`, :data:`RECORD_FORMAT` and the JSON Schema, :func:`record_schema`;
* making them: :func:`record_lines` (a match, and how each action was taken:
  :class:`Turn`, :data:`FORCED`; how it ended: the engine's :class:`~chaodipi.engine.Outcome`,
  read back from a header by :func:`outcome_of`), :class:`LineMaker` (one event at a time),
  :func:`cards_text`, :func:`preset_options`, :func:`now`;
* reading them: :func:`dump_lines` / :func:`load_lines` (text), :func:`pack` /
  :func:`unpack` (zlib, as stored), :func:`check_lines` (the schema), :func:`hands_in`,
  :func:`read_file`, :data:`MAX_RECORD_BYTES` (the arena writes record files:
  ``chaodipi.arena.files``);
* re-playing one through the engine: :func:`replay_record`, :func:`replay_steps` (the match
  before each action);
* its steps, as the viewer and a review number them: :func:`action_steps`, :func:`step_link`;
* its views, each saying a line in the same words (``words.py``: cards as :func:`spaced`
  prints them, a team as :func:`team_name` names it): the text transcript
  (:func:`transcript`, :class:`Transcript`, :func:`seat_view`, :func:`spectator_view`,
  :func:`match_transcript`), the HTML viewer
  (:func:`render_html`, :func:`write_html`), a spectator's live record of a table
  (:class:`LiveRecord`), and a bot's text made safe for a terminal (:func:`visible`).

>>> import random
>>> from chaodipi.engine import PRESETS, Match
>>> match, rng = Match(PRESETS["classic"], seed=3, max_hands=1), random.Random(3)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> lines = load_lines(dump_lines(record_lines(match)))
>>> replay_record(lines).records == match.records
True
"""

from chaodipi.records.lines import LINE_KINDS as LINE_KINDS
from chaodipi.records.lines import RECORD_FORMAT as RECORD_FORMAT
from chaodipi.records.lines import ActionLine as ActionLine
from chaodipi.records.lines import BidShown as BidShown
from chaodipi.records.lines import BotName as BotName
from chaodipi.records.lines import BuriedLine as BuriedLine
from chaodipi.records.lines import BuryLine as BuryLine
from chaodipi.records.lines import ClockLine as ClockLine
from chaodipi.records.lines import DealerLine as DealerLine
from chaodipi.records.lines import DealLine as DealLine
from chaodipi.records.lines import DealtLine as DealtLine
from chaodipi.records.lines import DeclareLine as DeclareLine
from chaodipi.records.lines import EventLine as EventLine
from chaodipi.records.lines import FryLine as FryLine
from chaodipi.records.lines import HandLine as HandLine
from chaodipi.records.lines import HandOverLine as HandOverLine
from chaodipi.records.lines import Header as Header
from chaodipi.records.lines import KittyLine as KittyLine
from chaodipi.records.lines import KittyTurnedLine as KittyTurnedLine
from chaodipi.records.lines import Line as Line
from chaodipi.records.lines import LineKind as LineKind
from chaodipi.records.lines import LiveHeader as LiveHeader
from chaodipi.records.lines import Options as Options
from chaodipi.records.lines import PassLine as PassLine
from chaodipi.records.lines import PlayLine as PlayLine
from chaodipi.records.lines import RedealLine as RedealLine
from chaodipi.records.lines import Result as Result
from chaodipi.records.lines import RevealLine as RevealLine
from chaodipi.records.lines import Score as Score
from chaodipi.records.lines import TookKittyLine as TookKittyLine
from chaodipi.records.lines import TrickLine as TrickLine
from chaodipi.records.lines import TrumpLine as TrumpLine
from chaodipi.records.lines import record_schema as record_schema
from chaodipi.records.live import LiveRecord as LiveRecord
from chaodipi.records.making import FORCED as FORCED
from chaodipi.records.making import LineMaker as LineMaker
from chaodipi.records.making import Turn as Turn
from chaodipi.records.making import cards_text as cards_text
from chaodipi.records.making import now as now
from chaodipi.records.making import outcome_of as outcome_of
from chaodipi.records.making import preset_options as preset_options
from chaodipi.records.making import record_lines as record_lines
from chaodipi.records.reading import MAX_RECORD_BYTES as MAX_RECORD_BYTES
from chaodipi.records.reading import check_lines as check_lines
from chaodipi.records.reading import dump_lines as dump_lines
from chaodipi.records.reading import hands_in as hands_in
from chaodipi.records.reading import load_lines as load_lines
from chaodipi.records.reading import pack as pack
from chaodipi.records.reading import read_file as read_file
from chaodipi.records.reading import unpack as unpack
from chaodipi.records.replay import replay_record as replay_record
from chaodipi.records.replay import replay_steps as replay_steps
from chaodipi.records.steps import action_steps as action_steps
from chaodipi.records.steps import step_link as step_link
from chaodipi.records.text import visible as visible
from chaodipi.records.transcript import Transcript as Transcript
from chaodipi.records.transcript import match_transcript as match_transcript
from chaodipi.records.transcript import seat_view as seat_view
from chaodipi.records.transcript import spectator_view as spectator_view
from chaodipi.records.transcript import transcript as transcript
from chaodipi.records.viewer import render_html as render_html
from chaodipi.records.viewer import write_html as write_html
from chaodipi.records.words import spaced as spaced
from chaodipi.records.words import team_name as team_name

__all__ = [
    "FORCED",
    "LINE_KINDS",
    "MAX_RECORD_BYTES",
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
    "LineMaker",
    "LiveHeader",
    "LiveRecord",
    "Options",
    "PassLine",
    "PlayLine",
    "RedealLine",
    "Result",
    "RevealLine",
    "Score",
    "TookKittyLine",
    "Transcript",
    "TrickLine",
    "TrumpLine",
    "Turn",
    "action_steps",
    "cards_text",
    "check_lines",
    "dump_lines",
    "hands_in",
    "load_lines",
    "match_transcript",
    "now",
    "outcome_of",
    "pack",
    "preset_options",
    "read_file",
    "record_lines",
    "record_schema",
    "render_html",
    "replay_record",
    "replay_steps",
    "seat_view",
    "spaced",
    "spectator_view",
    "step_link",
    "team_name",
    "transcript",
    "unpack",
    "visible",
    "write_html",
]
