"""Actions and the legal set: which of Declare and Fry, Bury and Play a phase wants is decided in
one place (``chaodipi.engine.actions.bid_action`` and ``card_action``), and the legal set's iteration,
``in``, ``default`` and ``sample`` and the action parser all agree with it."""

from __future__ import annotations

import ast
import itertools
import random
from pathlib import Path

import pytest

from chaodipi.engine.actions import (
    Bury,
    Declare,
    Fry,
    Play,
    bid_action,
    card_action,
    parse_action,
)
from chaodipi.engine.bidding import Bid
from chaodipi.engine.cards import Rank, parse_cards
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import PRESETS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("phase", "bid_made", "cards_made"),
    [
        (Phase.DECLARE, Declare, Play),
        (Phase.BURY, Fry, Bury),
        (Phase.FRY, Fry, Play),
        (Phase.PLAY, Fry, Play),
    ],
)
def test_each_phase_wants_one_kind_of_bid_and_of_cards(
    phase: Phase, bid_made: type, cards_made: type
) -> None:
    bid = Bid.parse("♠7", Rank.SEVEN)
    cards = tuple(parse_cards("♠99"))
    assert bid_action(phase, bid) == bid_made(bid)
    assert card_action(phase, cards) == cards_made(cards)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_legal_set_and_the_parser_agree_with_the_mapping(preset: str) -> None:
    """Over a whole match: every listed action is ``in`` the set and parses back from its text;
    the same bid or cards as the other kind of action is not legal; ``default`` and ``sample``
    give legal actions of the phase's kind."""
    rng = random.Random(preset)
    match = Match(PRESETS[preset], seed=2, max_hands=2)
    checked = 0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        level = match.hand.level
        for action in itertools.islice(legal, 40):  # a free discard lists thousands
            assert action in legal
            assert parse_action(str(action), level, match.preset.card) == action
            if isinstance(action, Declare | Fry):
                other = {Declare: Fry, Fry: Declare}[type(action)](action.bid)
                assert action == bid_action(legal.phase, action.bid) and other not in legal
            elif isinstance(action, Bury | Play):
                other = {Bury: Play, Play: Bury}[type(action)](action.cards)
                assert action == card_action(legal.phase, action.cards) and other not in legal
            checked += 1
        assert legal.default() in legal
        action = legal.sample(rng)
        assert action in legal
        match.apply(seat, action)
    assert checked > 200


def _alternatives(node: ast.IfExp) -> set[str]:
    """The class names a conditional expression picks between (``A(x) if c else B(x)`` or
    ``A if c else B``)."""
    names = set()
    for branch in (node.body, node.orelse):
        called = branch.func if isinstance(branch, ast.Call) else branch
        if isinstance(called, ast.Name):
            names.add(called.id)
    return names


def _function_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str:
    """The name of the function ``node`` is in (its line if it is in none)."""
    where = node
    while where in parents:
        where = parents[where]
        if isinstance(where, ast.FunctionDef):
            return where.name
    return f"line {getattr(node, 'lineno', '?')}"


def test_the_phase_to_action_choice_is_written_once() -> None:
    """No module but engine/actions.py (in bid_action and card_action) chooses between Declare
    and Fry or between Bury and Play by itself: everything else asks those two."""
    pairs = ({"Declare", "Fry"}, {"Bury", "Play"})
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if {"node_modules", ".git", "build"} & set(path.parts) or ".egg" in str(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.IfExp) and _alternatives(node) in pairs:
                found.append(f"{path.relative_to(ROOT)}::{_function_of(node, parents)}")
    assert found == ["engine/actions.py::bid_action", "engine/actions.py::card_action"], found
