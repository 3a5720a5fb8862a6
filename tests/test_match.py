"""Whole matches: every preset plays to the end with its invariants intact; replays reproduce
matches and refuse tampered ones; who deals next."""

from __future__ import annotations

import copy
import random

import pytest

from chaodipi.engine.cards import DECK, points_of
from chaodipi.engine.errors import ReplayError
from chaodipi.engine.hand import HandState, Phase
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.record import dump_lines, load_lines, record_lines, replay_record

HANDS_PER_PRESET = 400
"""Random hands per preset in the test suite (×5 presets = 2,000 hands); the soak script
``benchmarks/soak.py`` plays many more."""


def check_hand_invariants(match: Match, hand: HandState) -> None:
    """Check a hand that just finished (``match.records[-1]``)."""
    record = match.records[-1]
    result = record.result
    play = hand.play
    assert play is not None
    # 108 cards conserved: tricks + final kitty are the whole shoe
    played = [c for trick in play.tricks for c in trick.cards()]
    assert sorted(played + hand.kitty) == sorted(DECK)
    assert all(
        len(cards) == len(trick.plays[0][1]) for trick in play.tricks for _, cards in trick.plays
    )
    # 200 points: the defenders' trick points plus the dealers' plus the kitty
    dealer_points = sum(t.points for t in play.tricks if t.winner in hand.dealer_side)
    assert result.trick_points + dealer_points + points_of(hand.kitty) == 200
    # the total is the documented sum
    expected = result.trick_points + result.kitty_points * result.kitty_multiplier
    expected += result.throw_penalty + result.fry_penalty + result.red_five
    if match.preset.score.penalty_floor:
        expected = max(0, expected)
    assert record.total == expected == result.total


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_hands_keep_their_invariants_and_matches_end(preset: str) -> None:
    rng = random.Random(preset)
    hands = 0
    seed = 0
    while hands < HANDS_PER_PRESET:
        match = Match(PRESETS[preset], seed=f"{preset}-{seed}", max_hands=300)
        seed += 1
        actions = 0
        while not match.over:
            before, hand = len(match.records), match.hand
            match.apply(match.to_play, match.legal_actions().sample(rng))
            actions += 1
            assert actions < 300 * 400, "a match that does not end"
            if len(match.records) > before:
                hands += 1
                check_hand_invariants(match, hand)
        assert match.winner in (0, 1, None)


def test_invariants_on_every_hand_of_a_match() -> None:
    rng = random.Random(9)
    for preset in PRESETS.values():
        match = Match(preset, seed=9, max_hands=1)
        while not match.over:
            match.apply(match.to_play, match.legal_actions().sample(rng))
        check_hand_invariants(match, match.hand)


def play_random(preset: str, seed: int, max_hands: int | None = 3) -> Match:
    rng = random.Random(seed)
    match = Match(PRESETS[preset], seed=seed, max_hands=max_hands)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    return match


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_replay_reproduces_the_match(preset: str) -> None:
    """A game record (engine/record.py) re-plays to the same match."""
    match = play_random(preset, 5)
    lines = load_lines(dump_lines(record_lines(match)))
    assert lines[0]["format"] == "chaodipi-record/1" and lines[0]["preset"] == preset
    again = replay_record(lines)
    assert again.records == match.records and (again.winner, again.reward) == (
        match.winner,
        match.reward,
    )
    assert [str(a) for _, a in again.actions] == [str(a) for _, a in match.actions]


def test_a_tampered_replay_is_refused_with_the_line() -> None:
    match = play_random("classic", 6, max_hands=1)
    lines = list(record_lines(match))
    # give the hand's score a different total
    index = next(i for i, line in enumerate(lines) if line["type"] == "hand_over")
    changed = copy.deepcopy(lines)
    changed[index]["total"] += 5
    with pytest.raises(ReplayError, match=f"line {index + 1}: recorded"):
        replay_record(changed)
    # an action the rules refuse
    bad = copy.deepcopy(lines)
    first_play = next(i for i, line in enumerate(bad) if line.get("action", "").startswith("play"))
    bad[first_play]["seat"] = (bad[first_play]["seat"] + 1) % 4
    with pytest.raises(ReplayError, match=f"line {first_play + 1}: .* turn"):
        replay_record(bad)
    with pytest.raises(ReplayError, match="line 2 is not JSON"):
        load_lines(dump_lines(lines[:1]) + "{oops\n")


def test_same_seed_same_match() -> None:
    a, b = play_random("anchao", 8), play_random("anchao", 8)
    assert a.records == b.records and [str(x) for _, x in a.actions] == [
        str(x) for _, x in b.actions
    ]
    c = play_random("anchao", 9)
    assert [str(x) for _, x in c.actions] != [str(x) for _, x in a.actions]


def test_next_dealer() -> None:
    """docs/rules.md "who deals next": dealers who hold pass the deal to the dealer's partner;
    defenders who take it, to the seat after the dealer."""
    match = play_random("classic", 10, max_hands=12)
    for record in match.records:
        took = record.progress_after[1 - record.dealer % 2] != record.progress_before[
            1 - record.dealer % 2
        ] or ("defenders take" in record.note)
        if "defenders take" in record.note:
            assert record.next_dealer == (record.dealer + 1) % 4
        elif "dealers hold" in record.note:
            assert record.next_dealer == (record.dealer + 2) % 4
        assert took or "dealers hold" in record.note or "passed" in record.note


def test_max_hands_cuts_the_match_and_the_leader_wins() -> None:
    match = play_random("classic", 11, max_hands=2)
    assert len(match.records) == 2 and match.over
    p0, p1 = match.progress
    assert match.winner == (None if p0 == p1 else 0 if p0 > p1 else 1)


def test_a_finished_match_refuses_more_actions() -> None:
    from chaodipi.engine.actions import Pass
    from chaodipi.engine.errors import IllegalAction

    match = play_random("classic", 12, max_hands=1)
    with pytest.raises(IllegalAction, match="the match is over"):
        match.apply(0, Pass())
    assert match.hand.phase is Phase.OVER


def test_reward_is_the_margin_or_the_heaven_earth_reward() -> None:
    """docs/rules.md "积分": the winner earns its lead in levels, at least 1, or the 上天入地
    reward it earned during the match if that is larger (000 「如果胜利方奖励已大于16积分，则按照最大奖励积分计算」)."""
    match = Match(PRESETS["anchao"], seed=1)
    match.progress = [30, 10]
    match._finish(0)
    assert match.reward == 20
    match = Match(PRESETS["anchao"], seed=1)
    match.progress = [30, 27]
    match.heaven_earth_rewards[0] = 16
    match._finish(0)
    assert match.reward == 16


def test_the_match_keeps_each_teams_must_play_levels_played() -> None:
    """001 §2.1 「如“2”、“J”、“A”已打过，则不再为必打牌」 needs the match to remember, per team, the
    must-play levels it has dealt a hand at; every seat sees them."""
    from chaodipi.engine.view import observe

    match = play_random("hefei", 11, max_hands=1)
    first = match.records[0]
    team = first.dealer % 2
    assert match.must_played[team] == {0} and match.must_played[1 - team] == set()
    seen = observe(match, 0).must_played
    assert seen[team] == {0} and seen[1 - team] == set()
