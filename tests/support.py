"""Helpers that make rule tests read like the seed texts: cards written as players write them."""

from __future__ import annotations

import pickle
from typing import TypeVar

from chaodipi.engine import Card, Rank, Suit, Trump, parse_cards
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.rules import CardRules
from chaodipi.engine.trick import Lead, Trick, classify_lead
from chaodipi.engine.units import count_cards

# The card-play options of each seed room's preset.
ANCHAO = PRESETS["anchao"].card
KANGQI = PRESETS["kangqi"].card
MINGCHAO = PRESETS["mingchao"].card
HEFEI = PRESETS["hefei"].card
CLASSIC = PRESETS["classic"].card


T = TypeVar("T")


def copied(thing: T) -> T:
    """A deep copy of ``thing`` (a match, an environment) by a pickle round trip: what
    ``copy.deepcopy`` makes (both copy by ``__reduce_ex__``, sharing what the original shares),
    at a third of its cost.

    >>> hands = [[1, 2]] * 2
    >>> twin = copied(hands)
    >>> twin == hands and twin[0] is not hands[0] and twin[0] is twin[1]
    True
    """
    return pickle.loads(pickle.dumps(thing, pickle.HIGHEST_PROTOCOL))  # type: ignore[no-any-return]


def cards(text: str) -> list[Card]:
    """``cards("♠9988 BJ")`` → the cards."""
    return parse_cards(text)


def hand(text: str) -> dict[Card, int]:
    """A hand (card → copies) from text."""
    return count_cards(parse_cards(text))


def trump(level: str | None, suit: str | None, rules: CardRules = CLASSIC) -> Trump:
    """``trump("J", "♠")``: level J, spades trump; ``trump("7", None)``: no-trump."""
    return Trump(
        None if level is None else Rank.parse(level),
        None if suit is None else Suit.parse(suit),
        rules,
    )


def lead(t: Trump, text: str) -> Lead:
    return classify_lead(t, parse_cards(text))


def trick_winner(t: Trump, *plays: str) -> int:
    """Play the texts in order from seat 0 and return the winning seat."""
    trick = Trick(t, leader=0)
    for seat, text in enumerate(plays):
        trick.add(seat, parse_cards(text))
    return trick.winner


def stacked_deck(
    seats: dict[int, str], kitty: str = "", first: int = 0, level: str = "2"
) -> list[Card]:
    """A shoe that deals each seat the cards written for it first (in that order) and the
    kitty given. The rest of the 108 cards fill in; bid-making cards (the level rank, jokers,
    the ♥5) are spread one copy to a seat, at the ends of the hands, so they make no pairs."""
    from chaodipi.engine import DECK

    rank = Rank.parse(level)
    wanted = {seat: parse_cards(text) for seat, text in seats.items()}
    kitty_cards = parse_cards(kitty)
    rest = list(DECK)
    for card in [c for cs in wanted.values() for c in cs] + kitty_cards:
        rest.remove(card)

    def special(card: Card) -> bool:
        return card.is_joker or card.rank == rank or str(card) == "♥5"

    plain = [c for c in rest if not special(c)]
    specials = sorted(c for c in rest if special(c))
    while len(kitty_cards) < 8:
        kitty_cards.append(plain.pop())
    hands = {seat: list(wanted.get(seat, [])) for seat in range(4)}
    tails: dict[int, list[Card]] = {seat: [] for seat in range(4)}
    seat = 0
    for card in specials:
        while len(hands[seat]) + len(tails[seat]) >= 25:
            seat = (seat + 1) % 4
        tails[seat].append(card)
        seat = (seat + 1) % 4
    for seat in range(4):
        while len(hands[seat]) + len(tails[seat]) < 25:
            hands[seat].append(plain.pop(0))
        hands[seat] += tails[seat]
    deck = [hands[(first + k) % 4][k // 4] for k in range(100)]
    return deck + kitty_cards
