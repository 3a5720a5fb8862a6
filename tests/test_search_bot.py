"""The search (chaodipi.search, the search bot's library): legal in every preset, a fixed budget
spent exactly and deterministically, a time cap read from a clock it is given; the search bot
(sample_bots/search_bot.py) in a real ``arena run`` through the SDK."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament.config import load_config
from chaodipi.engine.actions import Fry, LegalActions, Pass
from chaodipi.engine.cards import DECK, Card, Rank, Suit
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.trump import Trump
from chaodipi.engine.view import SeatView, observe
from chaodipi.search import Budget, Spent, heuristic_move, play_move, search_move

SMALL = Budget(simulations=12, seconds=None)


def _advance(
    preset: str, seed: int, stop: Callable[[Match, LegalActions], bool]
) -> SeatView | None:
    """Play a hand with the heuristic bot until ``stop`` holds for the seat to act: its view
    (None if the hand ended first)."""
    match = Match(PRESETS[preset], seed=seed, max_hands=1)
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        if stop(match, legal):
            return observe(match, seat)
        forced = legal.forced()
        match.apply(
            seat, forced if forced is not None else heuristic_move(observe(match, seat))
        )
    return None


def _at(phase: Phase, tricks: int = 0) -> Callable[[Match, LegalActions], bool]:
    def stop(match: Match, legal: LegalActions) -> bool:
        if legal.phase is not phase or legal.forced() is not None:
            return False
        play = match.hand.play
        return phase is not Phase.PLAY or (play is not None and len(play.tricks) >= tricks)

    return stop


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_plays_a_whole_hand_legally_in_every_preset(preset: str) -> None:
    """Search bots at seats 0 and 2, heuristic bots at 1 and 3: every answer of the search is
    among the legal actions, through bids, frying, burying and play to the hand's end."""
    match = Match(PRESETS[preset], seed=11, max_hands=1)
    rng = random.Random(5)
    searched = 0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        forced = legal.forced()
        if forced is not None:
            match.apply(seat, forced)
            continue
        view = observe(match, seat)
        if seat % 2 == 0:
            action = search_move(view, rng, SMALL)
            assert action in legal, (preset, legal.phase, action)
            searched += 1
        else:
            action = heuristic_move(view)
        match.apply(seat, action)
    assert match.records and searched > 10


def test_a_fixed_budget_is_spent_exactly_and_repeats_with_the_seed() -> None:
    view = _advance("classic", 3, _at(Phase.PLAY, tricks=3))
    assert view is not None and view.legal is not None
    answers, spends = [], []
    for _ in range(2):
        spent = Spent()
        answers.append(search_move(view, random.Random(9), Budget(40, None), spent))
        spends.append(spent)
    assert answers[0] == answers[1] and answers[0] in view.legal
    assert spends[0] == spends[1]
    assert spends[0].searches == 1 and 0 < spends[0].playouts <= 40
    more = Spent()
    search_move(view, random.Random(9), Budget(200, None), more)
    assert spends[0].playouts < more.playouts <= 200


@pytest.mark.parametrize("phase", [Phase.PLAY, Phase.BURY])
def test_playouts_never_exceed_the_budget(phase: Phase) -> None:
    for seed in range(1, 4):
        view = _advance("classic", seed, _at(phase, tricks=1))
        assert view is not None and view.legal is not None
        for simulations in (1, 7, 30):
            spent = Spent()
            action = search_move(view, random.Random(seed), Budget(simulations, None), spent)
            assert action in view.legal
            assert spent.playouts <= simulations


def test_frying_is_searched_when_bids_are_shown() -> None:
    """In the classic preset a seat offered a fry weighs passing against frying into each suit:
    playouts are spent, and the answer is a pass or a legal fry."""
    for seed in range(1, 40):
        view = _advance(
            "classic", seed, lambda m, legal: legal.phase is Phase.FRY and bool(legal.bids)
        )
        if view is not None:
            break
    assert view is not None and view.legal is not None
    spent = Spent()
    action = search_move(view, random.Random(1), Budget(60, None), spent)
    assert action in view.legal and isinstance(action, Pass | Fry)
    assert spent.searches == 1 and 0 < spent.playouts <= 60


