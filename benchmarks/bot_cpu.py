"""CPU µs per decision of a Python bot process: an older SDK (``--before``, default ``main``)
against this checkout's, in the same ``arena run``s.

    python3 benchmarks/bot_cpu.py [--before main] [--short 5] [--long 40] [--repeats 3]

Wall-clock rates mean little on a shared machine; CPU time does not swing with the load. Each
repeat is two tournaments of random bots through ``arena run`` (1-hand classic games at
``--concurrency``): ``--short`` deals, then ``--long`` deals. The two bots of each tournament
are the same random bot on two SDKs: ``before`` runs on a ``git archive`` of the ``--before``
ref (its SDK, contract conversion and engine), ``after`` on this checkout. Every bot process
reports at its exit the decisions it answered, the CPU its ``decide`` took (``thread_time``),
its CPU time (``getrusage``, threads that ended
included), its context switches, and the CPU of each thread still alive (``/proc/self/task``,
gRPC's native threads included; threads that ended are the rest). CPU per decision is the
difference between the long and the short run divided by the difference in decisions, so the
start-up (imports, connecting) cancels out. Prints one line per repeat and SDK, the median
and least per SDK, and a JSON line; the arena process is not measured here. The arena is this
checkout's, with its default transport: an SDK that reads ``$ARENA_LOCAL`` plays over the
local link, an older one over gRPC. Once this SDK is on ``main``, compare it with an older
commit: ``--before COMMIT``.
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
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


# -- the bot process ---------------------------------------------------------------------------


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of each live thread of this process, grouped by kind: ``main``, Python
    threads by name (``decide``, ``seat``, ...), ``native`` (gRPC's own threads)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    main_id = threading.main_thread().native_id
    groups: dict[str, float] = defaultdict(float)
    for task in Path("/proc/self/task").iterdir():
        try:
            on_cpu_ns = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        tid = int(task.name)
        if tid == main_id:
            kind = "main"
        elif tid in names:
            kind = names[tid].split("-")[0].split(" ")[0] or "python"
        else:
            kind = "native"
        groups[kind] += on_cpu_ns / 1e9
    return dict(groups)


def child(tree: Path, label: str, reports: Path, argv: list[str]) -> int:
    """Play the arena's session as the random bot on the SDK in ``tree``; write a report."""
    sys.path.insert(0, str(tree / "src"))
    import random

    import chaodipi.bot
    from chaodipi.bot import run_bot

    if not Path(chaodipi.bot.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{label}: imported the SDK from {chaodipi.bot.__file__}, not {tree}")
    import time

    rng = random.Random(os.getpid())
    decisions = 0
    decide_s = 0.0

    def decide(view: Any) -> Any:
        nonlocal decisions, decide_s
        decisions += 1
        started = time.thread_time()
        action = view.legal.sample(rng)
        decide_s += time.thread_time() - started
        return action

    run_bot(decide, argv=argv, name=f"random-{label}")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    threads = _thread_cpu()
    cpu_s = usage.ru_utime + usage.ru_stime
    threads["ended"] = max(0.0, cpu_s - sum(threads.values()))
    report = {
        "sdk": label,
        "decisions": decisions,
        "cpu_s": cpu_s,
        "decide_s": decide_s,
        "switches": usage.ru_nvcsw + usage.ru_nivcsw,
        "threads": threads,
    }
    (reports / f"{label}-{os.getpid()}.json").write_text(json.dumps(report))
    return 0


# -- the runs ----------------------------------------------------------------------------------


def _config(folder: Path, trees: dict[str, Path], deals: int, concurrency: int) -> Path:
    reports = folder / "reports"
    reports.mkdir()
    lines = [
        'preset = "classic"',
        "hands = 1",
        f"deals = {deals}",
        f"concurrency = {concurrency}",
        'database = "bench.sqlite"',
    ]
    for label, tree in trees.items():
        command = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree), label]
        command.append(str(reports))
        lines += [f"[bots.{label}]", f"command = {json.dumps(command)}"]
    path = folder / "tournament.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_once(trees: dict[str, Path], deals: int, concurrency: int) -> dict[str, dict[str, Any]]:
    """One tournament: the summed reports of each SDK's processes."""
    with tempfile.TemporaryDirectory(prefix="bot-cpu-") as scratch:
        folder = Path(scratch)
        config = _config(folder, trees, deals, concurrency)
        done = subprocess.run(
            [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
            cwd=folder,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"arena run failed ({done.returncode}): {done.stderr[-2000:]}")
        totals: dict[str, dict[str, Any]] = {}
        for path in sorted((folder / "reports").glob("*.json")):
            report = json.loads(path.read_text())
            total = totals.setdefault(
                report["sdk"],
                {
                    "processes": 0,
                    "decisions": 0,
                    "cpu_s": 0.0,
                    "decide_s": 0.0,
                    "switches": 0,
                    "threads": {},
                },
            )
            total["processes"] += 1
            for key in ("decisions", "cpu_s", "decide_s", "switches"):
                total[key] += report[key]
            for kind, seconds in report["threads"].items():
                total["threads"][kind] = total["threads"].get(kind, 0.0) + seconds
    missing = set(trees) - set(totals)
    if missing:
        raise SystemExit(f"no report from the {', '.join(sorted(missing))} bot processes")
    return totals


def per_decision(short: dict[str, Any], long: dict[str, Any]) -> dict[str, Any]:
    """µs per decision (and switches, and µs by thread) from the long run less the short."""
    decisions = long["decisions"] - short["decisions"]
    if decisions <= 0 or long["processes"] != short["processes"]:
        raise SystemExit(f"the runs do not compare: {short} against {long}")
    kinds = set(short["threads"]) | set(long["threads"])
    threads = {
        kind: (long["threads"].get(kind, 0.0) - short["threads"].get(kind, 0.0)) / decisions * 1e6
        for kind in sorted(kinds)
    }
    return {
        "decisions": decisions,
        "cpu_us": (long["cpu_s"] - short["cpu_s"]) / decisions * 1e6,
        "beyond_decide_us": (long["cpu_s"] - long["decide_s"] - short["cpu_s"] + short["decide_s"])
        / decisions
        * 1e6,
        "switches": (long["switches"] - short["switches"]) / decisions,
        "threads_us": threads,
    }


def _archive(ref: str, into: Path) -> Path:
    """``ref``'s files (``git archive``) in ``into``."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="the git ref of the older SDK")
    parser.add_argument("--short", type=int, default=5, help="deals of the short run")
    parser.add_argument("--long", type=int, default=40, help="deals of the long run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    figures: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="bot-cpu-before-") as before:
        trees = {"before": _archive(args.before, Path(before)), "after": ROOT}
        for repeat in range(1, args.repeats + 1):
            short = run_once(trees, args.short, args.concurrency)
            long = run_once(trees, args.long, args.concurrency)
            for label in trees:
                figure = per_decision(short[label], long[label])
                figures[label].append(figure)
                threads = ", ".join(f"{k} {v:.0f}" for k, v in figure["threads_us"].items())
                print(
                    f"repeat {repeat} {label:>6}: {figure['cpu_us']:6.0f} µs CPU per decision, "
                    f"{figure['beyond_decide_us']:6.0f} beyond decide "
                    f"({figure['decisions']} decisions, {figure['switches']:.1f} context "
                    f"switches each; by thread: {threads})",
                    flush=True,
                )
    summary = {}
    for label, runs in figures.items():
        cpu = [run["cpu_us"] for run in runs]
        beyond = [run["beyond_decide_us"] for run in runs]
        summary[label] = {
            "median_us": statistics.median(cpu),
            "least_us": min(cpu),
            "beyond_decide_median_us": statistics.median(beyond),
            "runs": runs,
        }
        print(
            f"{label:>6}: median {statistics.median(cpu):.0f} µs, least {min(cpu):.0f} µs; "
            f"beyond decide, median {statistics.median(beyond):.0f} µs"
        )
    ratio = summary["after"]["median_us"] / summary["before"]["median_us"]
    print(f"after ÷ before (medians): {ratio:.2f}")
    print(json.dumps({"before_ref": args.before, "concurrency": args.concurrency, **summary}))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "--child":
        sys.exit(child(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5:]))
    sys.exit(main())
