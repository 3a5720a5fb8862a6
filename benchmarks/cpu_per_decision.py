"""CPU per decision of the arena process and of its bot processes, beside the wall-clock ratio
to the same bots in-process: figures that survive a loaded machine.

    python3 benchmarks/cpu_per_decision.py [--tree before=../arena-main] [--tree this=.]
        [--short 5] [--long 40] [--rounds 3] [--concurrency 2 [4 ...]]
        [--transport local grpc]

For each source tree (``NAME=PATH``: a checkout of the arena; the same Python runs them all,
with ``PATH/src`` first on its path, so a bot process imports that tree's SDK too) and each
round, ``arena run`` plays a short and a long tournament of the random and heuristic sample
bots (1-hand classic games, concurrency 2 unless ``--concurrency`` names others: each tree is
then measured at each, as ``NAME cN``; ``--transport`` names the config's ``transport`` values
to measure each tree at, as ``NAME local`` and ``NAME grpc``, for trees that have the key (a tree
given as ``NAME=PATH:TRANSPORT`` at that one only); without it the key is left out, as a tree
that predates it needs; the same deal key for every run), each
in a fresh child process. The child counts the Decisions its tables send and reports, at the end:

- ``getrusage(RUSAGE_SELF)``: the arena process's CPU, every thread included;
- per-thread CPU from ``/proc/self/task/*/schedstat`` (gRPC's native threads included), by
  thread name, for the threads alive at the end;
- ``getrusage(RUSAGE_CHILDREN)``: the bot processes' CPU (the arena reaps them);
- context switches, and the wall time of the run.

CPU per decision = (long − short) ÷ (decisions long − decisions short): start-up, bot
processes' start and the database's set-up cancel out. The least of the rounds is the figure
(interference on a shared machine only ever adds CPU); the median is printed beside it. The
rounds rotate the trees' order. Beside it, each long run's games/s against the same games
in-process (``benchmarks/bot_duel.py``'s loop over 2 worker processes, the same deals) measured
right after it: a wall ratio (the median of the rounds), only as good as the machine is quiet.
Beside it the same ratio in CPU, which the load does not move: the in-process games' CPU per
game (its worker processes, getrusage) ÷ the arena's (arena process and bot processes) per
game, as the difference of the long and short runs (``cpu_ratio``: what a run would reach on
saturated cores) and over the long run with its start-up (``cpu_ratio_run``).
Every process runs with bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped, the caches go to
a temporary ``PYTHONPYCACHEPREFIX``, warmed by a 1-deal run of each tree first), as on a user's
machine: without them every bot process compiles the arena's sources as it starts.
``--think-us US`` makes both bots spend ``US`` µs of CPU more a decision, in ``arena run`` and
in-process alike (``benchmarks/thinking_bot.py``): the same figures for bots that decide in
about that long. Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from thinking_bot import THINK_US, think_us  # noqa: E402

BOTS = ("random", "heuristic")


class ThreadSampler:
    """CPU seconds of every thread of this process, ended ones included: a daemon thread
    reads ``/proc/self/task`` every ``PERIOD_S`` and keeps each thread's last figure (a
    thread's CPU only grows), named by the role it plays."""

    PERIOD_S = 0.5

    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}
        self.roles: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)

    def __enter__(self) -> ThreadSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def _run(self) -> None:
        while not self._stop.wait(self.PERIOD_S):
            self.sample()

    def sample(self) -> None:
        python = {t.native_id: t.name for t in threading.enumerate()}
        for task in Path("/proc/self/task").iterdir():
            try:
                tid = int(task.name)
                ns = int((task / "schedstat").read_text().split()[0])
            except (OSError, ValueError):
                continue
            self.seconds[tid] = ns / 1e9
            if tid not in self.roles:
                self.roles[tid] = _role(tid, python.get(tid))

    def by_role(self) -> dict[str, float]:
        roles: dict[str, float] = {}
        for tid, seconds in self.seconds.items():
            role = self.roles[tid]
            roles[role] = roles.get(role, 0.0) + seconds
        return roles


def _role(tid: int, python_name: str | None) -> str:
    """What a thread is: the main thread (the event loop: trio's before the one-loop server,
    asyncio's since), the bridge's gRPC thread (before), grpc.aio's completion-queue poller,
    another Python thread, or one of gRPC's native threads."""
    if tid == os.getpid():
        return "main"
    if python_name == "grpc":
        return "grpc.aio thread"
    if python_name == "cpu-sampler":
        return "sampler"
    if python_name is not None and "_poll_wrapper" in python_name:
        return "grpc.aio poller"
    if python_name is not None:
        return "other python"  # trio's and asyncio's helper threads: waitpid, to_thread
    return "grpc native"


