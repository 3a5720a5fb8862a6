"""The trainer's self-play hands a second: its actors as processes on this machine, then as Ray
actors on a two-node Ray cluster started on this machine (a head with no CPU and two nodes of
one CPU each), the same number of hands each, one run each (wall time, from the trainer's log).

    python3 benchmarks/train_ray.py [--hands 400] [--stage self]

Needs torch and the ray extra. Both runs start from a new network of the default sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def run(folder: Path, hands: int, stage: str, ray: str | None) -> dict[str, float]:
    command = [sys.executable, "-m", "chaodipi.rl.train", "--out", str(folder), "--stage", stage,
               "--hands", str(hands), "--minutes", "60", "--actors", "2", "--eval-deals", "0",
               "--report-seconds", "5"]
    if ray is not None:
        command += ["--ray", ray]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    lines = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    reports = [e for e in lines if "hands_per_s" in e]
    done = lines[-1]["done"]
    # the rate after start-up: from the first report on
    first = reports[0]
    seconds = done["seconds"] - 60 * first["minutes"]
    return {"hands": done["hands"], "seconds": round(done["seconds"], 1),
            "hands_per_s_after_start": round((done["hands"] - first["hands"]) / seconds, 2)}


def main() -> None:
    parse = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parse.add_argument("--hands", type=int, default=400, help="hands per run (default: 400)")
    parse.add_argument("--stage", default="self", help="the trainer's stage (default: self)")
    args = parse.parse_args()
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # on 127.0.0.1 only
    from ray.cluster_utils import Cluster

    with tempfile.TemporaryDirectory() as tmp:
        print("processes:", run(Path(tmp) / "processes", args.hands, args.stage, None),
              flush=True)
        cluster = Cluster(initialize_head=True,
                          head_node_args={"num_cpus": 0, "include_dashboard": False})
        try:
            for _ in range(2):
                cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            print("ray, 2 nodes:", run(Path(tmp) / "ray", args.hands, args.stage,
                                       str(cluster.address)), flush=True)
        finally:
            cluster.shutdown()


if __name__ == "__main__":
    main()
