"""The bots an environment or the trainer plays against: ``decide(view) -> Action`` callables,
or their names.

A name is ``"random"`` (:class:`RandomBot`: uniform over the legal actions), ``"heuristic"``
(:func:`chaodipi.search.heuristic_move`, the trainer's default teacher; also under
:data:`HEURISTIC_BOT`, the name the shipped models were trained with), or the dotted name of a
module with a ``decide(view)`` function.

>>> bot_name(HEURISTIC_BOT), bot_name("heuristic"), bot_name("random")
('heuristic', 'heuristic', 'random')
>>> resolve_bot(HEURISTIC_BOT) is resolve_bot("heuristic")
True
>>> resolve_bot("json")
Traceback (most recent call last):
...
ValueError: 'json': the module has no decide(view) function
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import TypeAlias

from chaodipi.engine import Action, SeatView
from chaodipi.search import heuristic_move

__all__ = ["HEURISTIC_BOT", "NAMED", "Decide", "Opponent", "RandomBot", "bot_name", "resolve_bot"]

Decide: TypeAlias = Callable[[SeatView], Action]
"""A bot: the action it plays from a seat's view (whose ``legal`` is set)."""
Opponent: TypeAlias = Decide | str
"""A bot, or a name: ``"random"``, ``"heuristic"`` or a module with ``decide(view)``."""

HEURISTIC_BOT = "chaodipi.sample_bots.heuristic_bot"
"""The heuristic's name in the model files trained before it moved to :mod:`chaodipi.search`
(their ``teacher``): still the heuristic policy."""
NAMED: dict[str, Decide] = {"heuristic": heuristic_move, HEURISTIC_BOT: heuristic_move}
"""The bots named without a module of their own to import."""


class RandomBot:
    """Uniform over the legal actions, from its own generator (``seed`` reseeds it)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def seed(self, seed: int) -> None:
        self.rng.seed(seed)

    def __call__(self, view: SeatView) -> Action:
        if view.legal is None:
            raise ValueError(f"seat {view.seat} is not to act: its view has no legal actions")
        return view.legal.sample(self.rng)


def resolve_bot(spec: Opponent) -> Decide:
    """The bot ``spec`` names (a callable is its own bot); ``ValueError`` in one line naming
    what is wrong."""
    if not isinstance(spec, str):
        if not callable(spec):
            raise ValueError(f"{spec!r}: give a decide(view) callable or a name")
        return spec
    if spec == "random":
        return RandomBot(0)
    if spec in NAMED:
        return NAMED[spec]
    try:
        module = importlib.import_module(spec)
    except ImportError as error:
        raise ValueError(f"{spec!r}: no such module ({error})") from None
    decide = getattr(module, "decide", None)
    if not callable(decide):
        raise ValueError(f"{spec!r}: the module has no decide(view) function")
    bot: Decide = decide
    return bot


def bot_name(spec: str) -> str:
    """A short name for a named bot: a module's last part without ``_bot``."""
    return spec.rsplit(".", 1)[-1].removesuffix("_bot")
