"""The Q(s, a) network the trainer fits (torch): an MLP over a seat's observation and one
candidate action's features, the first layer split so that a decision's observation is
multiplied once however many candidates it has.

Its weights export to the numpy model file that :mod:`chaodipi.rl.policy` plays without torch
(:func:`export`): the first layer as one matrix over ``observation + features``, as if the
network were a plain MLP over their concatenation.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from chaodipi.rl.candidates import FEATURES
from chaodipi.rl.encoding import OBSERVATION_SIZE
from chaodipi.rl.policy import QModel, save_model

__all__ = ["HIDDEN", "QNet", "export", "to_model", "weights"]

HIDDEN = (512, 256, 256)
"""The default hidden layer sizes."""


class QNet(nn.Module):
    """Q(s, a): ``Linear(observation) + Linear(action)``, then ReLU layers, then one scalar."""

    def __init__(self, hidden: tuple[int, ...] = HIDDEN) -> None:
        super().__init__()
        if not hidden:
            raise ValueError("hidden: at least one hidden layer")
        self.hidden = tuple(hidden)
        self.state_in = nn.Linear(OBSERVATION_SIZE, hidden[0])
        self.action_in = nn.Linear(FEATURES, hidden[0], bias=False)
        layers: list[nn.Module] = [nn.ReLU()]
        for width, size in itertools.pairwise(hidden):
            layers += [nn.Linear(width, size), nn.ReLU()]
        layers.append(nn.Linear(hidden[-1], 1))
        self.body = nn.Sequential(*layers)

    def rows(self, states: torch.Tensor, owner: torch.Tensor,
             actions: torch.Tensor) -> torch.Tensor:
        """Q of each candidate row: ``actions[i]`` is a candidate of decision ``owner[i]``,
        whose observation is ``states[owner[i]]``."""
        first = self.state_in(states)[owner] + self.action_in(actions)
        out: torch.Tensor = self.body(first).squeeze(1)
        return out

    def forward(self, states: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of each (observation, action) pair, row by row."""
        first = self.state_in(states) + self.action_in(actions)
        out: torch.Tensor = self.body(first).squeeze(1)
        return out


def weights(net: QNet) -> list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """The network as a plain MLP's layers over ``observation + features``: (weight shaped
    (out, in), bias), first to last."""
    first = torch.cat([net.state_in.weight, net.action_in.weight], dim=1)
    pairs = [(first, net.state_in.bias)]
    pairs += [(layer.weight, layer.bias) for layer in net.body if isinstance(layer, nn.Linear)]
    return [(w.detach().numpy().astype(np.float32), b.detach().numpy().astype(np.float32))
            for w, b in pairs]


def to_model(net: QNet, limit: int, preset: str) -> QModel:
    """The network as the numpy model :class:`~chaodipi.rl.policy.QPolicy` plays (what
    :func:`export` writes, in float32), without a file, for games of ``preset``: the trainer
    evaluates what the dmc bot would play."""
    return QModel.of_layers(weights(net), {"limit": limit, "preset": preset})


def export(net: QNet, path: Path, meta: dict[str, Any]) -> None:
    """Write the numpy model file :class:`chaodipi.rl.policy.QPolicy` plays (float16: about
    1 MB for the default sizes); ``meta`` needs ``preset`` and ``limit``."""
    save_model(path, weights(net), meta, dtype=np.float16)
