"""The RL environment's speed (chaodipi.rl), against RLCard 1.2.0's Dou Dizhu in the same run.

    python3 benchmarks/rl_bench.py --rlcard-python /path/to/rlcard-venv/bin/python [--seconds 20]

* **Environment steps a second**: whole hands of ``ChaoDipiEnv`` (the classic preset, the
  card-by-card form, and the list form), four random agents choosing uniformly among the
  actions the mask allows; every step is ``last()`` (the observation encoded, the mask) and
  ``step()``, as a training loop does. Also counted: the engine actions those steps took (a
  play of *n* cards is *n* + 1 steps in the card-by-card form, one in the list form).
* **RLCard's Dou Dizhu** (``benchmarks/rlcard_doudizhu.py``: ``env.step`` with its own
  observation encoding, uniform over the legal actions), run with ``--rlcard-python`` in
  turns with ours, a few seconds each, so that the machine's load falls on both alike. Two
  ratios of steps a second: by the wall clock, and by CPU time (each side's steps over the
  CPU its process spent on them, RLCard's less a run of no games: its start-up), which a
  machine shared with other work does not skew.
* **Hidden-hand samples a second** at a mid-hand position (classic, 12 tricks played, the seat
  to play): a :class:`~chaodipi.engine.sampling.DealSampler` built once, then deals drawn.

Prints one JSON line per figure and a summary.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from chaodipi.engine import PRESETS, DealSampler, Match, Phase, observe
from chaodipi.rl import ChaoDipiEnv

HERE = Path(__file__).resolve().parent


def env_steps(form: str, seconds: float, seed: int) -> dict[str, float]:
    """Random agents on whole hands for ``seconds``: steps, engine actions and hands."""
    env = ChaoDipiEnv("classic", max_hands=1, action_form="list" if form == "list" else "cards")
    rng = np.random.default_rng(seed)
    steps = actions = hands = 0
    env.reset(seed=seed)
    cpu = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        if not env.agents:
            hands += 1
            env.reset()
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        allowed = np.flatnonzero(observation["action_mask"])
        version = env._version
        env.step(int(allowed[rng.integers(allowed.size)]))
        steps += 1
        actions += env._version != version
    elapsed = time.perf_counter() - start
    return {"steps": steps, "actions": actions, "hands": hands, "seconds": elapsed,
            "cpu": time.process_time() - cpu}


def _child_cpu(command: list[str]) -> tuple[str, float]:
    """Run ``command``; its output and the CPU time (user + system) it took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def rlcard_steps(python: str, seconds: float, seed: int) -> dict[str, float]:
    """RLCard's Dou Dizhu for ``seconds``; its CPU time less that of starting it (a run of no
    games), so that both sides count the CPU their steps took."""
    script = str(HERE / "rlcard_doudizhu.py")
    out, cpu = _child_cpu([python, script, "--seconds", str(seconds), "--seed", str(seed)])
    _, startup = _child_cpu([python, script, "--games", "0"])
    result = json.loads(out.strip().splitlines()[-1])
    return {"steps": result["actions"], "seconds": result["seconds"], "cpu": cpu - startup,
            "version": result["rlcard_version"]}


def sampling(seed: int, draws: int) -> dict[str, float]:
    """Build a sampler at a mid-hand position and draw ``draws`` deals."""
    match = Match(PRESETS["classic"], seed=seed, max_hands=1)
    rng = random.Random(seed)
    while match.hand.phase is not Phase.PLAY or (
        match.hand.play is not None and len(match.hand.play.tricks) < 12
    ):
        match.apply(match.to_play, match.legal_actions().sample(rng))
    view = observe(match, match.to_play)
    start = time.perf_counter()
    sampler = DealSampler(view)
    built = time.perf_counter()
    cpu = time.process_time()
    sampler.samples(rng, draws)
    done = time.perf_counter()
    return {"build_ms": (built - start) * 1000, "samples_per_s": draws / (done - built),
            "samples_per_cpu_s": draws / (time.process_time() - cpu)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="wall time for each side of the comparison, in turns (s)")
    parser.add_argument("--turn", type=float, default=2.5, help="length of one turn (s)")
    parser.add_argument("--rlcard-python", help="a Python with rlcard installed (1.2.0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=2000, help="deals drawn per position")
    args = parser.parse_args(argv)

    totals = {form: {"steps": 0.0, "actions": 0.0, "hands": 0.0, "seconds": 0.0, "cpu": 0.0}
              for form in ("cards", "list")}
    rlcard = {"steps": 0.0, "seconds": 0.0, "cpu": 0.0}
    version = None
    turns = max(1, round(args.seconds / args.turn))
    for turn in range(turns):
        for form, total in totals.items():
            for key, value in env_steps(form, args.turn / 2, args.seed + turn).items():
                total[key] += value
        if args.rlcard_python:
            result = rlcard_steps(args.rlcard_python, args.turn, args.seed + turn)
            rlcard["steps"] += result["steps"]
            rlcard["seconds"] += result["seconds"]
            rlcard["cpu"] += result["cpu"]
            version = result["version"]
    rates: dict[str, tuple[float, float]] = {}
    for form, total in totals.items():
        rates[form] = (total["steps"] / total["seconds"], total["steps"] / total["cpu"])
        figure = {
            "bench": f"chaodipi_env_{form}",
            "steps_per_s": round(total["steps"] / total["seconds"]),
            "steps_per_cpu_s": round(total["steps"] / total["cpu"]),
            "engine_actions_per_s": round(total["actions"] / total["seconds"]),
            "engine_actions_per_cpu_s": round(total["actions"] / total["cpu"]),
            "hands_per_s": round(total["hands"] / total["seconds"], 2),
            "seconds": round(total["seconds"], 1),
        }
        print(json.dumps(figure))
    if args.rlcard_python:
        rate = rlcard["steps"] / rlcard["seconds"]
        cpu_rate = rlcard["steps"] / rlcard["cpu"]
        print(json.dumps({"bench": "rlcard_doudizhu", "version": version,
                          "steps_per_s": round(rate), "steps_per_cpu_s": round(cpu_rate),
                          "seconds": round(rlcard["seconds"], 1)}))
        for form, (wall, cpu) in rates.items():
            print(json.dumps({
                "bench": f"ratio_{form}_to_rlcard",
                "wall_clock": round(wall / rate, 2),
                "cpu_time": round(cpu / cpu_rate, 2),
            }))
    draws = [sampling(seed, args.draws) for seed in range(args.seed, args.seed + 5)]
    print(json.dumps({
        "bench": "hidden_hand_sampling_mid_hand",
        "samples_per_s_median": round(statistics.median(d["samples_per_s"] for d in draws)),
        "samples_per_cpu_s_median": round(
            statistics.median(d["samples_per_cpu_s"] for d in draws)
        ),
        "build_ms_median": round(statistics.median(d["build_ms"] for d in draws), 2),
        "positions": len(draws),
    }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
