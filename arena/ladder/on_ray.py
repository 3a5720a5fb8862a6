"""A ladder's hosted pairs on a Ray cluster (the config's ``ray``): a pair between two hosted
versions is one shard of the arena's Ray backend (:mod:`chaodipi.arena.tournament.ray_shard`),
its two games played on one node by the node's own pools and table server, as ``arena run
--ray`` plays a deal; only each game's result comes back. The ladder schedules, stores and
rates as for a pair played here, and its resident bots keep connecting to the ladder itself.

A shard that fails for good (its node lost past Ray's retries) fails its pair: the pair is void,
with the reason, and rated for no one. ``ray`` is imported only when a ladder asks for it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.deals import DealKey
from chaodipi.arena.ladder.config import LadderConfig
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey
from chaodipi.arena.tournament import (
    MAX_RETRIES,
    BotSpec,
    GameResult,
    Shard,
    connect,
    import_ray,
    play_shard,
    runtime_env,
)

__all__ = ["RayTables", "ray_tables"]


class RayTables:
    """Pairs played on the cluster this process is connected to."""

    def __init__(self, ray: Any, config: LadderConfig, log_dir: Path, folder: str | None) -> None:
        self.ray = ray
        self.config = config
        self.log_dir = log_dir
        self.folder = folder
        self.task = ray.remote(play_shard).options(
            num_cpus=1,
            num_returns="streaming",
            max_retries=MAX_RETRIES,
            retry_exceptions=False,
        )

    async def play(
        self, keys: Sequence[GameKey], bots: Sequence[BotSpec], deal_key: DealKey
    ) -> list[GameResult]:
        """Play a pair's games on the cluster; their results in the order of ``keys``."""
        shard = Shard(
            index=keys[0].deal,
            config=replace(self.config.table_settings(), bots=tuple(bots)),
            deal_key=deal_key,
            games=tuple(keys),
            log_dir=str(self.log_dir),
            folder=self.folder,
        )
        stream = self.task.remote(shard)
        get_logger(pair=shard.index).info("pair_on_ray", games=len(keys))

        def results() -> list[GameResult]:
            return [self.ray.get(ref).result for ref in stream]

        try:
            return await anyio.to_thread.run_sync(results, abandon_on_cancel=True)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(
                    functools.partial(_cancel, self.ray, stream), abandon_on_cancel=True
                )
            raise


def _cancel(ray: Any, stream: Any) -> None:
    try:
        ray.cancel(stream, force=True)
    except Exception as err:  # a finished shard, a lost connection: nothing to stop
        get_logger().info("pair_cancel_failed", error=str(err))


@contextmanager
def ray_tables(config: LadderConfig, log_dir: Path) -> Iterator[RayTables | None]:
    """Connected to the config's Ray cluster for as long as the block (None: no ``ray``)."""
    if not config.ray:
        yield None
        return
    ray = import_ray()
    env, folder = runtime_env(config.table_settings(), None)
    with connect(config.ray, runtime_env=env):
        yield RayTables(ray, config, log_dir, folder)
