"""Whole matches: every preset plays to the end with its invariants intact; replays reproduce
matches and refuse tampered ones; who deals next."""

from __future__ import annotations

import copy
import random

import pytest

from chaodipi.engine.actions import Play
from chaodipi.engine.cards import DECK, Card, Rank, Suit, points_of
from chaodipi.engine.errors import IllegalAction, ReplayError
from chaodipi.engine.events import EventLog, HandOver
from chaodipi.engine.hand import HandState, Phase
from chaodipi.engine.levels import settle
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.scoring import HandResult
from chaodipi.records import (
    Turn,
    dump_lines,
    load_lines,
    match_transcript,
    record_lines,
    replay_record,
    transcript,
)

from .support import cards

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
    """A game record (chaodipi.records) re-plays to the same match."""
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


def _reward_for(progress: tuple[int, int], hand: HandResult, *, first_hand: bool = False) -> int:
    """The reward of a Hefei match won by this hand (team 0 deals at its level)."""
    hefei = PRESETS["hefei"]
    settled = settle(
        hefei,
        progress,
        dealers=0,
        last_by_defenders=hand.last_winner == 1,
        level=Rank(progress[0] % 13),
        kangqi_hand=False,
        first_hand=first_hand,
        result=hand,
        total=hand.total,
        played=(frozenset({0, Rank.JACK, Rank.ACE}), frozenset({0})),
    )
    assert settled.finished and settled.winner is not None, settled
    match = Match(hefei, seed=1)
    match.progress = list(settled.progress)
    match._finish(settled.winner)
    assert match.progress[settled.winner] == 13  # past A
    return match.reward


def _hefei_hand(tricks: int, *, last_winner: int, last_play: str = "♦3") -> HandResult:
    return HandResult(
        dealer=0,
        trick_points=tricks,
        kitty_points=0,
        kitty_multiplier=4 if last_winner == 1 else 0,
        throw_penalty=0,
        fry_penalty=0,
        red_five=0,
        heaven_earth=None,
        last_winner=last_winner,
        last_play=tuple(cards(last_play)),
        floor_at_zero=True,
    )


def test_hefei_a_match_won_by_jump_or_in_the_first_hand_earns_as_passing_a_does() -> None:
    """001 §2.4 「若打“J\\Q\\K\\A”时遇到跳级则本局胜，不必再打“A”」 and §2.3 「首局主叫方打大光或防守方台面抓80分及以上
    并抠底判胜，本局结束」: a match won by 跳级 or in the first hand is won as by passing A
    (「先通过“A”的一方为胜方」), so the winner is past A and its 积分 is its margin from there
    (docs/rules.md "积分"): a better result never earns less.

    Positions and verdicts (Hefei, team 0 deals):
    - team 0 at A, team 1 at 6: the dealers' 打大光 (a 跳级 in a hand at A) earns 9, as an
      ordinary hold with 40 against (+4, past A) does;
    - team 0 at Q, team 1 at 3: the defenders' 200 (a 跳级 in a hand at Q) earns 3 (13 - 10);
    - the first hand, both at 2: the dealers' 打大光 earns 13; so do the defenders' 85 on the
      table with the kitty dug."""
    da_guang = _reward_for((Rank.ACE, Rank.SIX), _hefei_hand(0, last_winner=0))
    hold = _reward_for((Rank.ACE, Rank.SIX), _hefei_hand(40, last_winner=0))
    assert (da_guang, hold) == (9, 9)
    assert _reward_for((Rank.QUEEN, Rank.THREE), _hefei_hand(200, last_winner=0)) == 3
    first = _hefei_hand(0, last_winner=0)
    assert _reward_for((0, 0), first, first_hand=True) == 13
    dug = _hefei_hand(85, last_winner=1, last_play="♠AA")
    assert _reward_for((0, 0), dug, first_hand=True) == 13


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


