"""The batched environment's speed (chaodipi.rl.batched.BatchedEnv) against N environments
stepped one by one, and against RLCard 1.2.0's Dou Dizhu.

    python3 benchmarks/rl_batched.py [--n 16] [--seconds 10] [--rlcard-python PATH]

Both sides hold N list-form environments of the classic preset (``--limit`` candidates) and
play them with the same random policy, uniform over each row's mask: the batch with one
``step`` of N indices, its observations and masks stacked; the single environments one after
another, each step its observation (``observe``), then ``step``, a reset when a match ends.
Two kinds: self-play ``ChaoDipiEnv`` (every step an engine action) and ``SingleSeatEnv``
against random bots (a step is the learner's; the bots' actions in between are not counted).
The sides run in turns of ``--turn`` seconds so that a shared machine's load falls on both
alike; steps a second are counted by the wall clock and by CPU time. With ``--rlcard-python``
(a Python with rlcard installed), RLCard's Dou Dizhu runs in the same turns
(``benchmarks/rl_bench.py``'s way) and the batch's ratio to it prints.

Prints one JSON line per figure.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from chaodipi.rl import BatchedEnv, ChaoDipiEnv, SingleSeatEnv

Counts = dict[str, float]


def uniform(rng: np.random.Generator, masks: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """One allowed index per row, uniformly: the random policy of both sides."""
    scores = rng.random(masks.shape) * masks
    picked: npt.NDArray[np.int64] = scores.argmax(axis=1)
    return picked


def batched_loop(batch: BatchedEnv, seed: int) -> Callable[[float], Counts]:
    """Steps of the batch for a given time, then its counts (the batch goes on between calls)."""
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)

    def run(seconds: float) -> Counts:
        steps = 0
        cpu, start = time.process_time(), time.perf_counter()
        while time.perf_counter() - start < seconds:
            batch.step(uniform(rng, batch.action_masks()))
            steps += batch.n
        return {"steps": steps, "seconds": time.perf_counter() - start,
                "cpu": time.process_time() - cpu}

    return run


def selfplay_loop(envs: list[ChaoDipiEnv], seed: int) -> Callable[[float], Counts]:
    """Self-play environments stepped one by one: the agent to act's observation, then step."""
    rng = np.random.default_rng(seed)
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)

    def run(seconds: float) -> Counts:
        steps = 0
        cpu, start = time.process_time(), time.perf_counter()
        while time.perf_counter() - start < seconds:
            for env in envs:
                mask = env.observe(env.agent_selection)["action_mask"]
                env.step(int(uniform(rng, mask[None])[0]))
                if env.match.over:
                    env.reset()
            steps += len(envs)
        return {"steps": steps, "seconds": time.perf_counter() - start,
                "cpu": time.process_time() - cpu}

    return run


def single_seat_loop(envs: list[SingleSeatEnv], seed: int) -> Callable[[float], Counts]:
    """Single-seat environments stepped one by one."""
    rng = np.random.default_rng(seed)
    observations = [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]

    def run(seconds: float) -> Counts:
        steps = 0
        cpu, start = time.process_time(), time.perf_counter()
        while time.perf_counter() - start < seconds:
            for i, env in enumerate(envs):
                mask = observations[i]["action_mask"]
                observation, _, over, _, _ = env.step(int(uniform(rng, mask[None])[0]))
                observations[i] = env.reset()[0] if over else observation
            steps += len(envs)
        return {"steps": steps, "seconds": time.perf_counter() - start,
                "cpu": time.process_time() - cpu}

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--n", type=int, default=16, help="environments in the batch")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="wall time for each side and kind, in turns (s)")
    parser.add_argument("--turn", type=float, default=1.0, help="length of one turn (s)")
    parser.add_argument("--limit", type=int, default=128, help="candidates listed at most")
    parser.add_argument("--rlcard-python", help="a Python with rlcard installed (1.2.0)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.n < 1 or args.seconds <= 0 or args.turn <= 0:
        parser.error("--n, --seconds and --turn: above 0")

    n, limit = args.n, args.limit
    sides: dict[str, Callable[[float], Counts]] = {
        "selfplay_batched": batched_loop(BatchedEnv.make(n, limit=limit), args.seed),
        "selfplay_one_by_one": selfplay_loop(
            [ChaoDipiEnv(action_form="list", limit=limit) for _ in range(n)], args.seed),
        "single_seat_batched": batched_loop(
            BatchedEnv.make(n, single_seat=True, limit=limit), args.seed),
        "single_seat_one_by_one": single_seat_loop(
            [SingleSeatEnv(limit=limit) for _ in range(n)], args.seed),
    }
    totals = {name: {"steps": 0.0, "seconds": 0.0, "cpu": 0.0} for name in sides}
    rlcard = {"steps": 0.0, "seconds": 0.0, "cpu": 0.0}
    version = None
    for turn in range(max(1, round(args.seconds / args.turn))):
        for name, run in sides.items():
            for key, value in run(args.turn).items():
                totals[name][key] += value
        if args.rlcard_python:
            from rl_bench import rlcard_steps  # this folder's script, beside this one

            result = rlcard_steps(args.rlcard_python, args.turn, args.seed + turn)
            version = result["version"]
            for key in rlcard:
                rlcard[key] += result[key]
    rates = {}
    for name, total in totals.items():
        rates[name] = (total["steps"] / total["seconds"], total["steps"] / total["cpu"])
        print(json.dumps({"bench": name, "n": n, "limit": limit,
                          "steps_per_s": round(rates[name][0]),
                          "steps_per_cpu_s": round(rates[name][1]),
                          "seconds": round(total["seconds"], 1)}))
    for kind in ("selfplay", "single_seat"):
        batched, alone = rates[f"{kind}_batched"], rates[f"{kind}_one_by_one"]
        print(json.dumps({"bench": f"ratio_{kind}_batched_to_one_by_one",
                          "wall_clock": round(batched[0] / alone[0], 2),
                          "cpu_time": round(batched[1] / alone[1], 2)}))
    if args.rlcard_python:
        wall, cpu = rlcard["steps"] / rlcard["seconds"], rlcard["steps"] / rlcard["cpu"]
        print(json.dumps({"bench": "rlcard_doudizhu", "version": version,
                          "steps_per_s": round(wall), "steps_per_cpu_s": round(cpu),
                          "seconds": round(rlcard["seconds"], 1)}))
        for kind in ("selfplay", "single_seat"):
            batched = rates[f"{kind}_batched"]
            print(json.dumps({"bench": f"ratio_{kind}_batched_to_rlcard",
                              "wall_clock": round(batched[0] / wall, 2),
                              "cpu_time": round(batched[1] / cpu, 2)}))


if __name__ == "__main__":
    main()
