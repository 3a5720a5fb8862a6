"""The reference ladder's bots (``arena bench``'s rungs) as Python callables, for in-process play:
``py:chaodipi.sample_bots.rungs:NAME`` (docs/architecture.md, "In-process bots").

Each is a class, made once per seat and game, that plays as the rung's command does at the
same budget: :class:`Random`, :class:`Heuristic`, :class:`Dmc` (the shipped model over its
teacher, the heuristic bot; needs numpy, the ``rl`` extra), :class:`Search40` and
:class:`Search` (40 and 120 playouts a decision, each capped at 500 ms). The ones that draw at
random seed their generator from the seat's first view (its seat and holding), so a game's
moves depend on its deal alone: the same in-process, over the local link (``python3 -m
chaodipi.bot.callables chaodipi.sample_bots.rungs:Random``), or on another machine, and
different in every game and seat.

>>> from chaodipi.engine import PRESETS, Match, observe
>>> match = Match(PRESETS["classic"], seed=4)
>>> while match.legal_actions().forced() is not None:
...     match.apply(match.to_play, match.legal_actions().forced())
>>> view = observe(match, match.to_play)
>>> Random()(view) == Random()(view)
True
"""

from __future__ import annotations

import random
from typing import Any

from chaodipi.bot import Action, SeatView
from chaodipi.sample_bots.dmc_bot import MODEL, one_blas_thread
from chaodipi.search import DEFAULT_CAP_MS, Budget, heuristic_move, search_move

__all__ = ["Dmc", "Heuristic", "Random", "Search", "Search40", "seeded"]


def seeded(view: SeatView) -> random.Random:
    """A generator seeded by what the seat knows at its first decision: its seat, its hand's
    number and its holding."""
    return random.Random(f"{view.seat}/{view.hand_number}/{' '.join(map(str, view.hand))}")


class Random:
    """Every move uniformly at random among the legal ones."""

    def __init__(self) -> None:
        self.rng: random.Random | None = None

    def __call__(self, view: SeatView) -> Action:
        assert view.legal is not None
        if self.rng is None:
            self.rng = seeded(view)
        return view.legal.sample(self.rng)


class Heuristic:
    """The heuristic bot (:mod:`chaodipi.sample_bots.heuristic_bot`): its policy,
    :func:`chaodipi.search.heuristic_move`."""

    def __call__(self, view: SeatView) -> Action:
        return heuristic_move(view)


class Search:
    """The search bot (:mod:`chaodipi.sample_bots.search_bot`), as the ``search`` rung plays
    it: 120 playouts a decision, at most 500 ms."""

    SIMULATIONS = 120

    def __init__(self) -> None:
        self.budget = Budget(self.SIMULATIONS, DEFAULT_CAP_MS / 1000)
        self.rng: random.Random | None = None

    def __call__(self, view: SeatView) -> Action:
        if self.rng is None:
            self.rng = seeded(view)
        return search_move(view, self.rng, self.budget)


class Search40(Search):
    """The ``search40`` rung: 40 playouts a decision, at most 500 ms."""

    SIMULATIONS = 40


class Dmc:
    """The DMC bot (:mod:`chaodipi.sample_bots.dmc_bot`) with the shipped model, its teacher
    and threshold, the model's candidates; the model is read once per process (without numpy,
    the ``rl`` extra, making one raises ``ImportError``: the bot cannot take its seat)."""

    _model: Any = None

    def __init__(self) -> None:
        one_blas_thread()
        from chaodipi.rl import load_model

        if Dmc._model is None:
            Dmc._model = load_model(MODEL)
        self.policy: Any = None

    def __call__(self, view: SeatView) -> Action:
        if self.policy is None:
            from chaodipi.rl import QPolicy, resolve_bot

            model = Dmc._model
            teacher = None if model.teacher is None else resolve_bot(model.teacher)
            self.policy = QPolicy(
                model, seeded(view), None, teacher=teacher, threshold=model.threshold
            )
        action: Action = self.policy.decide(view)
        return action
