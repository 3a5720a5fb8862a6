"""Throughput of the rules engine: legal-move generation, checking, tricks and random self-play.

Four figures, each measured for ``--seconds`` of wall time on one seeded workload:

1. ``CardPlay.legal_plays()`` calls/s on positions sampled from random games, separately for
   leads and for follows (the call builds the compact option set; nothing is enumerated);
2. ``CardPlay.check_play()`` calls/s on the same positions, checking the play actually made;
3. trick resolution: complete tricks/s, each four recorded plays ``.add``-ed to a fresh
   :class:`chaodipi.engine.trick.Trick` (lead classification, follow strength, winner);
5. whole hands per preset (dealing, declaring, the kitty, frying, play, scoring) of random
   players: actions/s and hands/s;
4. random self-play: actions/s and hands/s, where an action is
   ``legal_plays(seat).sample(rng)`` then ``push`` (unchecked; the sample is legal by
   construction), and a hand deals 25 cards a seat from the 108-card shoe under a random trump.

Prints one human-readable line per figure, then one JSON line with all of them. Pin it to a core
for stable numbers::

    taskset -c 0 python3 benchmarks/engine_bench.py --seconds 3

With ``--compare-rlcard PYTHON`` (a python that can import rlcard, e.g.
``~/rlcard-venv/bin/python``) it also runs ``benchmarks/rlcard_doudizhu.py`` in a subprocess
for the same time and prints our self-play actions/s over RLCard's Dou Dizhu random-play
actions/s. The games differ (and RLCard encodes an observation every step), so the ratio is a
rough yardstick, not a like-for-like comparison.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chaodipi.engine import (
    DECK,
    PRESETS,
    Card,
    CardPlay,
    CardRules,
    Match,
    Preset,
    Rank,
    Suit,
    Trick,
    Trump,
)

HAND_SIZE = 25
RLCARD_SCRIPT = Path(__file__).resolve().parent / "rlcard_doudizhu.py"


@dataclass(frozen=True, slots=True)
class Position:
    """A decision point of a recorded game: the state, the seat to play, the play it made."""

    state: CardPlay
    seat: int
    play: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RecordedTrick:
    """A finished trick's trump, leader and the four plays, to be resolved again."""

    trump: Trump
    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]


@dataclass(frozen=True, slots=True)
class Rate:
    """How many operations ran in how long."""

    count: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else 0.0


