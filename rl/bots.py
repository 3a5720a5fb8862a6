"""The bots an environment or the trainer plays against: ``decide(view) -> Action`` callables,
or their names.

A name is ``"random"`` (:class:`RandomBot`: uniform over the legal actions) or the dotted name
of a module with a ``decide(view)`` function, such as ``"chaodipi.sample_bots.heuristic_bot"``
(rl imports nothing above engine and records, so a sample bot is named, not imported).

>>> bot_name("chaodipi.sample_bots.heuristic_bot"), bot_name("random")
('heuristic', 'random')
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

__all__ = ["Decide", "Opponent", "RandomBot", "bot_name", "resolve_bot"]

Decide: TypeAlias = Callable[[SeatView], Action]
"""A bot: the action it plays from a seat's view (whose ``legal`` is set)."""
Opponent: TypeAlias = Decide | str
"""A bot, or a name: ``"random"`` or a module with ``decide(view)``."""


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
