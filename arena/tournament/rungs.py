"""The reference ladder ``arena bench`` measures a bot against: one rung a line, weakest first.

A rung is a sample bot at a fixed budget: the Monte-Carlo rung judges its candidates on 80
sampled worlds a play, the search rung spends 120 playouts a decision, so that a bench result
is against the same opponents on every machine. Each also caps its thinking time (400 and 500
ms), which only a machine much slower or busier than a 2-core laptop reaches: keep
``--decision-ms`` at 600 or more. Changing a rung's command
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
    Rung("montecarlo", "python3 -m chaodipi.sample_bots.mc_bot --samples 80 --budget-ms 400"),
    Rung("search", "python3 -m chaodipi.sample_bots.search_bot --simulations 120 --budget-ms 500"),
)
"""The ladder, weakest first (``arena bench --ladder`` plays each rung against the one
before it)."""


def rung(name: str) -> Rung:
    """The rung called ``name`` (``KeyError`` if none)."""
    for candidate in RUNGS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