class _Ticking:
    """A clock that moves one second each time it is read: a search's time is then counted
    in reads, with no real time involved."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_no_playout_starts_after_the_time_cap() -> None:
    """The deadline is read when the search starts (t=1, cap 5 s: deadline 6), then before every
    playout (t=2, 3, 4, 5 play; t=6 stops): 4 playouts, however large the fixed budget."""
    view = _advance("classic", 3, _at(Phase.PLAY, tricks=3))
    assert view is not None and view.legal is not None
    clock = _Ticking()
    spent = Spent()
    action = search_move(view, random.Random(2), Budget(10_000, 5.0, clock), spent)
    assert action in view.legal
    assert spent.playouts == 4 and clock.now == 6.0


def test_an_arena_run_through_the_sdk(tmp_path: Path) -> None:
    """Two games against the heuristic bot through the real server: both finish, no strikes
    (timeouts), no illegal moves, no forfeit."""
    search = f"{sys.executable} -m chaodipi.sample_bots.search_bot --simulations 16 --seed 1"
    heuristic = f"{sys.executable} -m chaodipi.sample_bots.heuristic_bot"
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", "-b", f"search={search}",
         "-b", f"heuristic={heuristic}", "-n", "1", "--hands", "1", "-j", "1",
         "--tc", "3000+20000", "-d", "t.sqlite"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = ResultsDB(tmp_path / "t.sqlite", read_only=True).rows()
    assert len(rows) == 2
    for row in rows:
        assert row.forfeit is None and row.void is None, row
        assert (row.strikes_a, row.strikes_b, row.illegal_a, row.illegal_b) == (0, 0, 0, 0)


def test_the_command_line_refuses_a_budget_of_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.sample_bots.search_bot", "--simulations", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "--simulations must be at least 1, not 0" in done.stderr


def test_the_ladder_rung_config_loads_with_fixed_budgets() -> None:
    """examples/ladder_search_vs_mc.toml: both bots at fixed budgets, inside the 1 s deadline."""
    path = Path(__file__).resolve().parents[1] / "examples" / "ladder_search_vs_mc.toml"
    config = load_config(path)
    commands = {bot.name: " ".join(bot.command) for bot in config.bots}
    assert config.decision_ms == 1000 and config.preset == "classic"
    assert "search_bot --simulations 120 --budget-ms 500" in commands["search"]
    assert "mc_bot --samples 80 --budget-ms 400" in commands["montecarlo"]


def _world(shoe: list[Card], trump: Trump, split: random.Random, leader: int) -> CardPlay:
    """Seat 0's 25 cards fixed, and one card each of seats 1-3 (``shoe[25:28]``); their other
    72 dealt to them as ``split`` shuffles them."""
    rest = shoe[28:100]
    split.shuffle(rest)
    hands = [shoe[:25], [shoe[25], *rest[:24]], [shoe[26], *rest[24:48]], [shoe[27], *rest[48:]]]
    return CardPlay(trump, hands, dealer=0, leader=leader)


def test_a_playout_seat_decides_from_its_own_cards_alone() -> None:
    """Against strategy fusion: seat 0's playout move, leading and following, is the same in
    every world that differs only in how the cards it cannot see are split among the others."""
    trump = Trump(Rank.TWO, Suit.SPADES)
    for seed in range(8):
        shoe = random.Random(seed).sample(DECK, len(DECK))
        leading = [_world(shoe, trump, random.Random(100 * seed + k), leader=0) for k in range(4)]
        leads = {play_move(w, 0, random.Random(seed)) for w in leading}
        assert len(leads) == 1, leads
        following = [_world(shoe, trump, random.Random(100 * seed + k), leader=1) for k in range(4)]
        for world in following:  # seats 1-3 play the same cards in every world
            for seat in (1, 2, 3):
                world.push(seat, (shoe[24 + seat],))
        follows = {play_move(w, 0, random.Random(seed)) for w in following}
        assert len(follows) == 1, follows
