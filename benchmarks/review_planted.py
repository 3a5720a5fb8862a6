"""How many planted sure losses the review marks, and at what CPU: a dealer-side seat, last to
a trick the other team wins, plays the legal move of the most points where one of at least 25
points fewer was legal (a certain gift of 25 points or more to the defenders).

    python3 benchmarks/review_planted.py [--positions 15] [--simulations 120]

The positions come from 1-hand classic games of random moves (seeds 0, 1, …; the first gift of
each game that has one). Each planted move is judged twice from the seat's view: with the
fixed budget (``most`` = --simulations: no worlds added) and with the review's own (worlds
added while the verdict is near a mark's line, :func:`chaodipi.review.judging.settled`).
Prints a JSON line per position (its seed, the gift in points, each verdict's mark, cost,
error and worlds) and the totals: marked of planted and the CPU seconds, each way.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from chaodipi.engine import PRESETS, Deal, Match, Phase, Play, TrickWon, observe, same_team
from chaodipi.review import judge

GIFT = 25
"""The least points the planted move gives away beyond a legal alternative."""


@dataclass(frozen=True, slots=True)
class Planted:
    """A match at a planted decision: the ``seat`` to act, the ``gift`` move and the
    ``points`` it gives beyond the cheapest legal move."""

    seed: int
    match: Match
    seat: int
    gift: Play
    points: int


def _points(move: Play) -> int:
    return sum(card.points for card in move.cards)


def _gift(match: Match) -> tuple[Play, int] | None:
    """The gift to plant here, if there is one: the seat on the dealers' side and last to the
    trick, the legal move of the most points that leaves the trick to the other team, and a
    legal move of at least :data:`GIFT` points fewer."""
    seat = match.to_play
    view = observe(match, seat)
    hand, trick, legal = match.hand, view.trick, view.legal
    if view.phase is not Phase.PLAY or trick is None or len(trick.plays) != 3 or legal is None:
        return None
    if hand.dealer is None or not same_team(seat, hand.dealer):
        return None
    moves = sorted((m for m in legal if isinstance(m, Play)), key=_points, reverse=True)
    least = min(_points(m) for m in moves)
    for move in moves:
        if _points(move) - least < GIFT:
            return None
        trial = copy.deepcopy(match)
        trial.apply(seat, move)
        won = (e.payload for e in trial.log.all_since(match.log.cursor))
        winner = next(p.seat for p in won if isinstance(p, TrickWon))
        if not same_team(winner, seat):
            return move, _points(move) - least
    return None


def planted(seeds: Iterator[int]) -> Iterator[Planted]:
    """The first gift of each game of random moves that has one, game after game."""
    for seed in seeds:
        match, rng = Match(PRESETS["classic"], seed=seed, max_hands=1), random.Random(seed)
        while not match.over:
            found = _gift(match)
            if found is not None:
                yield Planted(seed, match, match.to_play, *found)
                break
            match.apply(match.to_play, match.legal_actions().sample(rng))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=15)
    parser.add_argument("--simulations", type=int, default=120)
    args = parser.parse_args()
    ways = {"fixed": args.simulations, "adaptive": None}
    marked = dict.fromkeys(ways, 0)
    cpu = dict.fromkeys(ways, 0.0)
    count = 0
    for position in planted(iter(range(100_000))):
        view = observe(position.match, position.seat)
        hand = position.match.hand  # the real deal, for hindsight only (as the review's)
        real = Deal(tuple(tuple(hand.hand(seat)) for seat in range(4)), tuple(hand.kitty))
        row: dict[str, object] = {"seed": position.seed, "gift": position.points}
        for way, most in ways.items():
            started = time.process_time()
            judged = judge(view, position.gift, real, args.simulations, "planted", most=most)
            cpu[way] += time.process_time() - started
            assert judged is not None
            marked[way] += bool(judged.mark)
            row[way] = {
                "mark": judged.mark,
                "cost": round(judged.cost, 3),
                "error": round(judged.error, 3),
                "worlds": judged.worlds,
            }
        print(json.dumps(row, ensure_ascii=False), flush=True)
        count += 1
        if count == args.positions:
            break
    print(json.dumps({
        "positions": count,
        "simulations": args.simulations,
        **{f"marked_{way}": marked[way] for way in ways},
        **{f"cpu_s_{way}": round(cpu[way], 2) for way in ways},
    }))  # fmt: skip


if __name__ == "__main__":
    main()
