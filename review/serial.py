"""A review as JSON (``arena review --json``, the viewer's review): plain values, moves as the
record writes actions (``play ♠K``), values in levels."""

from __future__ import annotations

from typing import Any

from chaodipi.review.game import GameReview, Reviewed

__all__ = ["decision_json", "review_json"]


def review_json(review: GameReview) -> dict[str, Any]:
    """``review`` as plain JSON values: the game, the judge that made it (its ``name``,
    ``version`` and ``playouts`` a decision), the budget and seed, and one object per decision
    (:func:`decision_json`)."""
    header = review.header
    return {
        "game": header.get("game"),
        "preset": header.get("preset"),
        "judge": {
            "name": review.judge,
            "version": review.judge_version,
            "playouts": review.simulations,
        },
        "simulations": review.simulations,
        "seed": review.seed,
        "decisions": [decision_json(decision) for decision in review.decisions],
    }


def decision_json(decision: Reviewed) -> dict[str, Any]:
    """A decision as plain JSON values: its ``hand`` (from 0, as the record numbers hands),
    its ``step`` in it (from 1, as the viewer numbers steps) and its ``link`` in the game's
    page (``#hand=1&step=26``), the seat, bot and phase; ``judged`` false for a decision the
    reviewer does not judge, else the verdict and the candidates."""
    entry: dict[str, Any] = {
        "hand": decision.hand,
        "step": decision.step,
        "link": decision.link,
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
    return entry
