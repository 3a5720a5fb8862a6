"""The 炒地皮 rules engine: pure, deterministic game logic (no I/O, no clocks).

Its public vocabulary is this package's ``__all__`` (``tests/test_exports.py`` keeps it so):

* cards: :class:`Card`, :class:`Suit`, :class:`Rank`, :data:`DECK`, :data:`CARDS`,
  :func:`parse_cards`, :func:`format_cards`, :func:`print_order`, :func:`points_of`;
* seats and teams: :data:`SEATS`, :func:`team_of`, :func:`partner`, :func:`next_seat`,
  :func:`same_team`, :func:`other_team`, :func:`opponents`, :func:`team_seats`;
* the rules: :data:`PRESETS`, :func:`preset`, :class:`Preset` (:class:`CardRules`,
  :class:`ScoreRules`, :class:`Side`), :class:`Trump`, :data:`TRUMP`, :class:`Phase`;
* a match: :class:`Match` (``legal_actions``, ``apply``, ``outcome``), how it ended
  (:class:`Outcome`, :class:`Ending`), :class:`HandRecord`,
  a hand's score (:class:`HandResult`, :func:`score_hand`, :func:`kitty_multiplier`) and the
  levels it moves (:func:`levels_for`, :func:`level_name`); the deal's auction
  (:class:`Auction`, :class:`BidRecord`, :data:`KITTY_SIZE`);
* actions: :class:`Action` = :class:`Pass` | :class:`Declare` | :class:`Fry` | :class:`Bury` |
  :class:`Play`, :data:`PASS`, :class:`Bid`, :class:`BidKind`, :func:`parse_action`,
  :func:`bid_action` and :func:`card_action` (which of Declare and Fry, of Bury and Play, a
  phase wants), and the legal set :class:`LegalActions` (iterate it, test an action with
  ``in``; its card plays are a :class:`LegalPlays` of :class:`Option`\\ s);
* the card play's parts: :class:`CardPlay`, :class:`Trick`, :func:`decompose` (a play's units),
  :func:`beats_unit`, a holding as copies of each card (:func:`count_cards`, what these take)
  and its legal plays, to a lead or leading (:func:`follow_options`, :func:`lead_options`:
  for any seat's cards, as a bot imagines them; docs/writing-a-bot.md);
* what happened: :class:`Event` (:class:`EventKind`, its audience, :data:`EVERYONE`) and its
  :data:`Payload`, one class per kind: :class:`HandBegun`, :class:`Dealt`, :class:`Declared`,
  :class:`Fried`, :class:`Passed`, :class:`DealerFixed`, :class:`KittyTaken`,
  :class:`TookKitty`, :class:`BuriedCards`, :class:`Buried`, :class:`Redealt`,
  :class:`KittyTurned`, :class:`BidsRevealed`, :class:`TrumpFixed`, :class:`Played`,
  :class:`TrickWon`, :class:`HandOver` (switch on them with ``match`` and ``assert_never``);
* what a seat may know: :func:`observe` → :class:`SeatView` (:class:`TableTrick`), carried
  forward by the events it sees with :func:`follow`;
* the cards a seat cannot see: :func:`infer` → :class:`Knowledge` (:class:`Tally`: what each
  seat holds and lacks), and complete deals drawn uniformly among those it allows:
  :class:`DealSampler`, :func:`sample_deals`, :func:`count_deals`, :class:`Deal`;
* errors, by kind: :class:`ParseError` (:class:`CardParseError`, :class:`ActionParseError`,
  :class:`BidParseError`), :class:`IllegalAction` (:class:`IllegalPlay`),
  :class:`ReplayError`.

Other packages import the engine through these names only (``tests/test_layers.py``); its
modules are its own.

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
from chaodipi.engine.match import Outcome as Outcome
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

from chaodipi.engine.actions import PASS as PASS
from chaodipi.engine.auction import KITTY_SIZE as KITTY_SIZE
from chaodipi.engine.auction import Auction as Auction
from chaodipi.engine.bidding import BidRecord as BidRecord
from chaodipi.engine.cards import CARDS as CARDS
from chaodipi.engine.cards import print_order as print_order
from chaodipi.engine.events import EVERYONE as EVERYONE
from chaodipi.engine.events import BidsRevealed as BidsRevealed
from chaodipi.engine.events import Buried as Buried
from chaodipi.engine.events import BuriedCards as BuriedCards
from chaodipi.engine.events import DealerFixed as DealerFixed
from chaodipi.engine.events import Dealt as Dealt
from chaodipi.engine.events import Declared as Declared
from chaodipi.engine.events import Fried as Fried
from chaodipi.engine.events import HandBegun as HandBegun
from chaodipi.engine.events import HandOver as HandOver
from chaodipi.engine.events import KittyTaken as KittyTaken
from chaodipi.engine.events import KittyTurned as KittyTurned
from chaodipi.engine.events import Passed as Passed
from chaodipi.engine.events import Payload as Payload
from chaodipi.engine.events import Played as Played
from chaodipi.engine.events import Redealt as Redealt
from chaodipi.engine.events import TookKitty as TookKitty
from chaodipi.engine.events import TrickWon as TrickWon
from chaodipi.engine.events import TrumpFixed as TrumpFixed
from chaodipi.engine.knowledge import Tally as Tally
from chaodipi.engine.legal import follow_options as follow_options
from chaodipi.engine.legal import lead_options as lead_options
from chaodipi.engine.levels import level_name as level_name
from chaodipi.engine.levels import levels_for as levels_for
from chaodipi.engine.playing import CardPlay as CardPlay
from chaodipi.engine.rules import CardRules as CardRules
from chaodipi.engine.rules import ScoreRules as ScoreRules
from chaodipi.engine.rules import Side as Side
from chaodipi.engine.scoring import HandResult as HandResult
from chaodipi.engine.scoring import kitty_multiplier as kitty_multiplier
from chaodipi.engine.scoring import score_hand as score_hand
from chaodipi.engine.seats import opponents as opponents
from chaodipi.engine.seats import other_team as other_team
from chaodipi.engine.seats import same_team as same_team
from chaodipi.engine.seats import team_seats as team_seats
from chaodipi.engine.throws import beats_unit as beats_unit
from chaodipi.engine.trick import Trick as Trick
from chaodipi.engine.trump import TRUMP as TRUMP
from chaodipi.engine.units import count_cards as count_cards
from chaodipi.engine.units import decompose as decompose
from chaodipi.engine.view import TableTrick as TableTrick

__all__ = [
    "CARDS",
    "DECK",
    "EVERYONE",
    "KITTY_SIZE",
    "PASS",
    "PRESETS",
    "SEATS",
    "TRUMP",
    "Action",
    "ActionParseError",
    "Auction",
    "Bid",
    "BidKind",
    "BidParseError",
    "BidRecord",
    "BidsRevealed",
    "Buried",
    "BuriedCards",
    "Bury",
    "Card",
    "CardParseError",
    "CardPlay",
    "CardRules",
    "Deal",
    "DealSampler",
    "DealerFixed",
    "Dealt",
    "Declare",
    "Declared",
    "Ending",
    "Event",
    "EventKind",
    "Fried",
    "Fry",
    "HandBegun",
    "HandOver",
    "HandRecord",
    "HandResult",
    "IllegalAction",
    "IllegalPlay",
    "KittyTaken",
    "KittyTurned",
    "Knowledge",
    "LegalActions",
    "LegalPlays",
    "Match",
    "Option",
    "Outcome",
    "ParseError",
    "Pass",
    "Passed",
    "Payload",
    "Phase",
    "Play",
    "Played",
    "Preset",
    "Rank",
    "Redealt",
    "ReplayError",
    "ScoreRules",
    "SeatView",
    "Side",
    "Suit",
    "TableTrick",
    "Tally",
    "TookKitty",
    "Trick",
    "TrickWon",
    "Trump",
    "TrumpFixed",
    "beats_unit",
    "bid_action",
    "card_action",
    "count_cards",
    "count_deals",
    "decompose",
    "follow",
    "follow_options",
    "format_cards",
    "infer",
    "kitty_multiplier",
    "lead_options",
    "level_name",
    "levels_for",
    "next_seat",
    "observe",
    "opponents",
    "other_team",
    "parse_action",
    "parse_cards",
    "partner",
    "points_of",
    "preset",
    "print_order",
    "same_team",
    "sample_deals",
    "score_hand",
    "team_of",
    "team_seats",
]
