"""CPU per decision of the DMC bot's ``decide`` (chaodipi.rl.QPolicy): the teacher's choice,
the candidates listed, the view encoded, Q scored, in-process, without the SDK.

    python3 benchmarks/dmc_cpu.py [--model PATH | --hidden 512,256,256] [--teacher BOT]
        [--hands 20]

Plays ``--hands`` classic hands in-process, every seat the policy, and times each decision's
CPU (``time.process_time_ns``, this thread's process). Without ``--model`` it plays a model of
random weights of ``--hidden`` widths (float16 on file, as a shipped model; the CPU is the same
for any weights of that shape). The policy has the model's teacher, as the bot plays it
(``--teacher``: another, or ``none``; a model of random weights has none). Prints the mean,
median, 99th percentile and most, over all decisions and over those scored (more than one
candidate), and a JSON line. It runs BLAS on one thread, as the bot does
(``OPENBLAS_NUM_THREADS=2`` shows the cost of two). A bot process spends the SDK's own CPU a
decision on top (``benchmarks/bot_cpu.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from chaodipi.sample_bots.dmc_bot import one_blas_thread

one_blas_thread()  # as the bot runs, before numpy is imported

import numpy as np  # noqa: E402

from chaodipi.engine import PRESETS, Match, observe  # noqa: E402
from chaodipi.rl import (  # noqa: E402
    FEATURES,
    OBSERVATION_SIZE,
    QModel,
    QPolicy,
    load_model,
    resolve_bot,
    save_model,
)


def random_model(hidden: tuple[int, ...], folder: Path) -> QModel:
    gen = np.random.default_rng(0)
    sizes = [OBSERVATION_SIZE + FEATURES, *hidden, 1]
    weights = [(gen.normal(size=(o, i)) / i**0.5, np.zeros(o))
               for i, o in itertools.pairwise(sizes)]
    path = folder / "random.npz"
    save_model(path, weights, {"preset": "classic", "limit": 32}, dtype=np.float16)
    return load_model(path)


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "decisions": len(ms),
        "mean_ms": round(statistics.fmean(ms), 3),
        "median_ms": round(statistics.median(ms), 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
        "max_ms": round(ordered[-1], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, help="a model file (default: random weights)")
    parser.add_argument("--hidden", default="512,256,256", help="random model's hidden widths")
    parser.add_argument("--teacher", default=None,
                        help="the policy's teacher: a bot module, random or none (default: the"
                        " model's)")
    parser.add_argument("--hands", type=int, default=20, help="classic hands to play")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.model is None:
            model = random_model(tuple(int(w) for w in args.hidden.split(",")), Path(folder))
        else:
            model = load_model(args.model)
    name = model.teacher if args.teacher is None else args.teacher
    teacher = None if name in (None, "none") else resolve_bot(name)
    every: list[float] = []
    scored: list[float] = []
    for hand in range(args.hands):
        policy = QPolicy(model, random.Random(hand), teacher=teacher, threshold=model.threshold)
        match = Match(PRESETS["classic"], seed=f"dmc-cpu/{hand}", max_hands=1)
        while not match.over:
            view = observe(match, match.to_play)
            assert view.legal is not None
            choices = view.legal.count()
            start = time.process_time_ns()
            action = policy.decide(view)
            spent = (time.process_time_ns() - start) / 1e6
            every.append(spent)
            if choices > 1:
                scored.append(spent)
            match.apply(view.seat, action)
    result = {"hidden": list(model.hidden), "limit": model.limit, "teacher": name,
              "all": figures(every), "scored": figures(scored)}
    for name in ("all", "scored"):
        f = result[name]
        assert isinstance(f, dict)
        print(f"{name:>6}: {f['decisions']} decisions, mean {f['mean_ms']} ms, median "
              f"{f['median_ms']} ms, p99 {f['p99_ms']} ms, most {f['max_ms']} ms of CPU")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
