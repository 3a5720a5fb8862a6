"""The reference ladder ``arena bench`` measures a bot against: one rung a line, weakest first.

A rung is a sample bot at a fixed budget, so that a bench result is against the same
opponents on every machine: the two search rungs spend 40 and 120 playouts a decision
(:mod:`chaodipi.sample_bots.search_bot`), each also capping its thinking time at 500 ms, which
only a machine much slower or busier than a 2-core laptop reaches: keep ``--decision-ms`` at
600 or more. The dmc rung plays the model shipped with the package
(``sample_bots/models/dmc-classic.npz``, trained by :mod:`chaodipi.rl.train`) over its teacher,
the heuristic bot. A learned rung plays a model trained on one preset, so it is a rung of the
presets it has a model shipped for alone (:meth:`Rung.presets`: the dmc rung, classic's).
Each rung is above the one below it with LOS ≥ 99 % but search40 and dmc,
which are level (README.md, "Strength ladder", which ``arena bench --ladder`` regenerates). The
Monte-Carlo bot is not a rung: at the search rung's CPU (80 sampled worlds a play) it is no
stronger than the heuristic bot. Changing a rung's command changes what a bench result means:
say so where the results are published.

Each rung is also a Python callable, the same bot at the same budget (``callable``: a class of
:mod:`chaodipi.sample_bots.rungs`): ``arena bench`` plays the rungs in-process, in worker
processes beside their tables, when the bot it measures is an in-process bot too
(``py:MODULE:NAME``), and by their commands otherwise (docs/architecture.md, "In-process bots").

Each rung also says roughly how long a hand against it takes (``hand_s``), for the estimate
``arena bench`` prints before it starts: the README's ladder rows (1, 14 and 30 minutes) and
a default bench of 800 two-hand games against the four rungs other than dmc in about 2.5
hours on 2 cores put them there, within a factor of 1.5.

>>> [rung.name for rung in RUNGS]
['random', 'heuristic', 'dmc', 'search40', 'search']
>>> rung("heuristic").command
'python3 -m chaodipi.sample_bots.heuristic_bot'
>>> rung("dmc").presets(), [r.name for r in rungs_of("hefei")]
(('classic',), ['random', 'heuristic', 'search40', 'search'])
>>> rung("search40").callable
'py:chaodipi.sample_bots.rungs:Search40'
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass

from chaodipi.engine import PRESETS

__all__ = ["MODELS", "RUNGS", "Rung", "rung", "rungs_of"]

MODELS = "chaodipi.sample_bots"
"""The package whose ``models/`` folder ships the learned rungs' models (package data), each
``NAME-PRESET.npz``: the rung ``NAME``'s model trained on ``PRESET``."""


@dataclass(frozen=True, slots=True)
class Rung:
    name: str
    command: str
    """Its command, as ``arena run --bot NAME=COMMAND`` takes it."""
    callable: str
    """The same bot as an in-process bot, ``py:MODULE:NAME``, as ``--bot NAME=…`` takes it."""
    hand_s: float
    """About how many seconds a hand of a game against it takes, wall time, on a 2-core
    machine playing two games at once (``-j 2``), its opponent a quick bot: a rough figure."""
    elo: float | None = None
    """Its bench Elo, the heuristic bot at 0: the joint Bradley–Terry fit of the README's
    ladder rows (each rung against the one below, and search40 against the heuristic bot),
    where a standing ladder pins it (``arena ladder``, docs/ladder.md). None for the random
    bot, which no rung ever lost a game to: its rating has no finite estimate."""
    learned: bool = False
    """It plays a model trained on one preset: a rung of the presets with a model shipped
    (:data:`MODELS`) alone."""

    def presets(self) -> tuple[str, ...]:
        """The presets it is a rung of: every one, or a learned rung's with a model shipped."""
        if not self.learned:
            return tuple(PRESETS)
        prefix = f"{self.name}-"
        try:
            folder = importlib.resources.files(MODELS) / "models"
            names = [entry.name for entry in folder.iterdir()]
        except (FileNotFoundError, ModuleNotFoundError):
            return ()
        shipped = {name.removeprefix(prefix).removesuffix(".npz") for name in names
                   if name.startswith(prefix) and name.endswith(".npz")}
        return tuple(preset for preset in PRESETS if preset in shipped)


_CALLABLES = "py:chaodipi.sample_bots.rungs:"

RUNGS: tuple[Rung, ...] = (
    Rung("random", "python3 -m chaodipi.sample_bots.random_bot", _CALLABLES + "Random", 1.5),
    Rung(
        "heuristic",
        "python3 -m chaodipi.sample_bots.heuristic_bot",
        _CALLABLES + "Heuristic",
        2.0,
        elo=0.0,
    ),
    Rung(
        "dmc",
        "python3 -m chaodipi.sample_bots.dmc_bot",
        _CALLABLES + "Dmc",
        1.5,
        elo=165.0,
        learned=True,
    ),
    Rung(
        "search40",
        "python3 -m chaodipi.sample_bots.search_bot --simulations 40 --budget-ms 500",
        _CALLABLES + "Search40",
        5.5,
        elo=134.4,
    ),
    Rung(
        "search",
        "python3 -m chaodipi.sample_bots.search_bot --simulations 120 --budget-ms 500",
        _CALLABLES + "Search",
        13.5,
        elo=186.9,
    ),
)
"""The ladder, weakest first (``arena bench --ladder`` plays each rung against the one
before it)."""


def rungs_of(preset: str) -> tuple[Rung, ...]:
    """The rungs of ``preset``'s ladder, weakest first: every rung that plays it."""
    return tuple(r for r in RUNGS if preset in r.presets())


def rung(name: str) -> Rung:
    """The rung called ``name`` (``KeyError`` if none)."""
    for candidate in RUNGS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
