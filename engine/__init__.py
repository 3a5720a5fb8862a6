"""The 炒地皮 rules engine: pure, deterministic game logic (no I/O, no clocks).

Its public vocabulary is this package's ``__all__`` (``tests/test_exports.py`` keeps it so):

* cards: :class:`Card`, :class:`Suit`, :class:`Rank`, :data:`DECK`, :func:`parse_cards`,
  :func:`format_cards`, :func:`points_of`;
* seats and teams: :data:`SEATS`, :func:`team_of`, :func:`partner`, :func:`next_seat`;
* the rules: :data:`PRESETS`, :func:`preset`, :class:`Preset`, :class:`Trump`, :class:`Phase`;
* a match: :class:`Match` (``legal_actions``, ``apply``), :class:`Ending`, :class:`HandRecord`;
* actions: :class:`Action` = :class:`Pass` | :class:`Declare` | :class:`Fry` | :class:`Bury` |
  :class:`Play`, :class:`Bid`, :class:`BidKind`, :func:`parse_action`, :func:`bid_action` and
  :func:`card_action` (which of Declare and Fry, of Bury and Play, a phase wants), and the
  legal set :class:`LegalActions` (iterate it, test an action with ``in``; its card plays are
  a :class:`LegalPlays` of :class:`Option`\\ s);
* what a seat may know: :func:`observe` → :class:`SeatView`, carried forward by the events it
  sees (:class:`Event`, :class:`EventKind`) with :func:`follow`;
* the cards a seat cannot see: :func:`infer` → :class:`Knowledge`, and complete deals drawn
  uniformly among those it allows: :class:`DealSampler`, :func:`sample_deals`,
  :func:`count_deals`, :class:`Deal`;
* errors, by kind: :class:`ParseError` (:class:`CardParseError`, :class:`ActionParseError`,
  :class:`BidParseError`), :class:`IllegalAction` (:class:`IllegalPlay`),
  :class:`ReplayError`.

The modules hold the rest (trick resolution, throws, scoring, levels, the auction) for those
who need the rules' parts; their names may change, these do not.

>>> from chaodipi.engine import Match, PRESETS, observe
>>> match = Match(PRESETS["classic"], seed=1)
>>> view = observe(match, match.to_play)
>>> view.legal is not None and len(view.hand)
5
"""

from chaodipi.engine.actions import Action as Action
from chaodipi.engine.actions import Bury as Bury
from chaodipi.engine.actions import Declare as Declare
from chaodipi.engine.actions import Fry as Fry
from chaodipi.engine.actions import LegalActions as LegalActions
from chaodipi.engine.actions import Pass as Pass
from chaodipi.engine.actions import Play as Play
from chaodipi.engine.actions import bid_action as bid_action
from chaodipi.engine.actions import card_action as card_action
from chaodipi.engine.actions import parse_action as parse_action
from chaodipi.engine.bidding import Bid as Bid
from chaodipi.engine.bidding import BidKind as BidKind
from chaodipi.engine.cards import DECK as DECK
from chaodipi.engine.cards import Card as Card
from chaodipi.engine.cards import Rank as Rank
from chaodipi.engine.cards import Suit as Suit
from chaodipi.engine.cards import format_cards as format_cards
from chaodipi.engine.cards import parse_cards as parse_cards
from chaodipi.engine.cards import points_of as points_of
from chaodipi.engine.errors import ActionParseError as ActionParseError
from chaodipi.engine.errors import BidParseError as BidParseError
from chaodipi.engine.errors import CardParseError as CardParseError
from chaodipi.engine.errors import IllegalAction as IllegalAction
from chaodipi.engine.errors import IllegalPlay as IllegalPlay
from chaodipi.engine.errors import ParseError as ParseError
from chaodipi.engine.errors import ReplayError as ReplayError
from chaodipi.engine.events import Event as Event
from chaodipi.engine.events import EventKind as EventKind
from chaodipi.engine.follow import follow as follow
from chaodipi.engine.knowledge import Knowledge as Knowledge
from chaodipi.engine.knowledge import infer as infer
from chaodipi.engine.legal import LegalPlays as LegalPlays
from chaodipi.engine.legal import Option as Option
from chaodipi.engine.match import Ending as Ending
from chaodipi.engine.match import HandRecord as HandRecord
from chaodipi.engine.match import Match as Match
from chaodipi.engine.phase import Phase as Phase
from chaodipi.engine.presets import PRESETS as PRESETS
from chaodipi.engine.presets import Preset as Preset
from chaodipi.engine.presets import preset as preset
from chaodipi.engine.sampling import Deal as Deal
from chaodipi.engine.sampling import DealSampler as DealSampler
from chaodipi.engine.sampling import count_deals as count_deals
from chaodipi.engine.sampling import sample_deals as sample_deals
from chaodipi.engine.seats import SEATS as SEATS
from chaodipi.engine.seats import next_seat as next_seat
from chaodipi.engine.seats import partner as partner
from chaodipi.engine.seats import team_of as team_of
from chaodipi.engine.trump import Trump as Trump
from chaodipi.engine.view import SeatView as SeatView
from chaodipi.engine.view import observe as observe

__version__ = "0.1.0"

__all__ = [
    "DECK",
    "PRESETS",
    "SEATS",
    "Action",
    "ActionParseError",
    "Bid",
    "BidKind",
    "BidParseError",
    "Bury",
    "Card",
    "CardParseError",
    "Deal",
    "DealSampler",
    "Declare",
    "Ending",
    "Event",
    "EventKind",
    "Fry",
    "HandRecord",
    "IllegalAction",
    "IllegalPlay",
    "Knowledge",
    "LegalActions",
    "LegalPlays",
    "Match",
    "Option",
    "ParseError",
    "Pass",
    "Phase",
    "Play",
    "Preset",
    "Rank",
    "ReplayError",
    "SeatView",
    "Suit",
    "Trump",
    "bid_action",
    "card_action",
    "count_deals",
    "follow",
    "format_cards",
    "infer",
    "next_seat",
    "observe",
    "parse_action",
    "parse_cards",
    "partner",
    "points_of",
    "preset",
    "sample_deals",
    "team_of",
]
