"""The trainer's actors on a Ray cluster (``python3 -m chaodipi.rl.train --ray ADDRESS``).

Each actor is a Ray actor with one CPU that plays ``--tables`` hands side by side
(:func:`~chaodipi.rl.selfplay.play_hands`) with the weights it is given and returns them; the
learner (this process, the driver) keeps one call in flight per actor and puts its newest
weights in the object store once per learner step (``ray.put``), which every next call reads.
``ADDRESS``: ``auto`` (the cluster ``ray start`` runs on this machine, or ``RAY_ADDRESS``),
``local`` (a cluster started here for the run, on 127.0.0.1 only, no dashboard, no usage
statistics) or ``HOST:PORT`` of the head's GCS, as ``arena run --ray`` takes them. Every node
needs this package installed at the same version (``pip install -e '.[rl,ray]'``).
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Iterator
from typing import Any

import torch

from chaodipi.rl.qnet import QNet
from chaodipi.rl.selfplay import Hand, Stage, bot, play_hands

__all__ = ["RayActors", "check_ray"]

_LOCAL_ENVIRONMENT = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # Ray binds to 127.0.0.1 only (arena's setting)
    "RAY_USAGE_STATS_ENABLED": "0",
}


def check_ray(parse: argparse.ArgumentParser, address: str) -> None:
    """A usage error (exit 2) unless ray is installed and the address is well formed."""
    host, colon, port = address.rpartition(":")
    if address not in ("auto", "local") and not (colon and host and port.isdigit()):
        parse.error(f"--ray {address!r}: give auto, local or HOST:PORT of the head's GCS")
    try:
        import ray  # noqa: F401
    except ImportError:
        parse.error("--ray: Ray is not installed: pip install -e '.[ray]'")


def _connect(address: str) -> Any:
    if address == "local":
        for name, value in _LOCAL_ENVIRONMENT.items():
            os.environ.setdefault(name, value)
    import ray

    if address == "local":
        ray.init(include_dashboard=False, log_to_driver=False, object_store_memory=200 << 20)
    else:
        ray.init(address=address, log_to_driver=False)
    return ray


class _Actor:
    def __init__(self, index: int, hidden: tuple[int, ...], stage: Stage, teacher: str,
                 preset: str, epsilon: float, seed: int) -> None:
        torch.set_num_threads(1)
        self.net = QNet(hidden)
        self.rng = random.Random(f"{seed}/{index}")
        self.teacher = bot(teacher)[1] if stage is not Stage.SELF else None
        self.stage, self.preset, self.epsilon = stage, preset, epsilon
        self.name, self.hand = f"train/{seed}/{index}", 0

    def play(self, weights: dict[str, Any], hands: int) -> list[Hand]:
        self.net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        seeds = [f"{self.name}/{self.hand + i}" for i in range(hands)]
        self.hand += hands
        return play_hands(self.net, self.stage, self.teacher, self.preset, seeds, self.rng,
                          self.epsilon)


class RayActors:
    """``--actors`` Ray actors feeding the learner here."""

    def __init__(self, net: QNet, args: argparse.Namespace, seed: int) -> None:
        self.ray = _connect(args.ray)
        self.tables: int = args.tables
        remote = self.ray.remote(num_cpus=1)(_Actor)
        self.actors = [remote.remote(i, net.hidden, args.stage, args.teacher, args.preset,
                                     args.epsilon, seed) for i in range(args.actors)]
        self.publish(net)
        self.calls = {actor.play.remote(self.weights, self.tables): actor
                      for actor in self.actors}

    def publish(self, net: QNet) -> None:
        self.weights = self.ray.put({k: v.detach().numpy().copy()
                                     for k, v in net.state_dict().items()})

    def collect(self, timeout: float) -> Iterator[Hand]:
        ready, _ = self.ray.wait(list(self.calls), num_returns=1, timeout=timeout)
        for call in ready:
            actor = self.calls.pop(call)
            hands: list[Hand] = self.ray.get(call)
            self.calls[actor.play.remote(self.weights, self.tables)] = actor
            yield from hands

    def close(self) -> None:
        """Stop the actors and leave the cluster (once: again does nothing)."""
        if not self.actors:
            return
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        self.ray.shutdown()
