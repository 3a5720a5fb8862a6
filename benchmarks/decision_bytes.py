"""Decision bytes per seat per classic hand: protocol v2 now, and v1 from git history.

    python3 benchmarks/decision_bytes.py [--hands 5] [--v1-rev REV]

Plays ``--hands`` one-hand classic matches with random legal moves and adds up the Decision
messages each seat would be sent, as the table builds them: in v2 the events new since the
seat's last message, the legal actions, the clock and the cursor; in v1 (read from the last
commit that had ``proto/arena/v1``, or ``--v1-rev``, with ``git archive``, and run there) the
whole observation with the hand's events so far. Moves the table plays by itself (the only
legal one) are not decisions in either. Prints one line per protocol, then a JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

V1_SCRIPT = """
import json, random, sys
from arena.protocol import decision_message
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
totals = []
for seed in range(1, int(sys.argv[1]) + 1):
    match, rng = Match(PRESETS["classic"], seed=seed, max_hands=1), random.Random(seed)
    sizes, n = [0] * 4, 0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        if legal.forced() is None:
            n += 1
            sizes[seat] += len(decision_message(match, seat, n, legal).SerializeToString())
        match.apply(seat, legal.sample(rng))
    totals.append(sizes)
print(json.dumps(totals))
"""


def v2_sizes(hands: int) -> list[list[int]]:
    """Per hand, each seat's Decision bytes in v2 (as arena/serving/table.py builds them)."""
    from chaodipi.arena.v2 import convert
    from chaodipi.engine import PRESETS, Match

    totals = []
    for seed in range(1, hands + 1):
        match, rng = Match(PRESETS["classic"], seed=seed, max_hands=1), random.Random(seed)
        sizes, sent, decisions = [0] * 4, [0] * 4, 0
        while not match.over:
            seat = match.to_play
            legal = match.legal_actions(seat)
            if legal.forced() is None:
                decisions += 1
                news = match.events_since(sent[seat], seat)
                sent[seat] = match.log.cursor
                decision = convert.decision(
                    decisions,
                    events=[convert.event_message(e) for e in news],
                    legal=convert.legal_message(legal),
                    deadline_s=1.0,
                    bank_s=30.0,
                    strikes=0,
                    cursor=match.log.cursor,
                )
                sizes[seat] += decision.ByteSize()
            match.apply(seat, legal.sample(rng))
        totals.append(sizes)
    return totals


def v1_revision() -> str | None:
    """The last commit with protocol v1: the parent of the one that removed it."""
    removed = subprocess.run(
        ["git", "log", "-1", "--format=%H", "--diff-filter=D", "--", "proto/arena/v1/arena.proto"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{removed}^" if removed else None


def v1_sizes(revision: str, hands: int) -> list[list[int]]:
    """The same hands' Decision bytes in v1, measured by that revision's own code."""
    archive = subprocess.run(
        ["git", "archive", revision, "arena", "engine"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as tree:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
        done = subprocess.run(
            [sys.executable, "-c", V1_SCRIPT, str(hands)],
            cwd=tree,
            env={"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
    sizes: list[list[int]] = json.loads(done.stdout)
    return sizes


def _per_seat(totals: list[list[int]]) -> float:
    return sum(map(sum, totals)) / (4 * len(totals))


def measure(hands: int, revision: str | None) -> dict[str, float | None]:
    v2 = _per_seat(v2_sizes(hands))
    revision = revision or v1_revision()
    v1 = None if revision is None else _per_seat(v1_sizes(revision, hands))
    return {
        "hands": hands,
        "v2_bytes_per_seat_hand": round(v2),
        "v1_bytes_per_seat_hand": None if v1 is None else round(v1),
        "v2_over_v1": None if v1 is None else round(v2 / v1, 4),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5, help="classic hands to average over")
    parser.add_argument("--v1-rev", default=None, help="a git revision with protocol v1")
    args = parser.parse_args()
    figures = measure(args.hands, args.v1_rev)
    print(f"v2: {figures['v2_bytes_per_seat_hand']:,} Decision bytes per seat per classic hand")
    if figures["v1_bytes_per_seat_hand"] is None:
        print("v1: no revision with proto/arena/v1 found (pass --v1-rev)")
    else:
        print(
            f"v1: {figures['v1_bytes_per_seat_hand']:,} (v2 is {figures['v2_over_v1']:.1%} of v1;"
            " target ≤ 10 %)"
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
