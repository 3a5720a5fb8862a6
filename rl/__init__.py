"""炒地皮 for reinforcement learning (the ``rl`` extra: ``pip install -e '.[rl]'``;
docs/rl-environment.md).

* :mod:`chaodipi.rl.env`: the PettingZoo AEC environment, :class:`ChaoDipiEnv` (or
  ``chaodipi.rl.env.env(...)``, PettingZoo's convention);
* :mod:`chaodipi.rl.encoding`: a seat's view as a fixed-shape vector (:class:`ViewEncoder`,
  :data:`LAYOUT`), built from the :class:`~chaodipi.engine.view.SeatView` alone;
* :mod:`chaodipi.rl.cardwise`: the ``Discrete`` action ids, plays built card by card
  (:class:`CardBuilder`);
* :mod:`chaodipi.rl.candidates`: the DouZero form, legal actions with feature vectors;
* :mod:`chaodipi.rl.policy`: a trained Q(s, a) model's file (:func:`save_model`,
  :func:`load_model`) and its player (:class:`QPolicy`), numpy only, for the preset it was
  trained on (:class:`PresetError` for another);
* :mod:`chaodipi.rl.train`: the Deep Monte-Carlo trainer on torch (``python3 -m
  chaodipi.rl.train``; with :mod:`~chaodipi.rl.qnet`, :mod:`~chaodipi.rl.selfplay` and
  :mod:`~chaodipi.rl.ray_actors`, not imported here: they need torch);
* :mod:`chaodipi.rl.state`: the full state for centralized critics and oracle training
  (``ChaoDipiEnv.state()``), never an observation;
* :mod:`chaodipi.rl.bots`: the bots an environment or the trainer plays against, by callable
  or by name (:func:`resolve_bot`, :class:`RandomBot`);
* :mod:`chaodipi.rl.single`: one learner against bots, a Gymnasium environment
  (:class:`SingleSeatEnv`);
* :mod:`chaodipi.rl.batched`: many environments stepped together (:class:`BatchedEnv`);

The encodings and the policy need numpy only (a bot playing through the SDK needs no
PettingZoo); the environment is imported when first named.
"""

from __future__ import annotations

import importlib
from typing import Any

from chaodipi.rl.bots import RandomBot as RandomBot
from chaodipi.rl.bots import resolve_bot as resolve_bot
from chaodipi.rl.candidates import FEATURES as FEATURES
from chaodipi.rl.candidates import candidates as candidates
from chaodipi.rl.candidates import features_of as features_of
from chaodipi.rl.cardwise import NUM_ACTIONS as NUM_ACTIONS
from chaodipi.rl.cardwise import CardBuilder as CardBuilder
from chaodipi.rl.cardwise import action_name as action_name
from chaodipi.rl.cardwise import spell as spell
from chaodipi.rl.encoding import LAYOUT as LAYOUT
from chaodipi.rl.encoding import OBSERVATION_SIZE as OBSERVATION_SIZE
from chaodipi.rl.encoding import ViewEncoder as ViewEncoder
from chaodipi.rl.encoding import split as split
from chaodipi.rl.policy import PresetError as PresetError
from chaodipi.rl.policy import QModel as QModel
from chaodipi.rl.policy import QPolicy as QPolicy
from chaodipi.rl.policy import load_model as load_model
from chaodipi.rl.policy import save_model as save_model

__all__ = [
    "AGENTS",
    "FEATURES",
    "LAYOUT",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "BatchedEnv",
    "CardBuilder",
    "ChaoDipiEnv",
    "PresetError",
    "QModel",
    "QPolicy",
    "RandomBot",
    "SingleSeatEnv",
    "ViewEncoder",
    "action_name",
    "candidates",
    "features_of",
    "load_model",
    "resolve_bot",
    "save_model",
    "spell",
    "split",
]


_LAZY = {"AGENTS": "env", "ChaoDipiEnv": "env", "SingleSeatEnv": "single",
         "BatchedEnv": "batched"}
"""Names that need PettingZoo and gymnasium: imported from their module when first named."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"chaodipi.rl.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'chaodipi.rl' has no attribute {name!r}")
