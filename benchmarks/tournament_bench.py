"""Games/s of the arena against the same bots in-process, on the same deals.

    python3 benchmarks/tournament_bench.py [--seeds 40] [--hands 1] [--fresh]

A round-robin of the random and heuristic sample bots through ``arena run``'s runner (real
processes in sessions, real gRPC on localhost) at concurrency 1, 2 and 4, each run with a fresh
database in a temporary folder but the same deal key; then the same games in-process with
``benchmarks/bot_duel.py``'s loop (no server, no gRPC) on one core and on two. Prints one line
per run, the ratios the sessions issue names (arena ÷ in-process on one core, concurrency 4 ÷
concurrency 1) and a JSON line. ``--fresh`` adds a run with a new process per seat per game
(``fresh = true``), the arena before sessions.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.deals import DealKey
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.results import ResultsDB
from chaodipi.arena.tournament import TournamentConfig, parse_config, run_tournament

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bot_duel
from thinking_bot import think_us, thinking


def arena_config(folder: Path, args: argparse.Namespace, concurrency: int, fresh: bool) -> Any:
    bots: dict[str, dict[str, Any]] = {
        "random": {"command": "python3 -m chaodipi.sample_bots.random_bot"},
        "heuristic": {"command": "python3 -m chaodipi.sample_bots.heuristic_bot"},
    }
    if fresh:
        for spec in bots.values():
            spec["fresh"] = True
    return parse_config(
        {
            "preset": args.preset,
            "hands": args.hands,
            "deals": args.deals,
            "concurrency": concurrency,
            "database": "bench.sqlite",
            "bots": bots,
        },
        folder,
    )


def arena_rate(config: TournamentConfig, key: DealKey) -> tuple[int, float, int]:
    """(games played, seconds, processes started), dealing from ``key``."""
    db = ResultsDB(config.database)
    db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key.hex(),))
    db.db.commit()
    db.close()
    started = time.perf_counter()
    outcome = anyio.run(run_tournament, config, backend="asyncio")
    elapsed = time.perf_counter() - started
    if outcome.void or outcome.stopped:
        raise SystemExit(f"the arena run failed: {outcome.stopped or outcome.problems[:1]}")
    return outcome.played, elapsed, outcome.processes


def _duel_job(job: tuple[str, str, int, bool]) -> int | None:
    preset, seed, hands, swapped = job
    names = ["heuristic", "random"] * 2 if swapped else ["random", "heuristic"] * 2
    bots = [
        thinking(bot_duel.make_bot(name, seat, bot_duel.Budgets()), think_us())
        for seat, name in enumerate(names)
    ]
    return bot_duel.play_game(preset, seed, hands, bots).winner


def in_process_rate(args: argparse.Namespace, key: DealKey, workers: int) -> tuple[int, float]:
    jobs = [
        (args.preset, key.seed(1 + deal), args.hands, swapped)
        for deal in range(args.deals)
        for swapped in (False, True)
    ]
    started = time.perf_counter()
    if workers == 1:
        for job in jobs:
            _duel_job(job)
    else:
        with multiprocessing.Pool(workers) as pool:
            pool.map(_duel_job, jobs)
    return len(jobs), time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40, help="deals (games = 2 × seeds)")
    parser.add_argument("--hands", type=int, default=1, help="hands per game")
    parser.add_argument("--preset", default="classic", help="rule preset")
    parser.add_argument("--fresh", action="store_true", help="also run with fresh = true")
    args = parser.parse_args()
    configure_logging("error", json=True)
    key = DealKey.new()
    figures: dict[str, float] = {}
    runs = [(c, False) for c in (1, 2, 4)] + ([(1, True)] if args.fresh else [])
    for concurrency, fresh in runs:
        with tempfile.TemporaryDirectory() as folder:
            config = arena_config(Path(folder), args, concurrency, fresh)
            games, seconds, processes = arena_rate(config, key)
        rate = games / seconds
        name = f"arena{'_fresh' if fresh else ''}_c{concurrency}"
        figures[name] = round(rate, 3)
        print(
            f"{name:16s} {games} games in {seconds:6.1f} s = {rate:6.2f} games/s "
            f"({processes} bot processes)",
            flush=True,
        )
    for workers in (1, 2):
        games, seconds = in_process_rate(args, key, workers)
        rate = games / seconds
        figures[f"in_process_{workers}"] = round(rate, 3)
        print(
            f"in-process, {workers} core{'s' if workers > 1 else ''}: {games} games in "
            f"{seconds:6.1f} s = {rate:6.2f} games/s",
            flush=True,
        )
    best = max(figures[f"arena_c{c}"] for c in (1, 2, 4))
    figures["arena_best_over_in_process_1"] = round(best / figures["in_process_1"], 3)
    figures["arena_best_over_in_process_2"] = round(best / figures["in_process_2"], 3)
    figures["c4_over_c1"] = round(figures["arena_c4"] / figures["arena_c1"], 3)
    print(
        f"arena (best concurrency) ÷ in-process on one core: "
        f"{figures['arena_best_over_in_process_1']:.2f} (target ≥ 0.7); on two cores: "
        f"{figures['arena_best_over_in_process_2']:.2f}; concurrency 4 ÷ 1: "
        f"{figures['c4_over_c1']:.2f} (target ≥ 1.6)"
    )
    print(json.dumps({"bench": "tournament", "hands": args.hands, "deals": args.deals, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
