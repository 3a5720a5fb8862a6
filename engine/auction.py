"""The deal with declaring, the kitty and frying (炒底): everything of a hand before the card play.

Phases, in order (``docs/rules.md`` maps each to the texts):

* ``DECLARE`` — the deal comes in packets (``BidRules.deal_rounds``); after each packet every
  seat in turn declares or passes; after the last packet the round goes on until four passes
  in a row. Nobody declaring redeals the first hand; later, the kitty is turned and its third
  card's suit is trump, with no frying (003).
* ``BURY`` — whoever holds the kitty buries eight cards.
* ``FRY`` — from the seat after the burier, each seat fries (炒底: a bid, then it takes the
  kitty and buries) or passes; three passes in a row end it. In hidden (暗炒) presets the bids
  are then revealed and fries that were not above the bid in force fail.

When it is over (:attr:`Auction.finished`) the trump, the dealer, the four hands and the kitty
are settled, and :class:`chaodipi.engine.hand.HandState` starts the card play. Events go to the
``record`` sink it is given (the match's log, through the hand).

>>> from chaodipi.engine.presets import PRESETS
>>> from chaodipi.engine.cards import Rank
>>> recorded = []
>>> auction = Auction(PRESETS["classic"], "s", Rank.TWO, 1, record=lambda p, a: recorded.append(p))
>>> auction.phase.value, auction.to_act, [len(auction.hand(s)) for s in range(4)]
('declare', 1, [5, 5, 5, 5])
>>> [type(p).__name__ for p in recorded]
['Dealt', 'Dealt', 'Dealt', 'Dealt']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from chaodipi.engine.actions import Action, Bury, Declare, Fry, LegalActions, Pass, phase_error
from chaodipi.engine.bidding import Bid, BidKind, BidRecord, bid_rank, bids_from
from chaodipi.engine.cards import DECK, Card, Rank
from chaodipi.engine.errors import IllegalAction
from chaodipi.engine.events import (
    EVERYONE,
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Fried,
    KittyTaken,
    KittyTurned,
    Passed,
    Payload,
    Redealt,
    TookKitty,
    all_but,
    only,
)
from chaodipi.engine.legal import LegalPlays, Option
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import Preset
from chaodipi.engine.seats import next_seat, partner
from chaodipi.engine.trick import check_holds
from chaodipi.engine.trump import Trump

__all__ = ["KITTY_SIZE", "MAX_REDEALS", "Auction", "EventSink"]

KITTY_SIZE = 8
MAX_REDEALS = 3
"""A first hand nobody declares in is redealt (003); after this many redeals it is played with
the kitty turned and seat 0 dealing, so that a match always ends (docs/rules.md)."""

EventSink = Callable[[Payload, frozenset[int]], None]
"""Where events go: ``record(payload, audience)``."""


def _ignore(payload: Payload, audience: frozenset[int]) -> None:
    """A sink for events nobody will read."""


class Auction:
    """Dealing, declaring, burying and frying for one hand. Drive it with :meth:`check` and
    :meth:`push` until :attr:`finished`."""

    def __init__(
        self,
        preset: Preset,
        seed: str,
        level: Rank | None,
        dealer: int | None,
        *,
        record: EventSink,
        first_hand: bool = False,
        kangqi_hand: bool = False,
        deck: Sequence[Card] | None = None,
    ) -> None:
        """Shuffle from ``seed`` and deal the first packet (the whole deal in the 扛旗 hand,
        which has no auction: it is finished at once, no-trump).

        ``deck`` stacks the shoe instead: card ``k`` goes to seat ``(first + k) % 4``, where
        ``first`` is the dealer (seat 0 in the first hand), and the last eight are the kitty.
        """
        if deck is not None and sorted(deck) != sorted(DECK):
            raise ValueError("a stacked deck must hold the 108 cards of the shoe")
        self.preset = preset
        self.seed = seed
        self.level = level
        self.dealer = dealer
        self.first_hand = first_hand
        self.kangqi_hand = kangqi_hand
        self._record = record
        self._stacked = None if deck is None else tuple(deck)
        self.phase = Phase.DECLARE
        self.finished = False
        self.redeals = 0
        self.hands: list[dict[Card, int]] = []
        self.dealt: list[list[Card]] = []
        self.kitty: list[Card] = []
        self.bids: list[BidRecord] = []
        self.in_force: tuple[int, Bid] | None = None
        self.first_declarer: tuple[int, Card] | None = None
        """The seat whose first declaration of the hand showed a single card while it held
        both copies, and that card: the only seat that may 回头望 (000 「如果亮主的人开始只亮1张
        主，而手中实际有2张所亮的主」). None when the first bid was a pair, or a single whose twin
        the seat did not hold when it showed it."""
        self.kitty_turned = False
        self.to_act = 0
        self.passes = 0
        self.packet = 0
        self.declarer: int | None = None
        self.fry_penalty = 0
        """Signed change to the defenders' points from failed fries (暗炒)."""
        self.used_pairs: set[tuple[int, Card]] = set()
        """(seat, card) of each pair a seat has bid with: with ``fry_by_order`` it bids with that
        pair no more (001 §1.1 「一对牌只能炒一次」). A single call uses up no pair."""
        self.trump: Trump | None = None
        self._deck: list[Card] = []
        self._first_seat = 0
        self._shuffle()

    @classmethod
    def settled(
        cls,
        preset: Preset,
        trump: Trump,
        hands: Sequence[Sequence[Card]],
        dealer: int,
        kitty: Sequence[Card] = (),
    ) -> Auction:
        """An auction already over: these hands, this trump, this kitty (for positions)."""
        auction = cls(preset, "position", trump.level, dealer, record=_ignore, kangqi_hand=True)
        auction.hands = [{} for _ in range(4)]
        for seat, cards in enumerate(hands):
            for card in cards:
                auction.hands[seat][card] = auction.hands[seat].get(card, 0) + 1
        auction.dealt = [list(cards) for cards in hands]
        auction.kitty = list(kitty)
        auction.kangqi_hand = trump.level is None
        auction.trump = trump
        return auction

    # -- dealing ------------------------------------------------------------------------------

    def _shuffle(self) -> None:
        if self._stacked is not None and self.redeals == 0:
            deck = list(self._stacked)
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
            self._finish(Trump(None, None, self.preset.card))
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

    # -- reading ------------------------------------------------------------------------------

    @property
    def dealer_side(self) -> frozenset[int]:
        if self.dealer is None:
            return frozenset()
        return frozenset((self.dealer, partner(self.dealer)))

    def hand(self, seat: int) -> list[Card]:
        """A seat's cards, low to high."""
        return sorted(c for c, n in self.hands[seat].items() for _ in range(n))

    def _rank(self, bid: Bid) -> int:
        return bid_rank(bid, self.preset.bid)

    def _own_best(self, seat: int) -> int:
        return max((self._rank(r.bid) for r in self.bids if r.seat == seat), default=-1)

    def bid_choices(self, seat: int, stage: Phase) -> list[Bid]:
        """The bids ``seat`` may make in ``stage`` (declaring or frying), weakest first."""
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
        if rules.fry_by_order:
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

    def legal_actions(self, seat: int) -> LegalActions:
        """What ``seat`` may do now (the caller checks that it is its turn)."""
        phase = self.phase
        if phase is Phase.BURY:
            option = Option((), tuple(self.hand(seat)), KITTY_SIZE, KITTY_SIZE)
            return LegalActions(phase, seat, cards=LegalPlays((option,)))
        return LegalActions(phase, seat, can_pass=True, bids=tuple(self.bid_choices(seat, phase)))

    # -- acting -------------------------------------------------------------------------------

    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction`, saying why, unless ``seat`` may take ``action`` now
        (the caller checks that it is its turn)."""
        phase = self.phase
        wrong = phase_error(action, phase)
        if wrong is not None:
            raise IllegalAction(wrong)
        if isinstance(action, Declare | Fry):
            bids = tuple(self.bid_choices(seat, phase))
            if action.bid not in bids:
                shown = ", ".join(str(b) for b in bids) or "none"
                raise IllegalAction(f"cannot {phase.value} {action.bid} now; your bids: {shown}")
        elif isinstance(action, Bury):
            if len(action.cards) != KITTY_SIZE:
                raise IllegalAction(f"bury exactly {KITTY_SIZE} cards, not {len(action.cards)}")
            check_holds(self.hands[seat], action.cards, verb="bury")

    def push(self, seat: int, action: Action) -> None:
        """Take an action *without checking it*."""
        if isinstance(action, Pass):
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
            self._record(made(seat, bid), EVERYONE)

    def _bid(self, seat: int, bid: Bid) -> None:
        stage = self.phase
        rules = self.preset.bid
        if rules.fry_by_order:
            stood = True
            if bid.kind is not BidKind.SINGLE:
                # 001 §1.1 「一对牌只能炒一次」: a pair is used up, a single call is not
                self.used_pairs.add((seat, bid.cards[0]))
        else:
            stood = self.in_force is None or self._rank(bid) > self._rank(self.in_force[1])
        shown = bid.cards[0]
        if not self.bids and bid.kind is BidKind.SINGLE and self.hands[seat].get(shown, 0) >= 2:
            # 回头望 is for a first declarer who showed one card while holding two
            # (000 「开始只亮1张主，而手中实际有2张所亮的主」)
            self.first_declarer = (seat, shown)
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
        self._record(Passed(seat, self.phase), EVERYONE)
        self._pass_turn(counts_as_pass=True)

    def _pass_turn(self, *, counts_as_pass: bool) -> None:
        self.passes = self.passes + 1 if counts_as_pass else 0
        self.to_act = next_seat(self.to_act)
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
                self._record(Redealt(self.redeals), EVERYONE)
                self._shuffle()
                return
            if self.dealer is None:
                self.dealer = 0  # a first hand nobody would declare: seat 0 deals
            self.kitty_turned = True
            suit = self.kitty[2].suit
            self._record(KittyTurned(tuple(self.kitty), suit), EVERYONE)
            self.trump = Trump(self.level, suit, self.preset.card)
            self._take_kitty(self.dealer)
            return
        owner = self.in_force[0]
        self.declarer = owner
        if self.dealer is None:
            self.dealer = owner
        self._record(DealerFixed(self.dealer), EVERYONE)
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
            assert self.trump is not None
            self._finish(self.trump)
            return
        self.phase = Phase.FRY
        self.to_act = next_seat(seat)
        self.passes = 0
        if (
            self.preset.bid.fry_by_order
            and self.to_act == self.declarer
            and not any(r.stage is Phase.FRY for r in self.bids)
        ):
            self.to_act = next_seat(self.to_act)

    def _end_frying(self) -> None:
        assert self.in_force is not None
        rules = self.preset.bid
        if rules.fry_by_order and self.first_hand:
            fries = [r for r in self.bids if r.stage is Phase.FRY]
            if fries:
                self.dealer = fries[-1].seat
        if rules.hidden:
            self._record(BidsRevealed(tuple(self.bids)), EVERYONE)
        if rules.failed_fry_penalty and not rules.fry_by_order:
            for record in self.bids:
                if record.stage is Phase.FRY and not record.stood:
                    amount = rules.failed_fry_penalty
                    self.fry_penalty += amount if record.seat in self.dealer_side else -amount
        self._finish(Trump(self.level, self.in_force[1].suit, self.preset.card))

    def _finish(self, trump: Trump) -> None:
        self.trump = trump
        self.finished = True
