"""The trainer's hands a second on this machine: ``python3 -m chaodipi.rl.train`` run for a
number of hands per stage, with its actors as processes, from this tree and, with
``--before SRC``, from another source tree (another checkout's ``src/``), in turns, in one run
(a shared machine's load falls on both alike).

    python3 benchmarks/train_speed.py [--before ../main/src] [--hands 600] [--rounds 2]

Each run starts from a new network of the default sizes, with ``--actors 2`` and no
evaluation; its rate is the trainer's own count (hands the learner took) from its first report
on (start-up left out), by the wall clock; beside it, hands per CPU second (the learner's and
the actors' processes, less the CPU of a run of no hands from the same tree: start-up and
shutdown), which other work on the machine lowers far less: twice it is about what two idle
cores would give. Prints one JSON line per
run and one per tree and stage (the mean over the rounds). Needs torch.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"


def cpu_of(source: Path, folder: Path, stage: str, hands: int) -> float:
    """The CPU seconds (user + system) of one trainer run from ``source``, its processes all."""
    command = [sys.executable, "-m", "chaodipi.rl.train", "--out", str(folder), "--stage", stage,
               "--hands", str(hands), "--minutes", "60", "--actors", "2", "--eval-deals", "0",
               "--report-seconds", "3"]
    env = {**os.environ, "PYTHONPATH": str(source)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(source: Path, folder: Path, stage: str, hands: int) -> dict[str, float]:
    """One trainer run from ``source``: hands, seconds, hands a second after start-up, and
    hands per CPU second less a run of no hands' CPU (start-up and shutdown)."""
    idle = cpu_of(source, folder.with_name(folder.name + "-idle"), stage, 0)
    cpu = cpu_of(source, folder, stage, hands)
    lines = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    first = next(e for e in lines if "hands_per_s" in e)
    done = lines[-1]["done"]
    seconds = done["seconds"] - 60 * first["minutes"]
    return {"hands": done["hands"], "seconds": round(done["seconds"], 1),
            "hands_per_s": round((done["hands"] - first["hands"]) / seconds, 2),
            "cpu_s": round(cpu, 1), "idle_cpu_s": round(idle, 1),
            "hands_per_cpu_s": round(done["hands"] / (cpu - idle), 2)}


def main() -> None:
    parse = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parse.add_argument("--before", type=Path, default=None,
                       help="another source tree to measure in turns with this one")
    parse.add_argument("--hands", type=int, default=600, help="hands per run (default: 600)")
    parse.add_argument("--rounds", type=int, default=2, help="runs per tree and stage")
    parse.add_argument("--stages", default="imitate,self", help="(default: imitate,self)")
    args = parse.parse_args()
    trees: dict[str, Path] = {"this": HERE}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    rates: dict[tuple[str, str], list[float]] = {}
    cpu_rates: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for stage in args.stages.split(","):
                for name, source in trees.items():
                    folder = Path(tmp) / f"{name}-{stage}-{round_}"
                    figure = run(source, folder, stage, args.hands)
                    rates.setdefault((name, stage), []).append(figure["hands_per_s"])
                    cpu_rates.setdefault((name, stage), []).append(figure["hands_per_cpu_s"])
                    print(json.dumps({"tree": name, "stage": stage, "round": round_, **figure}),
                          flush=True)
    for (name, stage), values in rates.items():
        print(json.dumps({"tree": name, "stage": stage, "source": str(trees[name]),
                          "hands_per_s_mean": round(sum(values) / len(values), 2),
                          "hands_per_cpu_s_mean": round(
                              sum(cpu_rates[name, stage]) / len(values), 2),
                          "runs": values}))


if __name__ == "__main__":
    main()
