"""Two Python bots, in-process, on duplicate deals: a quick strength check while developing a bot.

    python3 benchmarks/bot_duel.py montecarlo heuristic [--seeds 20] [--hands 2] [--budget-ms 100]

No server and no gRPC: each decision is the view the SDK would rebuild (``observe(match,
seat)``, which the SDK's view equals at every decision: tests/test_follow.py), and each
answer goes through ``Match.apply``. Moves the table would play by itself (the only legal
move) are played here too. Every seed is played twice with the teams' seats
swapped, over ``--workers`` processes. Prints W-L-D for the first bot, its win rate with a
Wilson interval, and the mean level margin per game; the arena (``arena run``) remains the
measure that counts.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

from chaodipi.arena.report.stats import wilson_interval
from chaodipi.arena.serving.table import forced_action
from chaodipi.bot import Action, SeatView
from chaodipi.engine.errors import IllegalAction
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.seats import other_team, team_of
from chaodipi.engine.view import observe
from chaodipi.sample_bots import heuristic_bot, mc_bot

Decide = Callable[[SeatView], Action]


def _random(view: SeatView, rng: random.Random) -> Action:
    assert view.legal is not None
    return view.legal.sample(rng)


def make_bot(name: str, seed: int, budget_s: float) -> Decide:
    rng = random.Random(seed)
    if name == "random":
        return partial(_random, rng=rng)
    if name == "heuristic":
        return heuristic_bot.decide
    if name == "montecarlo":
        return partial(mc_bot.decide, rng=rng, budget_s=budget_s)
    raise SystemExit(f"unknown bot {name!r}: random, heuristic or montecarlo")


def play_game(
    preset: str, seed: int, hands: int, bots: list[Decide]
) -> tuple[int | None, tuple[int, int], float, tuple[int, int]]:
    """One match, ``bots[seat]`` deciding for each seat: (winner team, progress, seconds, and
    the first hand's dealer and defenders' total)."""
    match = Match(PRESETS[preset], seed=seed, max_hands=hands)
    thinking = 0.0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        forced = forced_action(legal)
        if forced is not None:
            match.apply(seat, forced)
            continue
        started = time.perf_counter()
        answer = bots[seat](observe(match, seat))
        thinking += time.perf_counter() - started
        try:
            match.apply(seat, answer)
        except IllegalAction:
            match.apply(seat, legal.default())
    first = match.records[0]
    progress = (match.progress[0], match.progress[1])
    return match.winner, progress, thinking, (first.dealer, first.total)


def _job(
    args: tuple[str, int, int, str, str, bool, float],
) -> tuple[int, float, float, tuple[int, int]]:
    """(result for the first bot: 1 win, 0 loss, -1 draw), its level margin, seconds, and the
    first hand's dealer and defenders' total."""
    preset, seed, hands, first, second, swapped, budget_s = args
    names = [second, first] * 2 if swapped else [first, second] * 2
    bots = [make_bot(name, seed * 4 + seat, budget_s) for seat, name in enumerate(names)]
    winner, progress, seconds, first_hand = play_game(preset, seed, hands, bots)
    team = 1 if swapped else 0
    margin = progress[team] - progress[other_team(team)]
    if winner is None:
        return -1, margin, seconds, first_hand
    return int(winner == team), margin, seconds, first_hand


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    bots = "random, heuristic or montecarlo"
    parser.add_argument("first", help=f"the bot measured: {bots}")
    parser.add_argument("second", help=f"its opponent: {bots}")
    parser.add_argument("--preset", default="classic", help="rule preset (see `arena presets`)")
    parser.add_argument("--deals", type=int, default=20, help="deals, each played twice")
    parser.add_argument("--first-seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--hands", type=int, default=2, help="hands per game")
    parser.add_argument(
        "--budget-ms", type=int, default=100, help="the Monte-Carlo bot's thinking time per play"
    )
    parser.add_argument("--workers", type=int, default=2, help="games played at once")
    args = parser.parse_args(argv)
    jobs = [
        (args.preset, seed, args.hands, args.first, args.second, swapped, args.budget_ms / 1000)
        for seed in range(args.first_seed, args.first_seed + args.deals)
        for swapped in (False, True)
    ]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(_job, jobs)
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
    print(
        f"{args.first} vs {args.second}: {games} games, {wins}-{losses}-{draws}, "
        f"score {(wins + 0.5 * draws) / games:.1%} [{low:.1%}, {high:.1%}], "
        f"level margin {_mean_interval(margins)}, "
        f"first-hand points gained {_mean_interval(gains)} over {len(gains)} deals"
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