def child(deals: int, folder: Path, out: Path) -> None:
    """In the child (the tree to measure on its path): one `arena run`, then its figures."""
    from chaodipi.arena.cli.main import main
    from chaodipi.arena.results import ResultsDB
    from chaodipi.arena.serving import Table

    decisions = [0]
    send_decision = Table._send_decision

    def counted(self: Table) -> None:
        decisions[0] += 1
        send_decision(self)

    Table._send_decision = counted  # type: ignore[method-assign]
    python = sys.executable
    thinking = think_us() > 0
    bots = "".join(
        f'[bots.{name}]\ncommand = "{python} {HERE / "thinking_bot.py"} {name}"\n'
        if thinking
        else f'[bots.{name}]\ncommand = "{python} -m chaodipi.sample_bots.{name}_bot"\n'
        for name in BOTS
    )
    config = folder / "bench.toml"
    transport = os.environ.get("BENCH_TRANSPORT", "")
    config.write_text(
        f'preset = "classic"\nhands = 1\ndeals = {deals}\n'
        f"concurrency = {os.environ.get('BENCH_CONCURRENCY', '2')}\n"
        + (f'transport = "{transport}"\n' if transport else "")
        + f'database = "bench.sqlite"\n{bots}'
    )
    key = os.environ["BENCH_DEAL_KEY"]
    db = ResultsDB(folder / "bench.sqlite")
    db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key,))
    db.db.commit()
    db.close()
    started = time.perf_counter()
    with ThreadSampler() as sampler:
        code = main(["run", str(config), "--log-level", "error", "--json"])
    wall = time.perf_counter() - started
    me = resource.getrusage(resource.RUSAGE_SELF)
    bots_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = {
        "code": code,
        "decisions": decisions[0],
        "games": 2 * deals,
        "wall_s": wall,
        "cpu_s": me.ru_utime + me.ru_stime,
        "threads": sampler.by_role(),
        "voluntary": me.ru_nvcsw,
        "involuntary": me.ru_nivcsw,
        "bots_cpu_s": bots_usage.ru_utime + bots_usage.ru_stime,
    }
    out.write_text(json.dumps(figures))


def tree_path(tree: Path) -> str:
    """The ``PYTHONPATH`` that runs checkout ``tree``'s code (its ``src`` first)."""
    return f"{tree / 'src'}{os.pathsep}{tree}"


def run_child(
    tree: Path, deals: int, key: str, concurrency: int = 2, transport: str = ""
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cpu-bench-") as folder:
        out = Path(folder) / "figures.json"
        env = {
            **os.environ,
            "PYTHONPATH": tree_path(tree),
            "BENCH_DEAL_KEY": key,
            "BENCH_CONCURRENCY": str(concurrency),
            "BENCH_TRANSPORT": transport,
        }
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(deals), folder, str(out)],
            env=env,
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"the run on {tree} failed:\n{done.stderr[-3000:]}")
        figures: dict[str, Any] = json.loads(out.read_text())
        if figures["code"] != 0:
            raise SystemExit(
                f"arena run on {tree} exited {figures['code']}:\n{done.stderr[-3000:]}"
            )
        return figures


def per_decision(short: dict[str, Any], long: dict[str, Any]) -> dict[str, float]:
    """µs per decision of the long run over the short one."""
    decisions = int(long["decisions"] - short["decisions"])

    def us(field_long: float, field_short: float) -> float:
        return round((field_long - field_short) / decisions * 1e6, 1)

    figures: dict[str, float] = {
        "arena_us": us(long["cpu_s"], short["cpu_s"]),
        "bots_us": us(long["bots_cpu_s"], short["bots_cpu_s"]),
        "switches": round(
            (long["voluntary"] + long["involuntary"] - short["voluntary"] - short["involuntary"])
            / decisions,
            1,
        ),
    }
    roles = sorted(set(long["threads"]) | set(short["threads"]))
    for role in roles:
        in_long, in_short = long["threads"].get(role, 0.0), short["threads"].get(role, 0.0)
        figures[f"thread {role} us"] = us(in_long, in_short)
    return figures


def in_process_rate(key_hex: str, deals: int, workers: int) -> tuple[float, float]:
    """Games/s of the same games in-process (bot_duel's loop), over ``workers`` processes, and
    their CPU seconds per game."""
    import tournament_bench

    from chaodipi.arena.deals import DealKey

    args = argparse.Namespace(preset="classic", hands=1, deals=deals)
    before = _cpu_s(resource.RUSAGE_CHILDREN) + _cpu_s(resource.RUSAGE_SELF)
    games, seconds = tournament_bench.in_process_rate(args, DealKey.from_hex(key_hex), workers)
    cpu = _cpu_s(resource.RUSAGE_CHILDREN) + _cpu_s(resource.RUSAGE_SELF) - before
    return games / seconds, cpu / games


