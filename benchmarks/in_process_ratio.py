"""``arena run`` of in-process bots against the same games in-process, with the same bots over
the local link in the same run: issue #45's ratios.

    python3 benchmarks/in_process_ratio.py [--deals 100] [--rounds 1] [--think-us 0]
        [--search-deals 0]

Each round plays, from one deal key, 1-hand classic games of the random against the heuristic
bot, each as a command of its own in a fresh process:

- ``in-process``: ``benchmarks/bot_duel.py``'s loop (the view observed, ``decide``, the action
  applied) over two worker processes, as ``bot_duel.py --workers 2`` plays;
- ``link``: ``arena run`` of the sample bots' commands, each bot a pool of processes on the
  local link (concurrency 4, ``arena run``'s default);
- ``workers``: ``arena run`` of the same bots as in-process bots
  (``py:chaodipi.sample_bots.rungs:Random`` and ``…:Heuristic``), in worker processes (one per
  core).

For each: the wall time of the whole command (its start-up included), games a second, and the
CPU of the command and of every process it started (this process is their subreaper, so a
worker's CPU is counted whichever process reaps it); the load average before and after. The
ratios are each ``arena run``'s games a second ÷ the in-process ones, by the wall clock (only
as good as the machine is quiet) and in CPU a game (which the load moves little); and, from a
``--short`` run of each too, the CPU a game beyond start-up (the long run's less the short
run's, over the games between them: what a long tournament costs a game). With
``--think-us US`` both bots spend US µs of CPU more a decision (``thinking_bot.py``), in all
three. With ``--search-deals N``, ``arena bench --ladder --rungs heuristic,search -n N --hands
1`` is timed too, its bots processes (``--workers 0``: before) and in-process (after): the
search rung's games a second. Every process runs with bytecode caches (warmed by a first
1-deal round). Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PR_SET_CHILD_SUBREAPER = 36

BOTS = {
    "link": {
        "random": "python3 -m chaodipi.sample_bots.random_bot",
        "heuristic": "python3 -m chaodipi.sample_bots.heuristic_bot",
    },
    "workers": {
        "random": "py:chaodipi.sample_bots.rungs:Random",
        "heuristic": "py:chaodipi.sample_bots.rungs:Heuristic",
    },
}
THINKING = {
    "link": {
        "random": f"python3 {HERE / 'thinking_bot.py'} random",
        "heuristic": f"python3 {HERE / 'thinking_bot.py'} heuristic",
    },
    "workers": {"random": "py:thinking_bot:Random", "heuristic": "py:thinking_bot:Heuristic"},
}


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap() -> None:
    """Wait for every process left (workers, a fork server) now ours as their subreaper."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Run a command to its end: its wall seconds, and the CPU seconds of it and every process
    it started."""
    before = _cpu_children()
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    _reap()
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return {"wall_s": wall, "cpu_s": _cpu_children() - before}


def arena_run(kind: str, deals: int, key: str, think: bool, env: dict[str, str]) -> Any:
    """``arena run`` of ``BOTS[kind]`` (or ``THINKING[kind]``), dealt from ``key``."""
    from chaodipi.arena.results import ResultsDB

    bots = (THINKING if think else BOTS)[kind]
    with tempfile.TemporaryDirectory(prefix="in-process-ratio-") as folder:
        config = Path(folder) / "run.toml"
        lines = ['preset = "classic"', "hands = 1", f"deals = {deals}", 'database = "r.sqlite"']
        for name, command in bots.items():
            lines += [f"[bots.{name}]", f"command = {json.dumps(command)}"]
        config.write_text("\n".join(lines) + "\n")
        db = ResultsDB(Path(folder) / "r.sqlite")
        db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key,))
        db.db.commit()
        db.close()
        argv = [sys.executable, "-m", "chaodipi.arena", "run", str(config), "--log-level", "error"]
        return timed(argv, Path(folder), env)


def in_process(deals: int, key: str, env: dict[str, str]) -> Any:
    argv = [sys.executable, __file__, "--in-process", str(deals), key]
    return timed(argv, HERE, env)


def in_process_child(deals: int, key_hex: str) -> None:
    """In the child: bot_duel.py's loop over 2 worker processes, the same deals."""
    import tournament_bench

    from chaodipi.arena.deals import DealKey

    args = argparse.Namespace(preset="classic", hands=1, deals=deals)
    tournament_bench.in_process_rate(args, DealKey.from_hex(key_hex), 2)


