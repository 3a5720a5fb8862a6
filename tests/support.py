"""Helpers that make rule tests read like the seed texts: cards written as players write them."""

from __future__ import annotations

from engine import Card, CardRules, Rank, Suit, Trick, Trump, parse_cards
from engine.trick import Lead, classify_lead
from engine.units import count_cards

# The card-play options of each seed room (the presets of a later module reuse these).
ANCHAO = CardRules(skip_gaps=False, trump_level_in_suit_tractor=True)
KANGQI = CardRules(skip_gaps=True, trump_level_in_suit_tractor=True, red_five_in_hearts_ftk=False)
MINGCHAO = CardRules(skip_gaps=False, trump_level_in_suit_tractor=True)
HEFEI = CardRules(
    red_five=False,
    five_ten_king=False,
    ace_low_tractors=False,
    skip_gaps=True,
    hefei_trump_chain=True,
    ftk_answer_highest=False,
)
CLASSIC = CardRules(ftk_answer_highest=False)


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
