"""The 炒地皮 rules engine: pure, deterministic game logic (no I/O, no clocks).

The public vocabulary, re-exported here:

* cards: :class:`Card`, :class:`Suit`, :class:`Rank`, :func:`parse_cards`, :func:`format_cards`;
* trump and options: :class:`Trump`, :class:`CardRules`;
* errors (:mod:`engine.errors`): :class:`CardParseError`, :class:`IllegalAction`,
  :class:`IllegalPlay`;
* a trick: :class:`Trick`, :class:`Lead`, :class:`PlayKind`;
* legal plays: :class:`LegalPlays`, :class:`Option`, :func:`legal_plays`, :func:`check_play`;
* the card play of a hand: :class:`CardPlay`.

What a seat knows of the cards it cannot see, and complete deals drawn uniformly among those
it allows (for bots that search): :mod:`engine.knowledge` and :mod:`engine.sampling`.
"""

from engine.cards import (
    BIG_JOKER as BIG_JOKER,
)
from engine.cards import (
    DECK as DECK,
)
from engine.cards import (
    SMALL_JOKER as SMALL_JOKER,
)
from engine.cards import (
    Card as Card,
)
from engine.cards import (
    Rank as Rank,
)
from engine.cards import (
    Suit as Suit,
)
from engine.cards import (
    format_cards as format_cards,
)
from engine.cards import (
    parse_cards as parse_cards,
)
from engine.errors import CardParseError as CardParseError
from engine.errors import IllegalAction as IllegalAction
from engine.errors import IllegalPlay as IllegalPlay
from engine.legal import LegalPlays as LegalPlays
from engine.legal import Option as Option
from engine.playing import CardPlay as CardPlay
from engine.playing import PlayResult as PlayResult
from engine.playing import check_play as check_play
from engine.playing import legal_plays as legal_plays
from engine.rules import CardRules as CardRules
from engine.trick import Lead as Lead
from engine.trick import PlayKind as PlayKind
from engine.trick import Trick as Trick
from engine.trump import TRUMP as TRUMP
from engine.trump import Trump as Trump

__version__ = "0.1.0"
