"""One hand, from the shuffle to the score: it drives the phases and records what happens.

* the deal with declaring, the kitty and 炒底 (``DECLARE``, ``BURY``, ``FRY``):
  :class:`chaodipi.engine.auction.Auction`;
* the card play (``PLAY``): :class:`chaodipi.engine.playing.CardPlay`, from the dealer's lead;
* the score (``OVER``): :func:`chaodipi.engine.scoring.score_hand`, in :attr:`HandState.result`.

Everything that happens is recorded as a typed event (:mod:`chaodipi.engine.events`) with the seats
that may see it, into the match's log; what a seat knows is built from those alone
(:mod:`chaodipi.engine.view`).

>>> import random
>>> from chaodipi.engine.presets import PRESETS
>>> from chaodipi.engine.cards import Rank
>>> hand = HandState.deal(PRESETS["classic"], "doc", Rank.TWO, 0)
>>> rng = random.Random(0)
>>> while hand.phase is not Phase.OVER:
...     hand.apply(hand.to_play, hand.legal_actions().sample(rng))
>>> hand.result is not None and not any(hand.hand(seat) for seat in range(4))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from chaodipi.engine.actions import Action, LegalActions, Play, phase_error
from chaodipi.engine.auction import KITTY_SIZE, MAX_REDEALS, Auction
from chaodipi.engine.bidding import BidRecord
from chaodipi.engine.cards import Card, Rank
from chaodipi.engine.errors import IllegalAction
from chaodipi.engine.events import (
    EVERYONE,
    Event,
    EventLog,
    HandBegun,
    Payload,
    Played,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.phase import Phase
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.presets import Preset
from chaodipi.engine.scoring import HandResult, score_hand
from chaodipi.engine.trump import Trump

__all__ = ["KITTY_SIZE", "MAX_REDEALS", "HandState", "LegalActions", "Phase"]


class _Recorder:
    """Where the auction of hand ``number`` records: into ``log``. It holds the log, not the
    hand: a recorder holding the hand would make hand and auction a reference cycle, and every
    finished hand (its tricks, its cards) would stay in memory until a full pass of the garbage
    collector. A class, not a closure, so that a hand (and a match) pickles and copies."""

    __slots__ = ("log", "number")

    def __init__(self, log: EventLog, number: int) -> None:
        self.log = log
        self.number = number

    def __call__(self, payload: Payload, audience: frozenset[int]) -> None:
        self.log.record(self.number, payload, audience)


@dataclass(slots=True)
class HandState:
    """A hand in progress. Build it with :meth:`deal`; drive it with :meth:`apply`."""

    preset: Preset
    level: Rank | None
    first_hand: bool
    kangqi_hand: bool
    number: int = 0
    """The hand's number in its match (0 for the first)."""
    log: EventLog = field(default_factory=EventLog)
    """Where the hand records its events: the match's log (a log of its own when alone)."""
    auction: Auction = field(init=False)
    play: CardPlay | None = None
    result: HandResult | None = None
    _log_start: int = 0

    # -- building -----------------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        preset: Preset,
        seed: str,
        level: Rank | None,
        dealer: int | None,
        *,
        first_hand: bool = False,
        kangqi_hand: bool = False,
        deck: Sequence[Card] | None = None,
        log: EventLog | None = None,
        number: int = 0,
        progress: tuple[int, int] = (0, 0),
    ) -> HandState:
        """Say the hand begins (:class:`~chaodipi.engine.events.HandBegun`, with the teams'
        ``progress``), shuffle from ``seed`` and deal the first packet (the whole deal in the
        扛旗 hand); ``deck`` stacks the shoe (:class:`chaodipi.engine.auction.Auction`).
        ``log``: the match's event log, where this hand (number ``number``) records its
        events."""
        state = cls(preset, level, first_hand, kangqi_hand, number)
        if log is not None:
            state.log = log
            state._log_start = log.cursor
        state._record(HandBegun(level, dealer, progress))
        state.auction = Auction(
            preset,
            seed,
            level,
            dealer,
            record=_Recorder(state.log, number),
            first_hand=first_hand,
            kangqi_hand=kangqi_hand,
            deck=deck,
        )
        state._after_auction()
        return state

    @classmethod
    def from_position(
        cls,
        preset: Preset,
        trump: Trump,
        hands: Sequence[Sequence[Card]],
        dealer: int,
        kitty: Sequence[Card] = (),
    ) -> HandState:
        """A hand set up at the start of the play: these hands, this trump, this kitty (for
        puzzles, tests and bots that study a position). The cards need not be a full shoe."""
        state = cls(preset, trump.level, False, trump.level is None)
        state.auction = Auction.settled(preset, trump, hands, dealer, kitty)
        state._after_auction()
        return state

    # -- events -------------------------------------------------------------------------------

    def _record(self, payload: Payload, audience: frozenset[int] = EVERYONE) -> None:
        self.log.record(self.number, payload, audience)

    @property
    def events(self) -> list[Event]:
        """This hand's events so far, whoever may see them (the referee's view)."""
        return [e for e in self.log.all_since(self._log_start) if e.hand == self.number]

    # -- reading ------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.result is not None:
            return Phase.OVER
        if self.play is not None:
            return Phase.PLAY
        return self.auction.phase

    @property
    def dealer(self) -> int | None:
        return self.auction.dealer

    @property
    def dealer_side(self) -> frozenset[int]:
        return self.auction.dealer_side

    @property
    def trump(self) -> Trump | None:
        """Trump, once the auction has fixed it (or the kitty was turned)."""
        return self.auction.trump

    @property
    def kitty(self) -> list[Card]:
        """The kitty: as dealt, then as buried last."""
        return self.auction.kitty

    @kitty.setter
    def kitty(self, cards: list[Card]) -> None:
        self.auction.kitty = cards

    @property
    def hands(self) -> list[dict[Card, int]]:
        """Each seat's cards as counts, during the auction."""
        return self.auction.hands

    @property
    def dealt(self) -> list[list[Card]]:
        """Each seat's cards as dealt (the last deal, after a redeal)."""
        return self.auction.dealt

    @property
    def bids(self) -> list[BidRecord]:
        return self.auction.bids

    @property
    def fry_penalty(self) -> int:
        return self.auction.fry_penalty

    @property
    def kitty_turned(self) -> bool:
        return self.auction.kitty_turned

    @property
    def redeals(self) -> int:
        return self.auction.redeals

    @property
    def to_play(self) -> int:
        """The seat to act (-1 when the hand is over)."""
        if self.result is not None:
            return -1
        if self.play is not None:
            return self.play.to_play
        return self.auction.to_act

    def hand(self, seat: int) -> list[Card]:
        """A seat's cards (arranged by suit, trumps last, once the play has begun)."""
        if self.play is not None:
            return self.play.hand(seat)
        return self.auction.hand(seat)

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        """What ``seat`` (default: the seat to act) may do now."""
        play = self.play
        if play is not None and self.result is None:
            cards = play.legal_plays(seat)  # which checks the turn
            return LegalActions(Phase.PLAY, play.to_play if seat is None else seat, cards=cards)
        seat = self.to_play if seat is None else seat
        self._check_turn(seat)
        return self.auction.legal_actions(seat)

    def _check_turn(self, seat: int) -> None:
        if self.result is not None:
            raise IllegalAction("the hand is over")
        if seat != self.to_play:
            raise IllegalAction(f"it is seat {self.to_play}'s turn, not seat {seat}'s")

    # -- acting -------------------------------------------------------------------------------

    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` with the reason unless ``seat`` may take ``action``.

        Checks the action itself rather than listing every legal one: a play is checked
        against the rules of following and throwing, not looked up among all legal plays."""
        self._check_turn(seat)
        if self.play is None:
            self.auction.check(seat, action)
        elif not isinstance(action, Play):
            raise IllegalAction(phase_error(action, Phase.PLAY) or "play cards")
        else:
            self.play.check_play(seat, action.cards)

    def apply(self, seat: int, action: Action) -> None:
        """Check and take an action."""
        self.check(seat, action)
        self.push(seat, action)

    def push(self, seat: int, action: Action) -> None:
        """Take an action *without checking it* (replays of checked logs, fast self-play)."""
        if self.play is None:
            self.auction.push(seat, action)
            self._after_auction()
        elif isinstance(action, Play):
            self._play(seat, action.cards)

    def _after_auction(self) -> None:
        auction = self.auction
        if not auction.finished or self.play is not None:
            return
        trump, dealer = auction.trump, auction.dealer
        assert trump is not None and dealer is not None
        self._record(TrumpFixed(trump.level, trump.suit, dealer))
        hands = [[c for c, n in h.items() for _ in range(n)] for h in auction.hands]
        self.play = CardPlay(trump, hands, dealer)

    def _play(self, seat: int, cards: tuple[Card, ...]) -> None:
        assert self.play is not None
        result = self.play.push(seat, cards)
        record, number = self.log.record, self.number
        if result.throw_failure is None:
            record(number, Played(seat, result.played))
        else:
            record(number, Played(seat, result.played, result.attempted, result.penalty))
        trick = result.finished_trick
        if trick is not None:
            record(number, TrickWon(trick.winner, trick.points))
            if self.play.is_over:
                kitty = None if self.kangqi_hand else self.kitty  # 扛旗: 「不留底牌」
                self.result = score_hand(self.play, kitty, self.fry_penalty, self.preset.score)