def bench(workers: bool, deals: int, folder: Path, env: dict[str, str]) -> Any:
    argv = [sys.executable, "-m", "chaodipi.arena", "bench", "--ladder"]
    argv += ["--rungs", "heuristic,search", "-n", str(deals), "--hands", "1"]
    argv += [] if workers else ["--workers", "0"]
    with tempfile.TemporaryDirectory(prefix="in-process-bench-", dir=folder) as here:
        return timed(argv, Path(here), env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals (each played twice)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the three")
    parser.add_argument("--short", type=int, default=5,
                        help="deals of the short runs (0: none): the CPU a game beyond start-up")
    parser.add_argument("--think-us", type=int, default=0, metavar="US",
                        help="µs of CPU each decision of both bots spends more")
    parser.add_argument("--search-deals", type=int, default=0, metavar="N",
                        help="also time arena bench --ladder --rungs heuristic,search on N deals")
    parser.add_argument("--in-process", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_process:
        in_process_child(int(args.in_process[0]), args.in_process[1])
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("cannot be the subreaper of the runs (prctl failed)")
    from chaodipi.arena.deals import DealKey

    key = DealKey.new().hex()
    env = {
        k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"
    }
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="in-process-pycache-")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(HERE)])
    env["BENCH_THINK_US"] = str(args.think_us)
    think = args.think_us > 0
    for warm in ("link", "workers"):  # the bytecode caches of every process's imports
        arena_run(warm, 1, key, think, env)
    in_process(1, key, env)
    games = 2 * args.deals
    rounds: list[dict[str, Any]] = []
    for number in range(args.rounds):
        figures: dict[str, Any] = {"load_before": os.getloadavg()}
        order = ["in-process", "link", "workers"]
        shift = number % 3
        for kind in order[shift:] + order[:shift]:

            def run(deals: int, kind: str = kind) -> Any:
                if kind == "in-process":
                    return in_process(deals, key, env)
                return arena_run(kind, deals, key, think, env)

            ran = run(args.deals)
            ran["games_s"] = games / ran["wall_s"]
            ran["cpu_ms_game"] = 1000 * ran["cpu_s"] / games
            if args.short:
                short = run(args.short)
                ran["short_cpu_s"] = short["cpu_s"]
                ran["cpu_ms_game_beyond_start"] = (
                    1000 * (ran["cpu_s"] - short["cpu_s"]) / (games - 2 * args.short)
                )
            figures[kind] = ran
        for kind in ("link", "workers"):
            anchor = figures["in-process"]
            figures[f"{kind}_wall_ratio"] = figures[kind]["games_s"] / anchor["games_s"]
            figures[f"{kind}_cpu_ratio"] = anchor["cpu_ms_game"] / figures[kind]["cpu_ms_game"]
            if args.short:
                beyond = "cpu_ms_game_beyond_start"
                figures[f"{kind}_cpu_ratio_beyond_start"] = anchor[beyond] / figures[kind][beyond]
        figures["load_after"] = os.getloadavg()
        rounds.append(figures)
        print(f"round {number + 1}: {json.dumps(figures)}", flush=True)
    search: dict[str, Any] = {}
    if args.search_deals:
        with tempfile.TemporaryDirectory(prefix="in-process-search-") as folder:
            bench(True, 1, Path(folder), env)  # warm
            for name, workers in (("processes", False), ("workers", True)):
                search[f"load_before_{name}"] = os.getloadavg()
                ran = bench(workers, args.search_deals, Path(folder), env)
                ran["games_s"] = 2 * args.search_deals / ran["wall_s"]
                search[name] = ran
        print(f"search: {json.dumps(search)}", flush=True)
    print("\n| round | load (before, after) | in-process games/s (CPU ms a game; beyond "
          "start-up) | link | workers | link ÷ in-process, wall (CPU; beyond start-up) | "
          "workers ÷ in-process, wall (CPU; beyond start-up) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for number, r in enumerate(rounds, 1):
        beyond = "cpu_ms_game_beyond_start"
        cells = [f"{r[k]['games_s']:.2f} ({r[k]['cpu_ms_game']:.1f}; {r[k].get(beyond, 0):.1f})"
                 for k in ("in-process", "link", "workers")]
        ratios = [f"{r[f'{k}_wall_ratio']:.2f} ({r[f'{k}_cpu_ratio']:.2f}; "
                  f"{r.get(f'{k}_cpu_ratio_beyond_start', 0):.2f})" for k in ("link", "workers")]
        load = f"{r['load_before'][0]:.1f}, {r['load_after'][0]:.1f}"
        print(f"| {number} | {load} | " + " | ".join(cells + ratios) + " |")
    if search:
        print(
            f"\nsearch rung (arena bench --ladder --rungs heuristic,search): processes "
            f"{search['processes']['games_s']:.3f} games/s (CPU {search['processes']['cpu_s']:.1f}"
            f" s), in-process {search['workers']['games_s']:.3f} games/s (CPU "
            f"{search['workers']['cpu_s']:.1f} s)"
        )
    print(json.dumps({"bench": "in_process_ratio", "deals": args.deals,
                      "think_us": args.think_us, "rounds": rounds, "search": search}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
