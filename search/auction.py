"""The auction judged: declaring, frying and burying, weighed like card play.

The search weighs card play, burying and frying where bids are shown (:mod:`chaodipi.search.pimc`)
with the rest of the auction left out; for the review's judge (:mod:`chaodipi.search.judge`)
this module states every decision of the auction as a :class:`~chaodipi.search.pimc.Problem`:
each choice played out over the worlds the seat could believe in, the rest of the auction (the
fries and buries that could follow) then the card play, to the end of the hand.

* **Candidates**: declaring and frying: the heuristic's choice first, passing, and every bid the
  seat may make (declaring: each suit's single or pair, a joker pair, the ♥5 pair for each
  trump; frying: the pairs), those whose trump holds most of the seat's cards first,
  :data:`MAX_BIDS` at most. Burying: the search's buries
  (:func:`~chaodipi.search.pimc.bury_candidates`: the heuristic's, then variants that void a
  short side suit or bury the lowest cards by rank).
* **Worlds**: a deal of the cards the seat has not seen, drawn uniformly among those its view
  allows (:class:`chaodipi.engine.DealSampler`), *including its own packets still to come*
  while the cards are dealt: the cards not yet dealt go round the table in a shuffled order
  (drawn from the playout's dice), and so does the kitty's order (whose third card is trump
  when nobody declares).
* **The auction so far, in that world**: the hand is dealt again from a shoe stacked so that
  each seat holds its world's cards (the seat's own as it was dealt them; another seat's with
  the cards it showed in a bid and the cards it could bid with first), and every action of the
  hand so far is taken again. A bid the seat did not see (暗炒: only its maker sees it) is, in
  each world, the bid its maker could make then whose trump holds most of its cards (the
  heuristic's pick); a world in which it could make none, or in which those bids would not
  lead where the seat saw the auction go, is drawn again (:data:`MAX_DRAWS` times at most, then
  the last is kept, each such bid taken as one that leads there). A kitty another seat buried
  is, in each world, cards that seat held, consistent with the cards the world gives each seat
  now.
* **The rest of the hand**: the choice, then the rest of the auction by the heuristic's rule
  for every seat (declaring, burying, frying: :func:`~chaodipi.search.heuristic.choose_bid`,
  :func:`~chaodipi.search.heuristic.bury_cards`), then the card play by the playouts
  (:func:`~chaodipi.search.playout.play_out`), scored for the seat's team in levels with the
  points as a tie-break (:func:`~chaodipi.search.playout.hand_value`). A first hand nobody
  declares in is dealt again, at random.

Every candidate meets the same world and the same dice: the worlds differ by candidate only
from the choice on (common random numbers). Hindsight (the real deal, :mod:`chaodipi.review`)
is taken again the same way: every card open, but not the order of the cards still to come,
and a bid the seat did not see made as in a world.

>>> import random
>>> from chaodipi.engine import PRESETS, Match, Phase, observe
>>> from chaodipi.search import heuristic_move
>>> match = Match(PRESETS["classic"], seed=2, max_hands=1)
>>> while match.legal_actions().bids == () or match.legal_actions().phase is not Phase.DECLARE:
...     match.apply(match.to_play, heuristic_move(observe(match, match.to_play)))
>>> view = observe(match, match.to_play)
>>> problem = auction_problem(view)
>>> [str(choice) for choice in problem.choices]
['pass', 'declare ♣2']
>>> rng = random.Random(1)
>>> world = problem.draw(rng)
>>> [len(cards) for cards in world.hands], len(world.kitty), len(world.undealt)
([5, 5, 5, 5], 8, 80)
>>> all(-12 < problem.judge(choice, world, 7) < 12 for choice in problem.choices)
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, assert_never

from chaodipi.engine import (
    DECK,
    Action,
    Auction,
    Bid,
    BidKind,
    BidsRevealed,
    Buried,
    BuriedCards,
    Bury,
    Card,
    CardPlay,
    Deal,
    DealerFixed,
    DealSampler,
    Dealt,
    Declared,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    LegalActions,
    Pass,
    Passed,
    Payload,
    Phase,
    Played,
    Preset,
    Rank,
    Redealt,
    SeatView,
    Suit,
    TookKitty,
    TrickWon,
    Trump,
    TrumpFixed,
    bid_action,
)
from chaodipi.search.heuristic import (
    bury_cards,
    choose_bid,
    guess_trump,
    heuristic_move,
    trump_share,
)
from chaodipi.search.pimc import Problem, bury_candidates
from chaodipi.search.playout import hand_value, play_out

__all__ = ["MAX_BIDS", "MAX_DRAWS", "auction_problem"]

MAX_BIDS = 8
"""Candidates weighed at a declaring or frying decision at most (the heuristic's choice and
passing among them)."""
MAX_DRAWS = 16
"""Worlds drawn at most for one, until one lets every bid the seat did not see be made."""
RED_FIVE = Card.of(Suit.HEARTS, Rank.FIVE)
"""The ♥5, whose pair bids in presets with the red five."""

Cards = Counter[Card]
StepKind = Literal["pass", "bid", "bury"]
Unseen = Literal["strict", "share", "winning"]
"""How a world takes a bid the seat did not see (:func:`_unseen_bid`)."""


@dataclass(slots=True)
class _Step:
    """An action of the hand so far, as the seat saw it: ``kind`` is ``"pass"``, ``"bid"`` or
    ``"bury"``; ``bid`` the bid when seen (``None``: hidden, 暗炒), ``cards`` a bury's cards when
    the seat made it (``None``: another seat's, unseen)."""

    seat: int
    kind: StepKind
    bid: Bid | None = None
    cards: tuple[Card, ...] | None = None


@dataclass(slots=True)
class _History:
    """The hand so far from the seat's view: how it began, its own cards as dealt, the actions,
    and the kitties it saw taken (``taken[i]``: the kitty the i-th seat to take one took, when
    that seat is this one)."""

    dealer: int | None = None
    redeals: int = 0
    winner: int | None = None
    """The seat whose declaration won, when the seat saw it (it deals the first hand)."""
    own: list[Card] = field(default_factory=list)
    steps: list[_Step] = field(default_factory=list)
    takers: list[int] = field(default_factory=list)
    taken: list[tuple[Card, ...] | None] = field(default_factory=list)


def _history(view: SeatView) -> _History:
    """What the seat saw of the hand, since its last deal."""
    history = _History()
    for event in view.events:
        payload: Payload = event.payload
        match payload:
            case HandBegun(dealer=dealer):
                history.dealer = dealer
            case Redealt():
                history = _History(history.dealer, history.redeals + 1)
            case Dealt(seat=seat, cards=cards):
                if seat == view.seat:
                    history.own.extend(cards)
            case Declared(seat=seat, bid=bid) | Fried(seat=seat, bid=bid):
                history.steps.append(_Step(seat, "bid", bid))
            case Passed(seat=seat):
                history.steps.append(_Step(seat, "pass"))
            case KittyTaken(seat=seat, cards=cards):
                history.takers.append(seat)
                history.taken.append(tuple(cards))
            case TookKitty(seat=seat):
                history.takers.append(seat)
                history.taken.append(None)
            case BuriedCards(seat=seat, cards=cards):
                history.steps.append(_Step(seat, "bury", cards=tuple(cards)))
            case Buried(seat=seat):
                history.steps.append(_Step(seat, "bury"))
            case DealerFixed(seat=seat):
                if history.dealer is None:
                    history.winner = seat
            case (
                KittyTurned()
                | BidsRevealed()
                | TrumpFixed()
                | Played()
                | TrickWon()
                | HandOver()
            ):
                pass  # what the auction taken again redoes, or what comes after it
            case _:
                assert_never(payload)
    return history


def _kitties(history: _History, deal: Deal) -> list[Cards] | None:
    """Each kitty of the hand in this world: the dealt one, then each one buried (the last is
    the world's). Unseen ones are chosen to fit the cards each seat holds now: a run of them
    before any the seat saw is the next one seen; after one it buried, the cards of it that the
    next taker does not hold now pass on, the rest filled from the next kitty seen. ``None``
    when the world leaves no way."""
    buries = [s.cards for s in history.steps if s.kind == "bury"]
    count = len(history.takers)  # a kitty taken and not yet buried is the seat's to bury now
    known: list[Cards | None] = [None] * (count + 1)
    for i, buried in enumerate(buries):
        if buried is not None:
            known[i + 1] = Counter(buried)
    for i, taken in enumerate(history.taken):
        if taken is not None and i <= count:
            known[i] = Counter(taken)
    known[count] = Counter(deal.kitty)
    spare = [Counter(cards) for cards in deal.hands]  # cards a seat holds now not yet placed
    kitties: list[Cards] = []
    for i, seen in enumerate(known):
        if seen is not None:
            kitties.append(seen)
            continue
        after = next(k for k in known[i + 1 :] if k is not None)
        if not kitties:
            kitties.append(Counter(after))
            continue
        taker = history.takers[i - 1]  # it took the kitty before and buried this one
        passed = kitties[-1] - spare[taker]
        spare[taker] -= kitties[-1] - passed
        fill = list((after - passed).elements())
        need = sum(kitties[-1].values()) - sum(passed.values())
        if len(fill) < need:
            return None
        kitties.append(passed + Counter(fill[:need]))
    return kitties


def _deals(history: _History, deal: Deal, kitties: list[Cards], seat: int) -> list[Cards] | None:
    """What each seat was dealt in this world: what it holds now, plus what it buried, less
    what it took up (``None`` when that is no hand, or not the seat's own deal)."""
    dealt = [Counter(cards) for cards in deal.hands]
    for i, taker in enumerate(history.takers):
        dealt[taker].update(kitties[i + 1])
        dealt[taker].subtract(kitties[i])
    if any(n < 0 for counts in dealt for n in counts.values()):
        return None
    dealt = [+counts for counts in dealt]
    if dealt[seat] != Counter(history.own):
        return None
    return dealt


def _biddable(card: Card, level: Rank | None) -> bool:
    """A card a bid may show: a level card, a joker, the ♥5."""
    return card.is_joker or card.rank == level or card == RED_FIVE


def _order(cards: Cards, shown: set[Card], level: Rank | None) -> list[Card]:
    """A seat's dealt cards in the order the stacked shoe gives them: the cards it showed in a
    bid first, then the cards a bid may show, then the rest."""
    return sorted(cards.elements(), key=lambda c: (c not in shown, not _biddable(c, level), c))


@dataclass(frozen=True, slots=True)
class _Replay:
    """What the auction of one decision, taken again in each world, starts from: the seat, its
    rules and level, and the hand so far as it saw it."""

    seat: int
    preset: Preset
    level: Rank | None
    first_hand: bool
    history: _History


def _ignore(payload: Payload, audience: frozenset[int]) -> None:
    """A world's events: nobody reads them."""


def _replay(replay: _Replay, deal: Deal, rng: random.Random, unseen: Unseen) -> Auction | None:
    """The auction of this world at the seat's decision: the hand dealt from a stacked shoe and
    every action so far taken again, a bid the seat did not see as ``unseen`` says
    (:func:`_unseen_bid`). ``rng`` orders the cards not dealt yet and the kitty. ``None`` when
    the world cannot have led here so."""
    history, seat, level = replay.history, replay.seat, replay.level
    kitties = _kitties(history, deal)
    if kitties is None:
        return None
    dealt = _deals(history, deal, kitties, seat)
    if dealt is None:
        return None
    shown: list[set[Card]] = [set() for _ in range(4)]
    for step in history.steps:
        if step.bid is not None:
            shown[step.seat].update(step.bid.cards)
    orders = [
        list(history.own) if s == seat else _order(dealt[s], shown[s], level) for s in range(4)
    ]
    undealt = list(deal.undealt)
    rng.shuffle(undealt)
    kitty = list(kitties[0].elements())
    rng.shuffle(kitty)
    first = 0 if history.dealer is None else history.dealer
    per_seat = (len(DECK) - len(kitty)) // 4
    shoe: list[Card] = []
    taken = [0, 0, 0, 0]
    fresh = iter(undealt)
    for k in range(4 * per_seat):
        s = (first + k) % 4
        shoe.append(orders[s][taken[s]] if taken[s] < len(orders[s]) else next(fresh))
        taken[s] += 1
    shoe.extend(kitty)
    if sorted(shoe) != sorted(DECK):
        return None
    auction = Auction(
        replay.preset,
        f"world/{rng.getrandbits(32)}",
        level,
        history.dealer,
        record=_ignore,
        first_hand=replay.first_hand,
        deck=shoe,
    )
    auction.redeals = history.redeals
    buried = iter(kitties[1:])
    for step in history.steps:
        if auction.to_act != step.seat or auction.finished:
            return None
        action: Action
        match step.kind:
            case "pass":
                action = Pass()
            case "bury":
                action = Bury(tuple(sorted(next(buried).elements())))
            case "bid":
                bid = step.bid or _unseen_bid(auction, step.seat, unseen, history.winner)
                if bid is None:
                    return None
                action = bid_action(auction.phase, bid)
            case _:
                assert_never(step.kind)
        auction.push(step.seat, action)
    if auction.to_act != seat or auction.finished:
        return None
    return auction


def _unseen_bid(auction: Auction, seat: int, unseen: Unseen, winner: int | None) -> Bid | None:
    """A bid the seat did not see, in this world. ``"strict"``: the one its maker could make now
    whose trump holds most of its cards, or ``None`` when it could make none; ``"share"``: that,
    or when none, one made as if it could (the level pair of the suit of most of its cards);
    ``"winning"``: one that leads where the seat saw the auction go, whatever the cards (the
    ``winner``'s outranking every bid, another seat's outranking none)."""
    level = auction.level
    hand = auction.hand(seat)
    bids = auction.bid_choices(seat, auction.phase)
    if unseen != "winning" and bids:
        return max(bids, key=lambda bid: (_share(hand, bid.suit, auction), -bids.index(bid)))
    if unseen == "strict" or level is None:
        return None
    suit = max(Suit, key=lambda s: (_share(hand, s, auction), -s))
    card = Card.of(suit, level)
    if unseen == "share":
        return Bid(BidKind.SUIT_PAIR, (card, card), suit)
    if seat == winner:
        return Bid(BidKind.HUITOUWANG, (card, card), suit)
    return Bid(BidKind.SINGLE, (card,), suit)


def _share(hand: Sequence[Card], suit: Suit | None, auction: Auction) -> float:
    """The share of ``hand`` that would be trump with this trump suit."""
    return trump_share(hand, Trump(auction.level, suit, auction.preset.card))


def _world(replay: _Replay, deal: Deal, dice: int) -> tuple[Auction, random.Random]:
    """The auction of this world at the seat's decision, and the generator its playout goes on
    with: bids the seat did not see as its makers would make them (``"share"``), else as they
    lead where the seat saw the auction go (``"winning"``: a world drawn :data:`MAX_DRAWS` times
    in vain, or the real deal of hindsight)."""
    for unseen in ("share", "winning"):
        rng = random.Random(dice)
        auction = _replay(replay, deal, rng, unseen)
        if auction is not None:
            return auction, rng
    raise ValueError(f"seat {replay.seat}'s auction does not replay in this world")


def _continue(auction: Auction) -> None:
    """The rest of the auction, every seat by the heuristic's rule: its bid or pass
    (:func:`~chaodipi.search.heuristic.choose_bid`), its bury with the trump it guesses (its own
    latest bid, or the turned kitty's: :func:`~chaodipi.search.heuristic.trump_guessed` read off
    the auction)."""
    preset, level = auction.preset, auction.level
    while not auction.finished:
        seat = auction.to_act
        legal: LegalActions = auction.legal_actions(seat)
        hand = auction.hand(seat)
        if legal.phase is Phase.BURY:
            suit = next((r.bid.suit for r in reversed(auction.bids) if r.seat == seat), None)
            if auction.kitty_turned and auction.trump is not None:
                suit = auction.trump.suit
            auction.push(seat, Bury(bury_cards(Trump(level, suit, preset.card), hand)))
        else:
            auction.push(seat, choose_bid(hand, level, preset, legal))


def _candidates(view: SeatView, legal: LegalActions) -> list[Action]:
    """Burying: the search's buries (:func:`~chaodipi.search.pimc.bury_candidates`, the
    heuristic's first). Declaring and frying: the heuristic's choice, passing, and the bids,
    those whose trump holds most of the seat's cards first."""
    if legal.phase is Phase.BURY:
        return [Bury(cards) for cards in bury_candidates(view, guess_trump(view))]

    def share(bid: Bid) -> float:
        return trump_share(view.hand, Trump(view.level, bid.suit, view.preset.card))

    bids = sorted(legal.bids, key=lambda bid: -share(bid))
    bidding = (bid_action(legal.phase, bid) for bid in bids)
    return list(dict.fromkeys([heuristic_move(view), Pass(), *bidding]))[:MAX_BIDS]


def auction_problem(view: SeatView) -> Problem | None:
    """The judge's problem at a declaring, frying or burying decision (see the module docs);
    ``None`` in the card play, or with nothing to weigh."""
    legal = view.legal
    assert legal is not None
    match legal.phase:
        case Phase.DECLARE | Phase.FRY:
            if not legal.bids:
                return None
        case Phase.BURY:
            pass
        case Phase.PLAY | Phase.OVER:
            return None
        case _:
            assert_never(legal.phase)
    choices = _candidates(view, legal)
    sampler = DealSampler(view)
    replay = _Replay(view.seat, view.preset, view.level, view.hand_number == 0, _history(view))
    seat, rules = view.seat, view.preset.score

    def draw(rng: random.Random) -> Deal:
        fallback: Deal | None = None
        for _ in range(MAX_DRAWS):
            deal = sampler.sample(rng)
            if _replay(replay, deal, random.Random(0), "strict") is not None:
                return deal
            fallback = fallback or deal
        assert fallback is not None
        return fallback

    def judge(action: Action, deal: Deal, dice: int) -> float:
        auction, rng = _world(replay, deal, dice)
        auction.push(seat, action)
        _continue(auction)
        assert auction.trump is not None and auction.dealer is not None
        hands = [[c for c, n in h.items() for _ in range(n)] for h in auction.hands]
        state = CardPlay(auction.trump, hands, auction.dealer)
        play_out(state, rng)
        return hand_value(state, auction.kitty, auction.fry_penalty, rules, seat)

    return Problem(choices, judge, draw)
