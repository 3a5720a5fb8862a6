"""One hand, from the shuffle to the score: dealing with declaring, the kitty and 炒底, the play.

Phases, in order (``docs/rules.md`` maps each to the texts):

* ``DECLARE`` — the deal comes in packets (``BidRules.deal_rounds``); after each packet every
  seat in turn declares or passes; after the last packet the round goes on until four passes
  in a row. Nobody declaring redeals the first hand; later, the kitty is turned and its third
  card's suit is trump, with no frying (003).
* ``BURY`` — whoever holds the kitty buries eight cards.
* ``FRY`` — from the seat after the burier, each seat fries (炒底: a bid, then it takes the
  kitty and buries) or passes; three passes in a row end it. In hidden (暗炒) presets the bids
  are then revealed and fries that were not above the bid in force fail.
* ``PLAY`` — the dealer leads the first trick (:class:`engine.playing.CardPlay`).
* ``OVER`` — :attr:`HandState.result` holds the score (:mod:`engine.scoring`).

Everything that happens is recorded as a typed event (:mod:`engine.events`) with the seats
that may see it, into the match's log; what a seat knows is built from those alone
(:mod:`engine.view`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.actions import Action, Bury, Declare, Fry, LegalActions, Pass, Play
from engine.bidding import Bid, BidKind, BidRecord, bid_rank, bids_from
from engine.cards import DECK, Card, Rank
from engine.errors import IllegalAction
from engine.events import (
    EVERYONE,
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Event,
    EventLog,
    Fried,
    KittyTaken,
    KittyTurned,
    Passed,
    Payload,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
    all_but,
    only,
)
from engine.legal import LegalPlays, Option
from engine.phase import Phase
from engine.playing import CardPlay
from engine.presets import Preset
from engine.scoring import HandResult, score_hand
from engine.trick import check_holds
from engine.trump import Trump

__all__ = ["HandState", "LegalActions", "Phase"]

KITTY_SIZE = 8
MAX_REDEALS = 3
"""A first hand nobody declares in is redealt (003); after this many redeals it is played with
the kitty turned and seat 0 dealing, so that a match always ends (docs/rules.md)."""


_ACTING_PHASES = frozenset((Phase.DECLARE, Phase.BURY, Phase.FRY, Phase.PLAY))


@dataclass(slots=True)
class HandState:
    """A hand in progress. Build it with :meth:`deal`; drive it with :meth:`apply`."""

    preset: Preset
    seed: str
    level: Rank | None
    dealer: int | None
    first_hand: bool
    kangqi_hand: bool
    phase: Phase = Phase.DECLARE
    redeals: int = 0
    hands: list[dict[Card, int]] = field(default_factory=list)
    dealt: list[list[Card]] = field(default_factory=list)
    kitty: list[Card] = field(default_factory=list)
    bids: list[BidRecord] = field(default_factory=list)
    in_force: tuple[int, Bid] | None = None
    first_declarer: tuple[int, Card] | None = None
    """The seat whose first declaration of the hand showed a single card, and that card: the
    only seat that may 回头望 (000 「如果亮主的人开始只亮1张主…」). None when the first bid was a
    pair."""
    kitty_turned: bool = False
    to_act: int = 0
    passes: int = 0
    packet: int = 0
    declarer: int | None = None
    fry_penalty: int = 0
    used_pairs: set[tuple[int, Card]] = field(default_factory=set)
    trump: Trump | None = None
    play: CardPlay | None = None
    result: HandResult | None = None
    stacked: tuple[Card, ...] | None = None
    """A deck order to deal instead of shuffling (tests; the first deal only)."""
    log: EventLog = field(default_factory=EventLog)
    """Where the hand records its events: the match's log (a log of its own when alone)."""
    number: int = 0
    """The hand's number in its match (0 for the first)."""
    _deck: list[Card] = field(default_factory=list)
    _first_seat: int = 0
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
    ) -> HandState:
        """Shuffle from ``seed`` and deal the first packet (the whole deal in the 扛旗 hand).

        ``deck`` stacks the shoe instead: card ``k`` goes to seat ``(first + k) % 4``, where
        ``first`` is the dealer (seat 0 in the first hand), and the last eight are the kitty.
        ``log``: the match's event log, where this hand (number ``number``) records its events.
        """
        if deck is not None and sorted(deck) != sorted(DECK):
            raise ValueError("a stacked deck must hold the 108 cards of the shoe")
        state = cls(preset, seed, level, dealer, first_hand, kangqi_hand, number=number)
        if log is not None:
            state.log = log
            state._log_start = log.cursor
        state.stacked = None if deck is None else tuple(deck)
        state._shuffle()
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
        state = cls(preset, "position", trump.level, dealer, False, trump.level is None)
        state.hands = [{} for _ in range(4)]
        for seat, cards in enumerate(hands):
            for card in cards:
                state.hands[seat][card] = state.hands[seat].get(card, 0) + 1
        state.dealt = [list(cards) for cards in hands]
        state.kitty = list(kitty)
        state.trump = trump
        state._start_play()
        return state

    def _shuffle(self) -> None:
        if self.stacked is not None and self.redeals == 0:
            deck = list(self.stacked)
        else:
            deck = list(DECK)
            random.Random(f"{self.seed}/{self.redeals}").shuffle(deck)
        self._deck = deck
        self._first_seat = 0 if self.dealer is None else self.dealer
        self.hands = [{} for _ in range(4)]
        self.dealt = [[] for _ in range(4)]
        self.packet = 0
        self.passes = 0
        if self.kangqi_hand:
            self._deal_cards(len(DECK))
            self.kitty = []
            self._start_play()
            return
        self.kitty = deck[-KITTY_SIZE:]
        self._deal_packet()

    def _deal_cards(self, upto: int) -> None:
        """Deal the shoe, one card a seat in turn, until ``upto`` cards are out."""
        start = sum(len(d) for d in self.dealt)
        before = [len(d) for d in self.dealt]
        for k in range(start, upto):
            seat = (self._first_seat + k) % 4
            card = self._deck[k]
            self.dealt[seat].append(card)
            self.hands[seat][card] = self.hands[seat].get(card, 0) + 1
        for seat in range(4):
            fresh = self.dealt[seat][before[seat] :]
            self._record(Dealt(seat, tuple(fresh)), only(seat))

    def _deal_packet(self) -> None:
        rounds = self.preset.bid.deal_rounds
        per_seat = (len(DECK) - KITTY_SIZE) // 4
        upto = 4 * (per_seat * (self.packet + 1) // rounds)
        self._deal_cards(upto)
        self.to_act = self._first_seat
        self.passes = 0

    # -- events -------------------------------------------------------------------------------

    def _record(self, payload: Payload, audience: frozenset[int] = EVERYONE) -> None:
        self.log.record(self.number, payload, audience)

    @property
    def events(self) -> list[Event]:
        """This hand's events so far, whoever may see them (the referee's view)."""
        return [e for e in self.log.all_since(self._log_start) if e.hand == self.number]

    # -- reading ------------------------------------------------------------------------------

    @property
    def dealer_side(self) -> frozenset[int]:
        if self.dealer is None:
            return frozenset()
        return frozenset((self.dealer, (self.dealer + 2) % 4))

    @property
    def to_play(self) -> int:
        """The seat to act (-1 when the hand is over)."""
        if self.phase is Phase.OVER:
            return -1
        if self.phase is Phase.PLAY:
            assert self.play is not None
            return self.play.to_play
        return self.to_act

    def hand(self, seat: int) -> list[Card]:
        if self.play is not None:
            return self.play.hand(seat)
        return sorted(c for c, n in self.hands[seat].items() for _ in range(n))

    def _rank(self, bid: Bid) -> int:
        return bid_rank(bid, self.preset.bid)

    def _own_best(self, seat: int) -> int:
        return max((self._rank(r.bid) for r in self.bids if r.seat == seat), default=-1)

    def _bid_choices(self, seat: int, stage: Phase) -> list[Bid]:
        rules = self.preset.bid
        declared = bool(self.bids)
        first = None
        opener = self.first_declarer
        if opener is not None and opener[0] == seat and any(r.seat != seat for r in self.bids):
            first = opener[1]  # 回头望 needs someone else to have bid since
        choices = bids_from(
            self.hands[seat],
            self.level,
            rules,
            self.preset.card,
            singles=stage is Phase.DECLARE and not declared,
            first_declared=first,
        )
        if stage is Phase.FRY:
            choices = [b for b in choices if b.kind is not BidKind.SINGLE]
        if rules.hefei_frying:
            choices = [b for b in choices if (seat, b.cards[0]) not in self.used_pairs]
            insiders = (self.declarer, self.dealer)
            if (
                stage is Phase.FRY
                and seat in insiders
                and not any(r.stage is Phase.FRY and r.seat not in insiders for r in self.bids)
            ):
                return []  # 001 §1.1: they fry only after someone else has
            return choices
        if rules.hidden:
            floor = self._own_best(seat)
            return [b for b in choices if self._rank(b) > floor]
        if self.in_force is not None:
            owner, bid = self.in_force
            if owner == seat:
                return []
            floor = self._rank(bid)
            return [b for b in choices if self._rank(b) > floor]
        return choices

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        """What ``seat`` (default: the seat to act) may do now."""
        seat = self.to_play if seat is None else seat
        self._check_turn(seat)
        phase = self.phase
        if phase is Phase.PLAY:
            assert self.play is not None
            return LegalActions(phase, seat, cards=self.play.legal_plays(seat))
        if phase is Phase.BURY:
            pool = tuple(self.hand(seat))
            option = Option((), pool, KITTY_SIZE, KITTY_SIZE)
            return LegalActions(phase, seat, cards=LegalPlays((option,)))
        if phase in (Phase.DECLARE, Phase.FRY):
            bids = tuple(self._bid_choices(seat, phase))
            return LegalActions(phase, seat, can_pass=True, bids=bids)
        raise AssertionError(phase)  # _check_turn refused every other phase

    def _check_turn(self, seat: int) -> None:
        if self.phase not in _ACTING_PHASES:
            raise IllegalAction("the hand is over")
        if seat != self.to_play:
            raise IllegalAction(f"it is seat {self.to_play}'s turn, not seat {seat}'s")

    # -- acting -------------------------------------------------------------------------------

    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` with the reason unless ``seat`` may take ``action``.

        Checks the action itself rather than listing every legal one: a play is checked
        against the rules of following and throwing, not looked up among all legal plays."""
        self._check_turn(seat)
        phase = self.phase
        if isinstance(action, Pass):
            if phase not in (Phase.DECLARE, Phase.FRY):
                raise IllegalAction(f"no passing now: it is the {phase.value} phase")
        elif isinstance(action, (Declare, Fry)):
            wanted = Phase.DECLARE if isinstance(action, Declare) else Phase.FRY
            if phase is not wanted:
                raise IllegalAction(f"cannot {wanted.value} in the {phase.value} phase")
            bids = tuple(self._bid_choices(seat, phase))
            if action.bid not in bids:
                shown = ", ".join(str(b) for b in bids) or "none"
                raise IllegalAction(f"cannot {wanted.value} {action.bid} now; your bids: {shown}")
        elif isinstance(action, Bury):
            if phase is not Phase.BURY:
                raise IllegalAction(f"cannot bury in the {phase.value} phase")
            if len(action.cards) != KITTY_SIZE:
                raise IllegalAction(f"bury exactly {KITTY_SIZE} cards, not {len(action.cards)}")
            check_holds(self.hands[seat], action.cards, verb="bury")
        elif isinstance(action, Play):
            if phase is not Phase.PLAY:
                raise IllegalAction(f"cannot play cards in the {phase.value} phase")
            assert self.play is not None
            self.play.check_play(seat, action.cards)

    def apply(self, seat: int, action: Action) -> None:
        """Check and take an action."""
        self.check(seat, action)
        self.push(seat, action)

    def push(self, seat: int, action: Action) -> None:
        """Take an action *without checking it* (replays of checked logs, fast self-play)."""
        if isinstance(action, Play):
            self._play(seat, action.cards)
        elif isinstance(action, Pass):
            self._pass(seat)
        elif isinstance(action, Declare | Fry):
            self._bid(seat, action.bid)
        elif isinstance(action, Bury):
            self._bury(seat, action.cards)

    def _record_bid(self, seat: int, bid: Bid, stage: Phase) -> None:
        """A bid everyone sees in open presets; only its maker sees it when hidden (暗炒)."""
        made = Declared if stage is Phase.DECLARE else Fried
        if self.preset.bid.hidden:
            self._record(made(seat, None), all_but(seat))
            self._record(made(seat, bid), only(seat))
        else:
            self._record(made(seat, bid))

    def _bid(self, seat: int, bid: Bid) -> None:
        stage = self.phase
        rules = self.preset.bid
        if rules.hefei_frying:
            stood = True
            self.used_pairs.add((seat, bid.cards[0]))
        else:
            stood = self.in_force is None or self._rank(bid) > self._rank(self.in_force[1])
        if not self.bids and bid.kind is BidKind.SINGLE:
            # 回头望 is for a first declarer who showed one card (000 「开始只亮1张主」)
            self.first_declarer = (seat, bid.cards[0])
        self.bids.append(BidRecord(seat, bid, stage, stood))
        if stood:
            self.in_force = (seat, bid)
        self._record_bid(seat, bid, stage)
        if stage is Phase.DECLARE:
            self._pass_turn(counts_as_pass=False)
            return
        self._take_kitty(seat)

    def _take_kitty(self, seat: int) -> None:
        for card in self.kitty:
            self.hands[seat][card] = self.hands[seat].get(card, 0) + 1
        self._record(KittyTaken(seat, tuple(self.kitty)), only(seat))
        self._record(TookKitty(seat), all_but(seat))
        self.kitty = []
        self.phase = Phase.BURY
        self.to_act = seat

    def _pass(self, seat: int) -> None:
        self._record(Passed(seat, self.phase))
        self._pass_turn(counts_as_pass=True)

    def _pass_turn(self, *, counts_as_pass: bool) -> None:
        self.passes = self.passes + 1 if counts_as_pass else 0
        self.to_act = (self.to_act + 1) % 4
        if self.phase is Phase.FRY:
            if self.passes >= 3:
                self._end_frying()
            return
        last_packet = self.packet == self.preset.bid.deal_rounds - 1
        if last_packet:
            if self.passes >= 4:
                self._end_declaring()
        elif self.to_act == self._first_seat:
            self.packet += 1
            self._deal_packet()

    def _end_declaring(self) -> None:
        if self.in_force is None:
            if self.first_hand and self.redeals < MAX_REDEALS:
                self.redeals += 1
                self._record(Redealt(self.redeals))
                self._shuffle()
                return
            if self.dealer is None:
                self.dealer = 0  # a first hand nobody would declare: seat 0 deals
            self.kitty_turned = True
            third = self.kitty[2]
            suit = third.suit
            self._record(KittyTurned(tuple(self.kitty), suit))
            assert self.dealer is not None
            self.trump = Trump(self.level, suit, self.preset.card)
            self._take_kitty(self.dealer)
            return
        owner = self.in_force[0]
        self.declarer = owner
        if self.dealer is None:
            self.dealer = owner
        self._record(DealerFixed(self.dealer))
        self._take_kitty(self.dealer)

    def _bury(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand[card] -= 1
            if not hand[card]:
                del hand[card]
        self.kitty = list(cards)
        self._record(BuriedCards(seat, tuple(cards)), only(seat))
        self._record(Buried(seat), all_but(seat))
        if self.kitty_turned:
            self._start_play()
            return
        self.phase = Phase.FRY
        self.to_act = (seat + 1) % 4
        self.passes = 0
        if (
            self.preset.bid.hefei_frying
            and self.to_act == self.declarer
            and not any(r.stage is Phase.FRY for r in self.bids)
        ):
            self.to_act = (self.to_act + 1) % 4

    def _end_frying(self) -> None:
        assert self.in_force is not None
        rules = self.preset.bid
        if rules.hefei_frying and self.first_hand:
            fries = [r for r in self.bids if r.stage is Phase.FRY]
            if fries:
                self.dealer = fries[-1].seat
        if rules.hidden:
            self._record(BidsRevealed(tuple(self.bids)))
        if rules.failed_fry_penalty and not rules.hefei_frying:
            for record in self.bids:
                if record.stage is Phase.FRY and not record.stood:
                    amount = rules.failed_fry_penalty
                    self.fry_penalty += amount if record.seat in self.dealer_side else -amount
        self.trump = Trump(self.level, self.in_force[1].suit, self.preset.card)
        self._start_play()

    def _start_play(self) -> None:
        assert self.dealer is not None
        if self.trump is None:
            self.trump = Trump(None if self.kangqi_hand else self.level, None, self.preset.card)
        trump = self.trump
        self._record(TrumpFixed(trump.level, trump.suit, self.dealer))
        hands = [[c for c, n in h.items() for _ in range(n)] for h in self.hands]
        self.play = CardPlay(trump, hands, self.dealer)
        self.phase = Phase.PLAY

    def _play(self, seat: int, cards: tuple[Card, ...]) -> None:
        assert self.play is not None
        result = self.play.push(seat, cards)
        if result.throw_failure is None:
            self._record(Played(seat, result.played))
        else:
            self._record(Played(seat, result.played, result.attempted, result.penalty))
        trick = result.finished_trick
        if trick is not None:
            self._record(TrickWon(trick.winner, trick.points))
            if self.play.is_over:
                self.result = score_hand(self)
                self.phase = Phase.OVER