def deal(rng: random.Random, rules: CardRules) -> CardPlay:
    """A fresh hand: shuffled shoe, 25 cards a seat (8 left as the kitty), random trump."""
    deck = list(DECK)
    rng.shuffle(deck)
    trump = Trump(Rank(rng.randrange(13)), rng.choice([None, *Suit]), rules)
    hands = [deck[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(4)]
    return CardPlay(trump, hands, dealer=rng.randrange(4))


def record_games(
    games: int, rng: random.Random, rules: CardRules
) -> tuple[list[Position], list[Position], list[RecordedTrick]]:
    """Play random games; keep every lead and follow position and every finished trick."""
    leads: list[Position] = []
    follows: list[Position] = []
    tricks: list[RecordedTrick] = []
    for _ in range(games):
        state = deal(rng, rules)
        while not state.is_over:
            seat = state.to_play
            cards = state.legal_plays(seat).sample(rng)
            # Share the (immutable) trump between snapshots; copy everything else.
            snapshot = copy.deepcopy(state, {id(state.trump): state.trump})
            (follows if state.trick.plays else leads).append(Position(snapshot, seat, cards))
            result = state.push(seat, cards)
            done = result.finished_trick
            if done is not None:
                tricks.append(RecordedTrick(done.trump, done.leader, tuple(done.plays)))
    return leads, follows, tricks


def timed(seconds: float, batch: Callable[[], int]) -> Rate:
    """Call ``batch`` (which returns how many operations it did) until ``seconds`` pass."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        count += batch()
        now = time.perf_counter()
        if now >= deadline:
            return Rate(count, now - start)


def bench_legal_plays(positions: Sequence[Position], seconds: float) -> Rate:
    def batch() -> int:
        for p in positions:
            p.state.legal_plays(p.seat)
        return len(positions)

    return timed(seconds, batch)


def bench_check_play(positions: Sequence[Position], seconds: float) -> Rate:
    def batch() -> int:
        for p in positions:
            p.state.check_play(p.seat, p.play)
        return len(positions)

    return timed(seconds, batch)


def bench_tricks(tricks: Sequence[RecordedTrick], seconds: float) -> Rate:
    def batch() -> int:
        for recorded in tricks:
            trick = Trick(recorded.trump, recorded.leader)
            for seat, cards in recorded.plays:
                trick.add(seat, cards)
        return len(tricks)

    return timed(seconds, batch)


def bench_selfplay(seconds: float, seed: int, rules: CardRules) -> tuple[Rate, Rate]:
    """Random self-play for ``seconds`` (finishing the hand in progress): actions, hands."""
    rng = random.Random(seed)
    actions = hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        state = deal(rng, rules)
        while not state.is_over:
            seat = state.to_play
            state.push(seat, state.legal_plays(seat).sample(rng))
            actions += 1
        hands += 1
        now = time.perf_counter()
    elapsed = now - start
    return Rate(actions, elapsed), Rate(hands, elapsed)


def bench_matches(seconds: float, seed: int, preset: Preset) -> tuple[Rate, Rate]:
    """Whole hands (deal, declaring, kitty, frying, play, scoring) of random players under a
    preset, in matches of at most 20 hands: actions/s and hands/s."""
    rng = random.Random(seed)
    actions = hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    number = 0
    while now < deadline:
        match = Match(preset, seed=f"bench/{seed}/{number}", max_hands=20)
        number += 1
        while not match.over and now < deadline:
            before = len(match.records)
            seat = match.to_play
            match.push(seat, match.legal_actions(seat).sample(rng))
            actions += 1
            if len(match.records) > before:
                hands += 1
                now = time.perf_counter()
    elapsed = now - start
    return Rate(actions, elapsed), Rate(hands, elapsed)


def run_rlcard(python: str, seconds: float, seed: int) -> dict[str, object]:
    """Run the RLCard Dou Dizhu baseline in a subprocess and read its JSON line."""
    command = [python, str(RLCARD_SCRIPT), "--seconds", str(seconds), "--seed", str(seed)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(command)} printed no JSON line: {done.stdout!r}")
    result: dict[str, object] = json.loads(lines[-1])
    return result


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Throughput of the 炒地皮 rules engine (see the module docstring)."
    )
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="wall time of each measurement (default 3)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the workload (default 0)")
    parser.add_argument(
        "--games",
        type=int,
        default=40,
        help="random games recorded for the position and trick samples (default 40)",
    )
    parser.add_argument(
        "--compare-rlcard",
        metavar="PYTHON",
        help="a python with rlcard installed: also run benchmarks/rlcard_doudizhu.py for "
        "--seconds and print the ratio of self-play actions/s, ours / RLCard",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    seconds: float = args.seconds
    rules = CardRules()
    leads, follows, tricks = record_games(args.games, random.Random(args.seed), rules)
    print(
        f"workload: {args.games} random games (seed {args.seed}, default rules): "
        f"{len(leads)} leads, {len(follows)} follows, {len(tricks)} tricks; "
        f"{seconds:g} s per figure; Python {platform.python_version()}"
    )

    lead_rate = bench_legal_plays(leads, seconds)
    print(f"legal_plays (leads):    {lead_rate.per_second:12,.0f} calls/s")
    follow_rate = bench_legal_plays(follows, seconds)
    print(f"legal_plays (follows):  {follow_rate.per_second:12,.0f} calls/s")
    check_rate = bench_check_play(leads + follows, seconds)
    print(f"check_play (legal):     {check_rate.per_second:12,.0f} calls/s")
    trick_rate = bench_tricks(tricks, seconds)
    print(f"trick resolution:       {trick_rate.per_second:12,.0f} tricks/s")
    action_rate, hand_rate = bench_selfplay(seconds, args.seed, rules)
    print(
        f"random self-play:       {action_rate.per_second:12,.0f} actions/s, "
        f"{hand_rate.per_second:,.1f} hands/s ({hand_rate.count} hands)"
    )

    per_preset: dict[str, dict[str, float]] = {}
    for name, preset in PRESETS.items():
        match_actions, match_hands = bench_matches(seconds, args.seed, preset)
        per_preset[name] = {
            "actions_per_s": round(match_actions.per_second, 1),
            "hands_per_s": round(match_hands.per_second, 2),
        }
        print(
            f"whole hands, {name:9s} {match_actions.per_second:12,.0f} actions/s, "
            f"{match_hands.per_second:,.1f} hands/s ({match_hands.count} hands)"
        )
    slowest = min(v["actions_per_s"] for v in per_preset.values())

    figures: dict[str, object] = {
        "bench": "engine",
        "seconds": seconds,
        "seed": args.seed,
        "python": platform.python_version(),
        "positions": {"leads": len(leads), "follows": len(follows), "tricks": len(tricks)},
        "legal_plays_lead_per_s": round(lead_rate.per_second, 1),
        "legal_plays_follow_per_s": round(follow_rate.per_second, 1),
        "check_play_per_s": round(check_rate.per_second, 1),
        "tricks_per_s": round(trick_rate.per_second, 1),
        "selfplay_actions_per_s": round(action_rate.per_second, 1),
        "selfplay_hands_per_s": round(hand_rate.per_second, 2),
        "presets": per_preset,
    }
    if args.compare_rlcard:
        try:
            rlcard = run_rlcard(args.compare_rlcard, seconds, args.seed)
        except (OSError, RuntimeError) as error:
            print(f"RLCard comparison failed: {error}", file=sys.stderr)
            return 1
        theirs = rlcard.get("actions_per_s")
        if not isinstance(theirs, int | float) or theirs <= 0:
            print(f"RLCard comparison: no actions_per_s in {rlcard}", file=sys.stderr)
            return 1
        ratio = action_rate.per_second / theirs
        whole = slowest / theirs
        print(
            f"RLCard Dou Dizhu:       {theirs:12,.0f} actions/s "
            f"(rlcard {rlcard.get('rlcard_version')}); ours / RLCard = {ratio:.2f} "
            f"(card play), {whole:.2f} (whole hands, slowest preset)"
        )
        figures["rlcard_actions_per_s"] = theirs
        figures["ratio_vs_rlcard"] = round(ratio, 3)
        figures["ratio_whole_hands_vs_rlcard"] = round(whole, 3)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
