"""Two Python bots, in-process, on duplicate deals: a quick strength check while developing a bot.

    python3 benchmarks/bot_duel.py montecarlo heuristic [--deals 20] [--hands 2] [--budget-ms 100]
    python3 benchmarks/bot_duel.py search montecarlo --simulations 120 --samples 40

No server and no gRPC: each decision is the view the SDK would rebuild (``observe(match,
seat)``, which the SDK's view equals at every decision: tests/test_follow.py), and each
answer goes through ``Match.apply``. Moves the table would play by itself (the only legal
move) are played here too. Every seed is played twice with the teams' seats
swapped, over ``--workers`` processes. Prints W-L-D for the first bot, its win rate with a
Wilson interval, its Elo from the pairs (pentanomial, :mod:`chaodipi.arena.report.stats`)
with the LOS, the mean level margin per game, and each bot's CPU milliseconds per decision it
made (the forced ones excluded); the arena (``arena run``) remains the measure that counts.

Budgets: ``--budget-ms`` is the Monte-Carlo bot's thinking time, unless ``--samples`` fixes
its sampled worlds per play (then ``--budget-ms 0`` lifts the clock); ``--simulations`` is the
search bot's playouts per decision and ``--search-budget-ms`` its cap (0: none).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from chaodipi.arena.report import pentanomial_estimate, wilson_interval
from chaodipi.arena.results import pentanomial
from chaodipi.bot import Action, SeatView
from chaodipi.engine import PRESETS, IllegalAction, Match, observe, other_team, team_of
from chaodipi.search import (
    DEFAULT_SIMULATIONS,
    Budget,
    heuristic_move,
    monte_carlo_move,
    search_move,
)

Decide = Callable[[SeatView], Action]
BOTS = "random, heuristic, montecarlo or search"


@dataclass(frozen=True, slots=True)
class Budgets:
    """What the Monte-Carlo and search bots may spend per decision."""

    mc_seconds: float | None = 0.1
    mc_samples: int | None = None
    simulations: int = DEFAULT_SIMULATIONS
    search_seconds: float | None = None


def _random(view: SeatView, rng: random.Random) -> Action:
    assert view.legal is not None
    return view.legal.sample(rng)


def make_bot(name: str, seed: int, budgets: Budgets) -> Decide:
    rng = random.Random(seed)
    if name == "random":
        return partial(_random, rng=rng)
    if name == "heuristic":
        return heuristic_move
    if name == "montecarlo":
        return partial(
            monte_carlo_move, rng=rng, budget_s=budgets.mc_seconds, samples=budgets.mc_samples
        )
    if name == "search":
        budget = Budget(budgets.simulations, budgets.search_seconds)
        return partial(search_move, rng=rng, budget=budget)
    raise SystemExit(f"unknown bot {name!r}: {BOTS}")


@dataclass(frozen=True, slots=True)
class Game:
    """One match's outcome: the winning team, the levels each team reached, the CPU seconds and
    decisions of each seat, and the first hand's dealer and defenders' total."""

    winner: int | None
    progress: tuple[int, int]
    cpu: list[float]
    decisions: list[int]
    first_hand: tuple[int, int]


def play_game(preset: str, seed: int | str, hands: int, bots: list[Decide]) -> Game:
    """One match, ``bots[seat]`` deciding for each seat."""
    match = Match(PRESETS[preset], seed=seed, max_hands=hands)
    cpu = [0.0] * 4
    decisions = [0] * 4
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        forced = legal.forced()
        if forced is not None:
            match.apply(seat, forced)
            continue
        view = observe(match, seat)
        started = time.process_time()
        answer = bots[seat](view)
        cpu[seat] += time.process_time() - started
        decisions[seat] += 1
        try:
            match.apply(seat, answer)
        except IllegalAction:
            match.apply(seat, legal.default())
    first = match.records[0]
    progress = (match.progress[0], match.progress[1])
    return Game(match.winner, progress, cpu, decisions, (first.dealer, first.total))


Result = tuple[int, float, tuple[float, int, float, int], tuple[int, int]]


def _job(args: tuple[str, int, int, str, str, bool, Budgets]) -> Result:
    """(result for the first bot: 1 win, 0 loss, -1 draw), its level margin, the CPU seconds
    and decisions of the first bot then the second, and the first hand's dealer and
    defenders' total."""
    preset, seed, hands, first, second, swapped, budgets = args
    names = [second, first] * 2 if swapped else [first, second] * 2
    bots = [make_bot(name, seed * 4 + seat, budgets) for seat, name in enumerate(names)]
    game = play_game(preset, seed, hands, bots)
    team = 1 if swapped else 0
    margin = game.progress[team] - game.progress[other_team(team)]
    mine, theirs = (1, 0) if swapped else (0, 1)
    effort = (
        game.cpu[mine] + game.cpu[mine + 2],
        game.decisions[mine] + game.decisions[mine + 2],
        game.cpu[theirs] + game.cpu[theirs + 2],
        game.decisions[theirs] + game.decisions[theirs + 2],
    )
    outcome = -1 if game.winner is None else int(game.winner == team)
    return outcome, margin, effort, game.first_hand


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help=f"the bot measured: {BOTS}")
    parser.add_argument("second", help=f"its opponent: {BOTS}")
    parser.add_argument("--preset", default="classic", help="rule preset (see `arena presets`)")
    parser.add_argument("--deals", type=int, default=20, help="deals, each played twice")
    parser.add_argument("--first-seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--hands", type=int, default=2, help="hands per game")
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=100,
        help="the Monte-Carlo bot's thinking time per play (a cap with --samples; 0: none)",
    )
    parser.add_argument(
        "--samples", type=int, default=None, help="the Monte-Carlo bot's worlds per play"
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=DEFAULT_SIMULATIONS,
        help="the search bot's playouts per decision",
    )
    parser.add_argument(
        "--search-budget-ms", type=int, default=0, help="the search bot's time cap (0: none)"
    )
    parser.add_argument("--workers", type=int, default=2, help="games played at once")
    args = parser.parse_args(argv)
    if args.budget_ms == 0 and args.samples is None:
        parser.error("--budget-ms 0 needs --samples")
    budgets = Budgets(
        args.budget_ms / 1000 if args.budget_ms else None,
        args.samples,
        args.simulations,
        args.search_budget_ms / 1000 if args.search_budget_ms else None,
    )
    jobs = [
        (args.preset, seed, args.hands, args.first, args.second, swapped, budgets)
        for seed in range(args.first_seed, args.first_seed + args.deals)
        for swapped in (False, True)
    ]
    with multiprocessing.Pool(args.workers) as pool:
        results = []
        for result in pool.imap(_job, jobs):  # in order: the pairs stay together
            results.append(result)
            if len(results) % 20 == 0:
                print(f"{len(results)}/{len(jobs)} games", file=sys.stderr, flush=True)
    wins = sum(r[0] == 1 for r in results)
    losses = sum(r[0] == 0 for r in results)
    draws = sum(r[0] == -1 for r in results)
    games = len(results)
    low, high = wilson_interval(wins + 0.5 * draws, games)
    margins = [r[1] for r in results]
    # duplicate: the same first hand (same bids, so the same dealer) with the bots swapped; the
    # first bot's gain is the defenders' points it adds when its team defends, or denies
    gains: list[float] = []
    for plain, swapped in zip(results[::2], results[1::2], strict=True):
        (dealer, total), (dealer_swapped, total_swapped) = plain[3], swapped[3]
        if dealer == dealer_swapped:
            first_defends = team_of(dealer) == 1  # the first bot sits at team 0 in `plain`
            gains.append(total - total_swapped if first_defends else total_swapped - total)
    points = [1.0 if r[0] == 1 else 0.5 if r[0] == -1 else 0.0 for r in results]
    pairs = pentanomial(a + b for a, b in zip(points[::2], points[1::2], strict=True))
    rating = pentanomial_estimate(pairs)
    first_ms = 1000 * sum(r[2][0] for r in results) / max(1, sum(r[2][1] for r in results))
    second_ms = 1000 * sum(r[2][2] for r in results) / max(1, sum(r[2][3] for r in results))
    print(
        f"{args.first} vs {args.second}: {games} games, {wins}-{losses}-{draws}, "
        f"score {(wins + 0.5 * draws) / games:.1%} [{low:.1%}, {high:.1%}], "
        f"Elo {rating.elo:+.1f} ± {rating.error:.1f} (pairs {'-'.join(map(str, pairs))}, "
        f"LOS {rating.los:.1%}), level margin {_mean_interval(margins)}, "
        f"first-hand points gained {_mean_interval(gains)} over {len(gains)} deals; "
        f"CPU ms per decision {args.first} {first_ms:.1f}, {args.second} {second_ms:.1f}"
    )
    return 0


def _mean_interval(values: list[float]) -> str:
    """``mean ± 95 %`` (normal approximation); the interval needs two values, the mean one."""
    if not values:
        return "n/a"
    mean = f"{statistics.fmean(values):+.2f}"
    if len(values) < 2:
        return mean
    return f"{mean} ± {1.96 * statistics.stdev(values) / len(values) ** 0.5:.2f}"


if __name__ == "__main__":
    sys.exit(main())
