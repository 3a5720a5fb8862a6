"""The reference ladder ``arena bench`` measures a bot against: one rung a line, weakest first.

A rung is a sample bot at a fixed budget, so that a bench result is against the same
opponents on every machine where the rung's budget fits the time control (the Monte-Carlo
rung thinks 400 ms a play: keep ``--decision-ms`` at 500 or more). Changing a rung's command
changes what a bench result means: say so where the results are published.

>>> [rung.name for rung in RUNGS]
['random', 'heuristic', 'montecarlo', 'search']
>>> rung("heuristic").command
'python3 -m chaodipi.sample_bots.heuristic_bot'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RUNGS", "Rung", "rung"]


@dataclass(frozen=True, slots=True)
class Rung:
    name: str
    command: str
    """Its command, as ``arena run --bot NAME=COMMAND`` takes it."""


RUNGS: tuple[Rung, ...] = (
    Rung("random", "python3 -m chaodipi.sample_bots.random_bot"),
    Rung("heuristic", "python3 -m chaodipi.sample_bots.heuristic_bot"),
    Rung("montecarlo", "python3 -m chaodipi.sample_bots.mc_bot --budget-ms 400"),
    Rung("search", "python3 -m chaodipi.sample_bots.search_bot"),
)
"""The ladder, weakest first (``arena bench --ladder`` plays each rung against the one
before it)."""


def rung(name: str) -> Rung:
    """The rung called ``name`` (``KeyError`` if none)."""
    for candidate in RUNGS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
