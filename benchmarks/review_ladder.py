"""Does the review's decision quality order the ladder's rungs as their results do, and with
how many games against how many the results need?

    python3 benchmarks/review_ladder.py [--deals 8] [--simulations 120] [--workers 2] \\
        [--rungs random,heuristic,dmc,search40,search] [--out rows.jsonl]

Each rung of the reference ladder (random, heuristic, dmc, search40, search: the policies of
``chaodipi.search`` and the dmc bot's shipped model, in process, at the rungs' budgets without
a clock) plays 1-hand classic games against the heuristic on deals 1…N, each deal twice with
the teams' seats swapped; every decision of the rung's seats is reviewed as ``arena review``
reviews it (``review_game``, --simulations playouts a decision, the auction judged too). A
game is played and reviewed in one of --workers processes; each game's row (its score, its
decisions' costs and marks by phase) is printed, and appended to --out when given (a run
given the same --out goes on from the rows there).

Then, per rung: its score against the heuristic and its mean cost per decision, each with its
standard error over the deals (a deal's two games are one unit: the score of a pair, the mean
cost of its decisions); the heuristic's mirror scores exactly 0.5 a deal (the same game with
the teams swapped), so its score has no error. Per phase: the cost per decision of bidding
(declaring and frying), burying, leading and following. Then, for each pair of adjacent rungs,
the difference of each figure with its standard error (the two rungs' errors combined) and
the games each figure would need for LOS ≥ 99 % at that difference (z = 2.326, the error
shrinking as 1/√deals, two games a deal).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from chaodipi.engine import PRESETS, Action, Match, SeatView, observe
from chaodipi.records import record_lines
from chaodipi.review import MARKS, PHASES, review_game
from chaodipi.search import Budget, heuristic_move, search_move

Z99 = 2.326
RUNGS = ("random", "heuristic", "dmc", "search40", "search")
"""The reference ladder's rungs, weakest first (README's ladder)."""


def _rung(name: str, seed: int) -> Callable[[SeatView], Action]:
    """The rung's policy for one game, seeded."""
    rng = random.Random(seed)
    if name == "random":

        def random_bot(view: SeatView) -> Action:
            assert view.legal is not None
            return view.legal.sample(rng)

        return random_bot
    if name == "heuristic":
        return heuristic_move
    if name == "dmc":
        from chaodipi.rl import QPolicy, load_model, resolve_bot
        from chaodipi.sample_bots.dmc_bot import MODEL

        model = load_model(MODEL)
        assert model.teacher is not None
        teacher = resolve_bot(model.teacher)
        return QPolicy(model, rng, teacher=teacher, threshold=model.threshold).decide
    simulations = {"search40": 40, "search": 120}[name]
    budget = Budget(simulations, None)
    return lambda view: search_move(view, rng, budget)


def _game(name: str, deal: int, team: int, simulations: int) -> dict[str, Any]:
    """One game of rung ``name`` (seats of ``team``) against the heuristic on ``deal``, its
    rung's seats reviewed: its row."""
    bot = _rung(name, deal * 2 + team)
    match = Match(PRESETS["classic"], seed=deal, max_hands=1)
    while not match.over:
        seat = match.to_play
        decide = bot if seat % 2 == team else heuristic_move
        match.apply(seat, decide(observe(match, seat)))
    score = 0.5 if match.winner is None else float(match.winner == team)
    review = review_game(
        list(record_lines(match)), seats=(team, team + 2), simulations=simulations, seed=deal
    )
    phases: dict[str, list[float]] = {phase: [] for phase in PHASES}
    marks = dict.fromkeys((mark for mark, _, _ in MARKS), 0)
    for decision in review.decisions:
        judged = decision.judged
        if judged is None:
            continue
        phases[decision.phase].append(round(judged.cost, 5))
        if judged.mark:
            marks[judged.mark] += 1
    unjudged = sum(d.judged is None for d in review.decisions)
    return {"rung": name, "deal": deal, "team": team, "score": score, "costs": phases,
            "marks": marks, "unjudged": unjudged}  # fmt: skip


