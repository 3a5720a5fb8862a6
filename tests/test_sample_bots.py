"""The sample bots play whole matches over gRPC, within their deadlines, without illegal moves;
the heuristic bot's throws never fail."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.bot import Action, MatchResult, SeatView, run_bot
from chaodipi.engine.cards import Rank, Suit, format_cards, parse_cards
from chaodipi.engine.match import Match
from chaodipi.engine.playing import CardPlay
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.trump import Trump
from chaodipi.engine.view import observe
from chaodipi.search import heuristic_move, monte_carlo_move
from chaodipi.search import monte_carlo as mc

from .server_support import Recording, config, random_bot, run_tables
from .table_support import delivered_events


def heuristic(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
    return run_bot(
        heuristic_move,
        address=address,
        ticket=ticket,
        name="heuristic",
        on_message=recording.messages.append,
    )


def montecarlo(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
    rng = random.Random(seat)
    return run_bot(
        lambda view: monte_carlo_move(view, rng, 0.1),
        address=address,
        ticket=ticket,
        name="montecarlo",
        on_message=recording.messages.append,
    )


def failed_throws_by(recordings: list[Recording], seats: set[int]) -> int:
    count = 0
    for event in delivered_events(recordings[0].messages):
        if event.WhichOneof("payload") == "played" and event.played.seat in seats:
            count += bool(event.played.attempted)
    return count


def test_heuristic_against_random_whole_matches_no_failed_throws() -> None:
    configs = [config("classic", seed=s, max_hands=2) for s in (1, 2)]
    bots = [[heuristic, random_bot, heuristic, random_bot] for _ in configs]
    results, recordings = run_tables(configs, bots, timeout=120)
    for result, seats in zip(results, recordings, strict=True):
        assert result.outcome.reason == "played to the end"
        assert all(s.illegal == 0 and s.strikes == 0 for s in result.seats)
        assert all(r.error is None for r in seats)
        assert failed_throws_by(seats, {0, 2}) == 0  # it throws only what cannot fail


def test_montecarlo_plays_a_whole_hand_legally() -> None:
    """Its 100 ms budget against a 10 s deadline: a loaded machine cannot make it late (how
    well it keeps a real deadline is measured by the ladder's runs, not by a test)."""
    cfg = config("anchao", seed=3, max_hands=1, decision_ms=10_000, bank_ms=0)
    results, recordings = run_tables(
        [cfg], [[montecarlo, heuristic, montecarlo, heuristic]], timeout=180
    )
    result = results[0]
    assert result.outcome.reason == "played to the end"
    assert all(s.strikes == 0 and s.illegal == 0 for s in result.seats)
    assert all(r.error is None for r in recordings[0])


def test_every_preset_with_heuristic_bots() -> None:
    presets = ["anchao", "kangqi", "mingchao", "hefei", "classic"]
    configs = [config(p, seed=4, max_hands=1) for p in presets]
    results, _ = run_tables(configs, [[heuristic] * 4 for _ in presets], timeout=180)
    assert [r.outcome.reason for r in results] == ["played to the end"] * len(presets)


def test_bot_commands_have_help() -> None:
    for module in ("chaodipi.sample_bots.random_bot", "chaodipi.sample_bots.heuristic_bot", "chaodipi.sample_bots.mc_bot"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--help"], capture_output=True, text=True
        )
        assert done.returncode == 0 and "--ticket" in done.stdout


def test_sdk_answers_safely_when_thinking_runs_long() -> None:
    """A decide() that never answers: the SDK sends a safe legal move ``margin_ms`` before the
    deadline, so the seat gets no strike (the 2 s margin is slack for a loaded machine; decide
    is given the 0.2 s before it)."""
    import threading

    never = threading.Event()

    def slow(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        def decide(view: SeatView) -> Action:
            never.wait()
            raise AssertionError("never used: too late")

        return run_bot(
            decide,
            address=address,
            ticket=ticket,
            name="slow",
            on_message=recording.messages.append,
            margin_ms=2000,
        )

    cfg = config("classic", seed=6, max_hands=1, decision_ms=2200, bank_ms=0, max_strikes=3)
    results, _ = run_tables([cfg], [[slow, random_bot, random_bot, random_bot]], timeout=120)
    result = results[0]
    assert result.outcome.reason == "played to the end", result.outcome.reason
    never.set()  # let the abandoned threads end
    assert result.seats[0].strikes == 0 and result.seats[0].decisions > 0


class _NoNoise(random.Random):
    """Never draws the rollout's occasional random lead."""

    def random(self) -> float:
        return 0.99


def _lead_in(hands: list[str], trump_suit: Suit = Suit.HEARTS) -> str:
    state = CardPlay(Trump(Rank.TWO, trump_suit), [parse_cards(h) for h in hands], dealer=0)
    return format_cards(mc._rollout_lead(state, 0, _NoNoise()))


def test_rollout_leads_a_side_unit_no_opponent_can_beat() -> None:
    # ♠A is the top spade left (♠A ♠A is not held twice by anyone else): led before the pair
    # of ♣3s, which ♣K♣K (seat 1) beats
    hands = ["♠A ♠5 ♣33 ♥4", "♠K ♣KK ♥6 ♥7", "♠Q ♠J ♦3 ♦4 ♥8", "♠10 ♠9 ♦5 ♦6 ♥9"]
    assert _lead_in(hands) == "♠A"


def test_rollout_leads_trump_while_holding_more_than_both_opponents() -> None:
    # nothing on the side stands up; seat 0 holds four trumps, the opponents two together
    hands = ["♥AKQJ ♠3", "♠A ♥3 ♦4 ♦5 ♦6", "♣5 ♣6 ♣7 ♣8 ♣9", "♠K ♥4 ♦7 ♦8 ♦9"]
    assert _lead_in(hands) == "♥A"


def test_rollout_otherwise_leads_low_from_the_longest_side_suit_sparing_points() -> None:
    # ♣ is longest; its ♣5 counts points, so the ♣3 goes
    hands = ["♣5 ♣3 ♣9 ♠4 ♥3", "♣A ♣K ♠A ♥A ♥K", "♦3 ♦4 ♦6 ♦7 ♦8", "♣Q ♠K ♥Q ♥J ♦9"]
    assert _lead_in(hands) == "♣3"


def test_rollout_follow_that_cannot_win_gives_no_points() -> None:
    # seat 0 led ♣A; seat 1 must follow clubs and cannot win: ♣9, not the lower but counting ♣5
    trump = Trump(Rank.TWO, Suit.HEARTS)
    state = CardPlay(trump, [parse_cards(h) for h in ("♣A ♠3", "♣5 ♣9 ♣Q", "♦3", "♦4")], dealer=0)
    state.push(0, tuple(parse_cards("♣A")))
    assert format_cards(mc._rollout_play(state, 1, _NoNoise())) == "♣9"


def test_rollout_scores_the_kitty_with_the_presets_multiplier() -> None:
    # the last trick: dealer seat 0 led ♠33; defender seat 1 wins it with ♠AA, a pair, so the
    # kitty's 25 points count ×4 for the defenders (003: ×4 when the winning play holds a pair)
    trump = Trump(Rank.TWO, Suit.HEARTS)
    hands = [[], parse_cards("♠AA"), parse_cards("♠44"), parse_cards("♠66")]
    state = CardPlay(trump, [parse_cards("♠33"), *hands[1:]], dealer=0)
    state.push(0, tuple(parse_cards("♠33")))
    kitty = parse_cards("♦10 ♦K ♣5 ♣3 ♣4 ♣6 ♣7 ♣8")
    cards = tuple(parse_cards("♠AA"))
    assert mc._rollout(state, 1, kitty, False, cards, _NoNoise()) == 25 * 4


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_montecarlo_plays_legally_in_sampled_worlds(preset: str) -> None:
    """In-process, at every play of a hand: its choice is legal, worlds drawn by the engine's
    sampler (chaodipi.engine.sampling), with a budget short enough to run many decisions."""
    match = Match(PRESETS[preset], seed=8, max_hands=1)
    rng = random.Random(8)
    decided = 0
    while not match.over:
        seat = match.to_play
        view = observe(match, seat)
        assert view.legal is not None
        if view.phase.value == "play" and decided < 30:
            action = monte_carlo_move(view, rng, 0.01)
            decided += 1
        else:
            action = view.legal.sample(rng)
        match.apply(seat, action)  # raises on an illegal action
    assert decided == 30


HIGHEST = Path(__file__).resolve().parents[1] / "examples" / "highest_card_bot.py"


def test_the_shortest_bot_plays_and_is_quoted_whole_in_the_docs() -> None:
    """examples/highest_card_bot.py (docs/writing-a-bot.md quotes it, with its line count)
    plays a whole match as its own process, never struck or refused."""
    code = HIGHEST.read_text(encoding="utf-8")
    doc = (HIGHEST.parents[1] / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    assert f"```python\n{code}```" in doc
    lines = sum(1 for line in code.splitlines() if line.strip())
    assert f"{lines} lines" in doc

    def highest(address: str, ticket: str, seat: int, recording: Recording) -> None:
        done = subprocess.run(
            [sys.executable, str(HIGHEST), "--address", address],
            env=bot_environment(address, ticket=ticket),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0 or "not legal" in done.stderr:
            raise RuntimeError(done.stderr)

    results, recordings = run_tables(
        [config("classic", seed=2, max_hands=1)], [[highest, random_bot, highest, random_bot]]
    )
    assert results[0].outcome.reason == "played to the end"
    assert all(r.error is None for r in recordings[0]), [r.error for r in recordings[0]]
    assert all(s.strikes == 0 and s.illegal == 0 for s in results[0].seats)