def _kangqi_hand_won_with_five_ten_king() -> tuple[Match, list[Turn]]:
    """The kangqi preset's 扛旗 hand: team 0 (past A, progress 13) deals from seat 0, team 1 is
    at 9 (progress 7). Seat 1 holds every trump (BJ BJ LJ LJ ♥5 ♥5), ♠6 to ♠A twice and
    ♣5 ♣10 ♣K; the other seats hold the rest. Seat 0 leads ♦2, seat 1 trumps it with BJ,
    leads its trumps and spades from the top (each the best card left) while the others
    discard their clubs first, and leads ♣5 ♣10 ♣K (a 5-10-K, unbeatable with no trump suit)
    into the last trick: a defender wins the last trick with 5-10-K."""
    seat1 = cards("BJ BJ LJ LJ ♥5 ♥5 ♠AAKKQQJJ1010998877 ♠66 ♣5 ♣10 ♣K")
    rest = list(DECK)
    for card in seat1:
        rest.remove(card)
    rest.remove(cards("♦2")[0])
    clubs = [c for c in rest if c.suit == Suit.CLUBS]
    others = [c for c in rest if c.suit != Suit.CLUBS]
    hands = {0: [cards("♦2")[0]], 1: seat1, 2: [], 3: []}
    for index, card in enumerate(clubs + others):
        hands[(2, 3, 0)[index % 3]].append(card)
    assert [len(h) for h in hands.values()] == [27] * 4
    deck = [hands[k % 4][k // 4] for k in range(108)]
    match = Match(PRESETS["kangqi"], seed=0, progress=[13, 7], dealer=0)
    match.log = EventLog()
    match.hand = HandState.deal(
        PRESETS["kangqi"], "t", None, 0, kangqi_hand=True, deck=deck, log=match.log
    )
    assert match.hand.kangqi_hand and match.hand.phase is Phase.PLAY
    leads = [*cards("BJ LJ LJ ♥5 ♥5 ♠AAKKQQJJ1010998877 ♠66")]
    order = {Suit.CLUBS: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.SPADES: 3}
    turns: list[Turn] = []

    def act(seat: int, play: tuple[Card, ...]) -> None:
        turns.append(Turn(cursor=match.log.cursor))
        match.apply(seat, Play(play))

    act(0, tuple(cards("♦2")))
    while not match.over and match.records == []:
        seat = match.to_play
        hand = match.hand.hand(seat)
        if seat == 1:
            assert match.hand.play is not None
            if match.hand.play.trick.plays:
                act(1, tuple(cards("BJ")))
            elif leads:
                act(1, (leads.pop(0),))
            else:
                act(1, tuple(cards("♣5 ♣10 ♣K")))
        elif len(hand) == 3 and len(match.hand.hand(1)) == 0:
            act(seat, tuple(hand))
        else:
            for card in sorted(hand, key=lambda c: (order.get(c.suit, 4), c)):
                try:
                    match.hand.check(seat, Play((card,)))
                except IllegalAction:
                    continue
                act(seat, (card,))
                break
    return match, turns


def test_the_kangqi_hand_has_no_kitty_so_no_kitty_bonus_nor_heaven_earth() -> None:
    """000 扛旗 「扛旗打无主。这时只有红五、大王、小王、是主，而且不留底牌，全部抓光」: the 扛旗 hand has no
    kitty, so its last trick digs nothing (no 抠底, no multiplier) and 上天入地 (「抓分方用含有同花色的
    5、10、K的牌型抠底」) cannot happen (docs/rules.md "the 扛旗 hand digs no kitty").

    Position: ``_kangqi_hand_won_with_five_ten_king``. Verdict: the defenders took all 200
    points and hold off 扛旗 (they need 100); the hand's result, its HandOver event, its record
    line and the transcripts (of the record, and of the match as a spectator saw it) say no
    kitty multiplier and no 上天入地."""
    match, turns = _kangqi_hand_won_with_five_ten_king()
    record = match.records[0]
    last = record.result.last_play
    assert record.result.last_winner == 1 and sorted(last) == sorted(cards("♣5 ♣10 ♣K"))
    assert record.total == 200 and record.progress_after == (13, 7) and record.next_dealer == 1
    assert (record.result.kitty_points, record.result.kitty_multiplier) == (0, 0)
    assert record.result.heaven_earth is None
    over = next(e.payload for e in match.log.all_since(0) if isinstance(e.payload, HandOver))
    assert over.result == record.result and over.kitty == ()
    assert match.heaven_earth_rewards == [0, 0]
    lines = list(record_lines(match, turns))
    score = next(line for line in lines if line["type"] == "hand_over")["score"]
    assert (score["kitty_multiplier"], score["heaven_earth"]) == (0, None)
    told = "\n".join(transcript(lines))
    assert "kitty 0" not in told and "kitty buried" not in told and "上天入地" not in told
    assert "no kitty" in told
    said = "\n".join(match_transcript(match))
    assert "\nno kitty\nhand 1 over: the defenders have 200 (tricks 200 = 200);" in said, said
    assert "上天入地" not in said
