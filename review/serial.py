"""A review as JSON (``arena review --json``, the viewer's review): plain values, moves as the
record writes actions (``play ♠K``), values in levels."""

from __future__ import annotations

from typing import Any

from chaodipi.review.game import GameReview

__all__ = ["review_json"]


def review_json(review: GameReview) -> dict[str, Any]:
    """``review`` as plain JSON values: the game, the budget, and one object per decision
    (``judged`` false for a decision the reviewer does not judge)."""
    header = review.header
    decisions: list[dict[str, Any]] = []
    for decision in review.decisions:
        entry: dict[str, Any] = {
            "number": decision.number,
            "hand": decision.hand,
            "seat": decision.seat,
            "bot": decision.bot,
            "phase": decision.phase,
            "judged": decision.judged is not None,
        }
        judged = decision.judged
        if judged is not None:
            entry |= {
                "chosen": str(judged.chosen),
                "best": str(judged.best),
                "cost": round(judged.cost, 4),
                "error": round(judged.error, 4),
                "mark": judged.mark,
                "worlds": judged.worlds,
                "hindsight": str(judged.hindsight),
                "candidates": [
                    {
                        "action": str(c.action),
                        "value": round(c.value, 4),
                        "error": round(c.error, 4),
                        "hindsight": round(c.hindsight, 4),
                    }
                    for c in judged.candidates
                ],
            }
        decisions.append(entry)
    return {
        "game": header.get("game"),
        "preset": header.get("preset"),
        "simulations": review.simulations,
        "seed": review.seed,
        "decisions": decisions,
    }