def _se(values: list[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf


def _needed(difference: float, error: float, deals: int) -> int | None:
    """Games for LOS ≥ 99 % at this difference, the error shrinking as 1/√deals (``None``: no
    number of games, the difference being the wrong way or unknown)."""
    if not difference > 0 or not math.isfinite(error):
        return None
    return math.ceil(2 * deals * (Z99 * error / difference) ** 2)


def _figures(rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """A rung's figures over its deals (each deal's two games one unit)."""
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        if row["rung"] == name:
            by_deal.setdefault(row["deal"], []).append(row)
    pairs = [games for games in by_deal.values() if len(games) == 2]
    scores = [statistics.fmean(g["score"] for g in games) for games in pairs]
    all_costs = [[c for g in games for p in PHASES for c in g["costs"][p]] for games in pairs]
    costs = [statistics.fmean(c) for c in all_costs if c]
    decisions = sum(len(c) for c in all_costs)
    marks = {m: sum(g["marks"][m] for games in pairs for g in games) for m, _, _ in MARKS}
    per_phase = {}
    for phase in PHASES:
        phase_costs = [c for games in pairs for g in games for c in g["costs"][phase]]
        per_phase[phase] = {
            "decisions": len(phase_costs),
            "cost": round(statistics.fmean(phase_costs), 4) if phase_costs else None,
        }
    return {
        "rung": name, "deals": len(pairs), "games": 2 * len(pairs), "decisions": decisions,
        "score": statistics.fmean(scores) if scores else math.nan,
        "score_se": 0.0 if name == "heuristic" else _se(scores),  # the mirror: 0.5 a deal
        "cost": statistics.fmean(costs) if costs else math.nan, "cost_se": _se(costs),
        "marks_per_decision": {m: round(n / max(1, decisions), 4) for m, n in marks.items()},
        "phases": per_phase,
    }  # fmt: skip


def _read(path: Path | None) -> list[dict[str, Any]]:
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _jobs(
    rungs: list[str], deals: int, done: set[tuple[str, int, int]]
) -> Iterator[tuple[str, int, int]]:
    for deal in range(1, deals + 1):
        for name in rungs:
            for team in (0, 1):
                if (name, deal, team) not in done:
                    yield name, deal, team


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--simulations", type=int, default=120)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rungs", default=",".join(RUNGS))
    parser.add_argument("--out", type=Path, default=None, help="rows appended here (JSON lines)")
    args = parser.parse_args()
    rungs = args.rungs.split(",")
    rows = [r for r in _read(args.out) if r["rung"] in rungs and r["deal"] <= args.deals]
    done = {(r["rung"], r["deal"], r["team"]) for r in rows}
    jobs = list(_jobs(rungs, args.deals, done))
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(_game, *job, args.simulations) for job in jobs]
        for future in futures:
            row = future.result()
            rows.append(row)
            line = json.dumps(row)
            print(line, flush=True)
            if args.out is not None:
                with args.out.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")
    figures = {name: _figures(rows, name) for name in rungs}
    for row in figures.values():
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
    for lower, upper in itertools.pairwise(rungs):
        a, b = figures[lower], figures[upper]
        deals = min(a["deals"], b["deals"])
        score_diff = b["score"] - a["score"]
        score_se = math.hypot(a["score_se"], b["score_se"])
        cost_diff = a["cost"] - b["cost"]  # the stronger rung should cost less
        cost_se = math.hypot(a["cost_se"], b["cost_se"])
        print(json.dumps({
            "pair": f"{upper} over {lower}",
            "score_difference": round(score_diff, 4), "score_se": round(score_se, 4),
            "games_for_los99_by_score": _needed(score_diff, score_se, deals),
            "cost_difference": round(cost_diff, 4), "cost_se": round(cost_se, 4),
            "games_for_los99_by_cost": _needed(cost_diff, cost_se, deals),
        }, allow_nan=True))  # fmt: skip


if __name__ == "__main__":
    main()