def _cpu_s(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree",
        action="append",
        metavar="NAME=PATH[:TRANSPORT]",
        help="a checkout to measure (repeat; default: this one, as `this`), at the given "
        "transport only if one follows a colon",
    )
    parser.add_argument("--short", type=int, default=5, help="deals in the short run")
    parser.add_argument("--long", type=int, default=40, help="deals in the long run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every tree")
    parser.add_argument(
        "--concurrency",
        type=int,
        nargs="+",
        default=[2],
        metavar="N",
        help="games at once in `arena run` (several: each tree at each)",
    )
    parser.add_argument(
        "--transport",
        nargs="+",
        default=[""],
        choices=["local", "grpc"],
        help="the config's transport values to measure each tree at (default: the key left out)",
    )
    parser.add_argument(
        "--think-us",
        type=int,
        default=0,
        metavar="US",
        help="µs of CPU each decision of both bots spends more, in the arena and in-process "
        "(benchmarks/thinking_bot.py: a bot that decides in about that long; default 0)",
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        deals, folder, out = args.child
        child(int(deals), Path(folder), Path(out))
        return 0
    given = [
        (name, Path(path).resolve(), [transport] if transport else args.transport)
        for name, _, place in (t.partition("=") for t in args.tree or [f"this={HERE.parent}"])
        for path, _, transport in [place.partition(":")]
    ]
    several = len(args.concurrency) > 1

    def label(name: str, concurrency: int, transport: str) -> str:
        return " ".join(
            [name, *([f"c{concurrency}"] if several else []), *([transport] if transport else [])]
        )

    trees = [
        (label(name, concurrency, transport), path, concurrency, transport)
        for name, path, transports in given
        for concurrency in args.concurrency
        for transport in transports
    ]
    from chaodipi.arena.deals import DealKey

    os.environ[THINK_US] = str(args.think_us)  # the bots' and the in-process games'
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="cpu-bench-pycache-")
    sys.dont_write_bytecode = False
    key = DealKey.new().hex()
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name, _, _, _ in trees}
    for tree in {path for _, path, _ in given}:
        _, _, concurrency, transport = next(t for t in trees if t[1] == tree)
        run_child(tree, 1, key, concurrency, transport)  # warms the bytecode caches of each tree
    for round_number in range(args.rounds):
        shift = round_number % len(trees)
        for name, tree, concurrency, transport in trees[shift:] + trees[:shift]:
            short = run_child(tree, args.short, key, concurrency, transport)
            long = run_child(tree, args.long, key, concurrency, transport)
            figures = per_decision(short, long)
            arena = long["games"] / long["wall_s"]
            in_process, in_process_cpu = in_process_rate(key, args.long, 2)
            arena_cpu = (
                long["cpu_s"] + long["bots_cpu_s"] - short["cpu_s"] - short["bots_cpu_s"]
            ) / (long["games"] - short["games"])
            figures["arena_run_cpu_s"] = round(long["cpu_s"], 2)
            figures["bots_run_cpu_s"] = round(long["bots_cpu_s"], 2)
            figures["in_process_run_cpu_s"] = round(in_process_cpu * long["games"], 2)
            figures["in_process_us_decision"] = round(
                in_process_cpu * long["games"] / long["decisions"] * 1e6, 1
            )
            figures["in_process_ms_game"] = round(in_process_cpu * 1000, 1)
            figures["arena_ms_game"] = round(arena_cpu * 1000, 1)
            figures["cpu_ratio"] = round(in_process_cpu / arena_cpu, 3)
            figures["cpu_ratio_run"] = round(
                in_process_cpu * long["games"] / (long["cpu_s"] + long["bots_cpu_s"]), 3
            )
            figures["arena_games_s"] = round(arena, 2)
            figures["in_process_2_games_s"] = round(in_process, 2)
            figures["wall_ratio"] = round(arena / in_process, 3)
            rounds[name].append(figures)
            print(f"round {round_number + 1}, {name}: {figures}", flush=True)
    summary: dict[str, Any] = {}
    print(
        "\n| tree | arena µs/decision, least (median) | bots µs/decision | "
        "ctx switches | by thread (least round) | arena ÷ in-process 2, median | "
        "the same in CPU, median (with start-up) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, _, _, _ in trees:
        runs = rounds[name]
        best = min(runs, key=lambda r: r["arena_us"])
        arena_median = statistics.median(r["arena_us"] for r in runs)
        bots_least = min(r["bots_us"] for r in runs)
        threads = ", ".join(
            f"{k.removeprefix('thread ').removesuffix(' us')} {v:g}"
            for k, v in best.items()
            if k.startswith("thread ")
        )
        ratio = statistics.median(r["wall_ratio"] for r in runs)
        cpu_ratio = statistics.median(r["cpu_ratio"] for r in runs)
        cpu_ratio_run = statistics.median(r["cpu_ratio_run"] for r in runs)
        summary[name] = {
            "arena_us_least": best["arena_us"],
            "arena_us_median": arena_median,
            "bots_us_least": bots_least,
            "best_round": best,
            "rounds": runs,
            "wall_ratio_median": ratio,
            "cpu_ratio_median": cpu_ratio,
            "cpu_ratio_run_median": cpu_ratio_run,
        }
        print(
            f"| {name} | {best['arena_us']:g} ({arena_median:g}) | {bots_least:g} | "
            f"{best['switches']:g} | {threads} | {ratio:.2f} | {cpu_ratio:.2f} "
            f"({cpu_ratio_run:.2f}) |"
        )
    print(
        json.dumps(
            {
                "bench": "cpu_per_decision",
                "short": args.short,
                "long": args.long,
                "load": os.getloadavg(),
                **summary,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
