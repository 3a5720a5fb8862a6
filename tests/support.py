"""Helpers that make rule tests read like the seed texts: cards written as players write them."""

from __future__ import annotations

from engine import Card, CardRules, Rank, Suit, Trick, Trump, parse_cards
from engine.presets import PRESETS
from engine.trick import Lead, classify_lead
from engine.units import count_cards

# The card-play options of each seed room's preset.
ANCHAO = PRESETS["anchao"].card
KANGQI = PRESETS["kangqi"].card
MINGCHAO = PRESETS["mingchao"].card
HEFEI = PRESETS["hefei"].card
CLASSIC = PRESETS["classic"].card


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
