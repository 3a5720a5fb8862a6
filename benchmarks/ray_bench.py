"""Games/s of ``arena run --ray local`` against the local runner, same config, same deals.

    python3 benchmarks/ray_bench.py [--seeds 400] [--hands 1] [--concurrency 4] [--order ray-first]

A two-bot tournament of the random and heuristic sample bots (real processes in sessions, real
gRPC on localhost), run twice from fresh databases with the same deal key: once by the local
runner, once on a Ray cluster started on this machine (every core) for the run. Prints each
run's games/s end to end (the Ray run's includes starting and stopping its cluster), the same
while the games play (from the first shard's submission, or the local server's start, to the
last game stored), the ratios (the issue's target: Ray ÷ local ≥ 0.8), the driver's measured
cost per stored game, and a JSON line.

``--driver-games N`` then measures the driver alone: shards that play nothing and yield N
results as fast as they can (on the same cluster, so on the same cores as the driver), read
by the Ray backend and stored by the real driver: the games/s one driver can store at most.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.deals import DealKey
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.results import GameRow, ResultsDB
from chaodipi.arena.tournament import (
    GameResult,
    LocalBackend,
    RayBackend,
    Recorder,
    RunResult,
    Shard,
    ShardResult,
    TournamentConfig,
    import_ray,
    parse_config,
    run_tournament,
)


def make_config(folder: Path, args: argparse.Namespace) -> TournamentConfig:
    return parse_config(
        {
            "preset": "classic",
            "hands": args.hands,
            "deals": args.deals,
            "concurrency": args.concurrency,
            "database": "bench.sqlite",
            "bots": {
                "random": {"command": "python3 -m chaodipi.sample_bots.random_bot"},
                "heuristic": {"command": "python3 -m chaodipi.sample_bots.heuristic_bot"},
            },
        },
        folder,
    )


def with_key(config: TournamentConfig, key: DealKey) -> None:
    db = ResultsDB(config.database)
    db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key.hex(),))
    db.db.commit()
    db.close()


class Clock:
    """When the run began, when its games began, and when each game was stored; this
    process's CPU time over the games (for the Ray run: the driver's, Ray's threads in it
    included)."""

    def __init__(self) -> None:
        self.began = time.perf_counter()
        self.playing = self.last = self.began
        self.cpu_playing = self.cpu_last = time.process_time()
        self.main_playing = self.main_last = time.thread_time()

    def start(self, _line: str = "") -> None:
        self.playing = time.perf_counter()
        self.cpu_playing = time.process_time()
        self.main_playing = time.thread_time()

    def game(self, _row: GameRow, _done: int, _total: int) -> None:
        self.last = time.perf_counter()
        self.cpu_last = time.process_time()
        self.main_last = time.thread_time()


def local(config: TournamentConfig) -> tuple[RunResult, Clock]:
    clock = Clock()
    backend = LocalBackend(on_listening=clock.start)
    run_result = anyio.run(
        lambda: run_tournament(config, backend, on_game=clock.game), backend="asyncio"
    )
    return run_result, clock


def on_ray(config: TournamentConfig) -> tuple[RunResult, Clock]:
    clock = Clock()
    backend = RayBackend(config, "local", on_start=clock.start)
    run_result = anyio.run(
        lambda: run_tournament(config, backend, on_game=clock.game), backend="asyncio"
    )
    return run_result, clock


def driver_cost(config: TournamentConfig, games: int) -> float:
    """Milliseconds the driver spends storing one game (SQLite insert and commit per game, and
    the recorder's bookkeeping), measured again on a copy of the rows just stored."""
    source = ResultsDB(config.database, read_only=True)
    rows = source.rows()[:games]
    source.close()
    with tempfile.TemporaryDirectory() as folder:
        copy = parse_config(
            {
                "deals": config.deals,
                "hands": config.hands,
                "database": "copy.sqlite",
                "bots": {b.name: {"command": list(b.command)} for b in config.bots},
            },
            Path(folder),
        )
        db = ResultsDB(copy.database)
        db.claim(copy.fingerprint(), resume=False)
        recorder = Recorder(copy, db, RunResult())
        started = time.perf_counter()
        for row in rows:
            recorder.keep(row)
        elapsed = time.perf_counter() - started
        db.close()
    return elapsed * 1000 / max(1, len(rows))


def instant_shard(shard: Shard) -> Iterator[ShardResult]:
    """A shard that plays nothing: a finished game's result for each of its games at once."""
    for index, key in enumerate(shard.games):
        row = GameRow(
            key, 1.0, 1, 1, 0, 0, 0, 1, 60, 0, 0, 0, 0, 0, 0, None, "played to the end", "", 0.3
        )
        yield ShardResult(shard.index, index, GameResult(row), node="bench")


def driver_limit(games: int) -> dict[str, float]:
    """Games/s the driver stores when results come as fast as a cluster can send them."""
    with tempfile.TemporaryDirectory() as folder:
        args = argparse.Namespace(deals=games // 2, hands=1, concurrency=1)
        config = make_config(Path(folder), args)
        ray = import_ray()
        if instant_shard.__module__ != "__main__":  # imported: the nodes cannot import it
            ray.cloudpickle.register_pickle_by_value(sys.modules[instant_shard.__module__])
        clock = Clock()  # from the shards' planning (the cluster is up) to the last game stored
        backend = RayBackend(
            config, "local", on_start=clock.start, deals_per_shard=250, task=instant_shard
        )
        run_result = anyio.run(
            lambda: run_tournament(config, backend, on_game=clock.game), backend="asyncio"
        )
        elapsed = clock.last - clock.playing
        cpu = clock.cpu_last - clock.cpu_playing
        main_thread = clock.main_last - clock.main_playing
    stored = run_result.played
    if run_result.stopped or not stored:
        raise SystemExit(f"the driver's run failed: {run_result.stopped}")
    print(
        f"driver alone: {stored} results stored in {elapsed:.1f} s = {stored / elapsed:.0f} "
        f"games/s; {cpu * 1000 / stored:.2f} ms of CPU a game ({main_thread * 1000 / stored:.2f} "
        "ms on its main thread), the producing workers on the same cores",
        flush=True,
    )
    return {
        "driver_games_per_s": round(stored / elapsed, 1),
        "driver_alone_cpu_ms_per_game": round(cpu * 1000 / stored, 3),
        "driver_alone_main_thread_ms_per_game": round(main_thread * 1000 / stored, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="deals (games = 2 × seeds)")
    parser.add_argument("--hands", type=int, default=1, help="hands per game")
    parser.add_argument("--concurrency", type=int, default=4, help="games at once")
    parser.add_argument("--order", choices=("local-first", "ray-first"), default="local-first")
    parser.add_argument(
        "--driver-games", type=int, default=0, help="then measure the driver alone on N results"
    )
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token written to ~/.ray
    configure_logging("error", json=True)
    key = DealKey.new()
    figures: dict[str, Any] = {}
    runs = [("local", local), ("ray", on_ray)]
    if args.order == "ray-first":
        runs.reverse()
    with tempfile.TemporaryDirectory() as folder:
        for name, runner in runs:
            config = make_config(Path(folder) / name, args)
            with_key(config, key)
            run_result, clock = runner(config)
            if run_result.void or run_result.stopped or run_result.problems:
                why = run_result.stopped or run_result.problems
                raise SystemExit(f"the {name} run failed: {why}")
            total = clock.last - clock.began
            playing = clock.last - clock.playing
            figures[name] = {
                "games": run_result.played,
                "seconds": round(total, 2),
                "games_per_s": round(run_result.played / total, 3),
                "playing_s": round(playing, 2),
                "playing_games_per_s": round(run_result.played / playing, 3),
                "processes": run_result.processes,
            }
            print(
                f"{name:6s} {run_result.played} games in {total:6.1f} s = "
                f"{run_result.played / total:5.2f} games/s end to end; "
                f"{run_result.played / playing:5.2f} games/s while playing ({playing:.1f} s); "
                f"{run_result.processes} bot processes",
                flush=True,
            )
            if name == "ray":
                cpu = (clock.cpu_last - clock.cpu_playing) * 1000 / run_result.played
                figures["driver_cpu_ms_per_game"] = round(cpu, 3)
                main = (clock.main_last - clock.main_playing) * 1000 / run_result.played
                figures["driver_main_thread_ms_per_game"] = round(main, 3)
                figures["store_ms_per_game"] = round(driver_cost(config, run_result.played), 3)
    ratio = figures["ray"]["games_per_s"] / figures["local"]["games_per_s"]
    playing_ratio = figures["ray"]["playing_games_per_s"] / figures["local"]["playing_games_per_s"]
    figures["ratio"] = round(ratio, 3)
    figures["playing_ratio"] = round(playing_ratio, 3)
    print(
        f"--ray local ÷ local: {ratio:.2f} end to end (target ≥ 0.8), {playing_ratio:.2f} "
        f"while playing; the Ray driver spent {figures['driver_cpu_ms_per_game']:.2f} ms of "
        f"CPU per game ({figures['driver_main_thread_ms_per_game']:.2f} ms on its main thread, "
        f"the rest in Ray's threads), of which storing it (SQLite, bookkeeping) "
        f"{figures['store_ms_per_game']:.2f} ms"
    )
    if args.driver_games:
        figures.update(driver_limit(args.driver_games))
    print(json.dumps({"bench": "ray", "hands": args.hands, "deals": args.deals, **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
