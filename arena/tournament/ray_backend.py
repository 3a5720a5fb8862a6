"""The Ray backend: ``arena run CONFIG --ray ADDRESS`` plays a tournament's games on a Ray
cluster, and the driver (:mod:`chaodipi.arena.tournament.driver`, this process) stores them as they
arrive.

:class:`RayBackend` connects to the cluster, cuts the games the driver asks for into **shards
of whole deals** (:func:`plan_shards`), and sends each shard to the cluster as a streaming task
(:func:`chaodipi.arena.tournament.ray_shard.play_shard`: a table server and the bots' sessions on
its node). It reads every shard's results with ``ray.wait`` (in a worker thread, so that the
driver's event loop, and its Ctrl-C, go on meanwhile) and hands each game's
:class:`chaodipi.arena.tournament.backend.GameResult` to the driver, as the local backend does: the
same rows, records, failure count, progress, SPRT and report. Only the driver writes SQLite.

Faults: a shard whose worker or node is lost is run again by Ray (``max_retries``), and Ray
drops the results the driver already has; the driver stores a game once however often it
comes. A shard that fails for good (out of retries, or an error in it) stops the run with its
reason (:class:`chaodipi.arena.tournament.backend.BackendFailed`); what is stored stays, and
``--resume`` (on Ray or not) plays the rest. When the driver stops the run (an SPRT decision, a bot
that keeps failing on any node, Ctrl-C or SIGTERM) it cancels this backend, which cancels every
shard in flight (their workers are killed, and their bots with them).
"""

from __future__ import annotations

import collections
import functools
import math
import os
import site
import sysconfig
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.errors import BackendFailed, ClusterError, ShardError, UsageError
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey
from chaodipi.arena.tournament.backend import Assignment, OnResult
from chaodipi.arena.tournament.config import TournamentConfig
from chaodipi.arena.tournament.ray_cluster import connect, import_ray
from chaodipi.arena.tournament.ray_shard import Shard, ShardResult, play_shard

__all__ = [
    "IN_FLIGHT_PER_SLOT",
    "MAX_RETRIES",
    "MAX_SHARD_DEALS",
    "MIN_SHARD_DEALS",
    "SHARDS_PER_SLOT",
    "WAIT_S",
    "Plan",
    "RayBackend",
    "plan_shards",
]

MAX_RETRIES = 3
"""Ray runs a shard again this many times when its worker or node dies (Ray's default);
errors raised in the shard are not retried."""
MIN_SHARD_DEALS = 16
"""Default shards hold at least this many deals (or every pending one). A shard starts its
own bot processes, as many per bot as it plays seats on one deal (4 per pairing it is in),
and a process plays at most one seat of each deal: a shard of ``d`` deals gives each process
at most ``d`` seats to repay its start (about 0.4 CPU-seconds for a Python bot, more than a
1-hand game's share of its play)."""
MAX_SHARD_DEALS = 100
"""Default shards hold at most this many deals, so that a lost shard (replayed whole) costs a
bounded part of a long run; ``--ray-shard-deals`` sets the size outright."""
SHARDS_PER_SLOT = 3
"""Between those bounds, the pending deals are cut into about this many shards per slot, so
that the slots end at about the same time (the last shard to start is a third of a slot's
work). With one slot the shards run one after the other: one shard, up to
:data:`MAX_SHARD_DEALS`."""
IN_FLIGHT_PER_SLOT = 2
"""Shards submitted per slot: the next one waits in Ray's queue while one plays."""
WAIT_S = 0.05
"""The backend collects the results ready within this time at once (its only latency)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """How a run's pending games are cut and placed."""

    cpus_per_shard: int
    """Ray CPUs each shard reserves: the config's ``concurrency`` (games a shard plays at
    once), at most the smallest node's CPUs."""
    slots: int
    """Shards the cluster runs at once."""
    deals_per_shard: int
    shards: tuple[tuple[GameKey, ...], ...]
    in_flight: int
    """Shards submitted at a time."""


def plan_shards(
    pending: Sequence[GameKey],
    concurrency: int,
    node_cpus: Iterable[float],
    deals_per_shard: int | None = None,
) -> Plan:
    """Cut ``pending`` (in schedule order) into shards of whole deals.

    >>> keys = [GameKey("a", "b", deal, s) for deal in range(1, 301) for s in (False, True)]
    >>> plan = plan_shards(keys, 2, [4.0, 4.0])
    >>> plan.cpus_per_shard, plan.slots, plan.deals_per_shard, len(plan.shards), plan.in_flight
    (2, 4, 25, 12, 8)
    >>> [(key.deal, key.swapped) for key in plan.shards[1][:3]]
    [(26, False), (26, True), (27, False)]
    >>> [len(shard) // 2 for shard in plan_shards(keys, 4, [2.0, 0.0]).shards]  # one slot
    [100, 100, 100]
    >>> [len(shard) // 2 for shard in plan_shards(keys[:40], 4, [8.0, 8.0]).shards]  # evened
    [10, 10]
    >>> plan_shards(keys, 4, [2.0], deals_per_shard=7).shards[1][0].deal
    8
    """
    cpus = [int(c) for c in node_cpus if c >= 1]
    if not cpus:
        raise ClusterError("the Ray cluster has no node with a CPU to play on")
    cpus_per_shard = max(1, min(concurrency, min(cpus)))
    slots = sum(c // cpus_per_shard for c in cpus)
    deals: dict[int, list[GameKey]] = collections.defaultdict(list)
    for key in pending:
        deals[key.deal].append(key)
    if deals_per_shard is None:
        per_deal = max((len(games) for games in deals.values()), default=1)
        wanted = math.ceil(len(deals) / (SHARDS_PER_SLOT * slots)) if slots > 1 else len(deals)
        fill = math.ceil(2 * concurrency / per_deal)  # a shard fills its tables twice
        deals_per_shard = min(max(wanted, fill, MIN_SHARD_DEALS), MAX_SHARD_DEALS)
        count = math.ceil(len(deals) / deals_per_shard)
        deals_per_shard = max(1, math.ceil(len(deals) / count))  # shards of even sizes
    runs = list(deals.values())
    shards = tuple(
        tuple(key for games in runs[i : i + deals_per_shard] for key in games)
        for i in range(0, len(runs), deals_per_shard)
    )
    return Plan(cpus_per_shard, slots, deals_per_shard, shards, IN_FLIGHT_PER_SLOT * slots)


def check_config(config: TournamentConfig) -> None:
    """Refuse what cannot run on a cluster: an external bot connects to one address, and on
    Ray every shard serves its own tables on its node's loopback."""
    for bot in config.bots:
        if bot.token is not None:
            raise UsageError(
                f"bot {bot.name!r} is an external bot (token): its processes connect to one "
                "arena address, but with --ray the tables run on the cluster's nodes; give it "
                "a command, or run without --ray"
            )


def _code_roots() -> list[str]:
    """The folder the ``chaodipi`` namespace is imported from here, unless installed in
    site-packages: a checkout used in place (its ``src``, on a PYTHONPATH or through an editable
    install) is sought at the same path on the nodes."""
    paths = sysconfig.get_paths()
    installed = {
        Path(p).resolve() for p in [*site.getsitepackages(), paths["purelib"], paths["platlib"]]
    }
    import chaodipi

    # not resolved: src/chaodipi's folders are links into the checkout, and the namespace
    # is found through src
    root = Path(chaodipi.__file__).parent.parent
    return [] if root.resolve() in installed else [str(root)]


def runtime_env(
    config: TournamentConfig, working_dir: Path | None
) -> tuple[dict[str, Any], str | None]:
    """Ray's ``runtime_env`` for the run, and the config's folder inside the shipped working
    directory (None when nothing is shipped: the project and bots at the same path on every
    node)."""
    if working_dir is None:
        roots = _code_roots()
        return ({"env_vars": {"PYTHONPATH": os.pathsep.join(roots)}} if roots else {}), None
    working_dir = working_dir.resolve()
    folder = config.folder.resolve()
    if not working_dir.is_dir():
        raise UsageError(f"--ray-working-dir {working_dir}: no such folder")
    try:
        inside = folder.relative_to(working_dir)
    except ValueError:
        raise UsageError(
            f"--ray-working-dir {working_dir} must hold the config's folder {folder}, where "
            "bot commands run: ship a folder above both"
        ) from None
    excludes = []
    database = config.database.resolve()
    for path in (database, database.parent / f"{database.stem}-logs", config.replays):
        if path is not None and path.resolve().is_relative_to(working_dir):
            excludes.append("/" + str(path.resolve().relative_to(working_dir)))
    env: dict[str, Any] = {"working_dir": str(working_dir), "excludes": excludes}
    return env, str(inside)


def _node_cpus(ray: Any) -> list[float]:
    return [
        float(node.get("Resources", {}).get("CPU", 0.0)) for node in ray.nodes() if node["Alive"]
    ]


class RayBackend:
    """The games played on the Ray cluster at ``address`` (``auto``, ``local`` or HOST:PORT,
    :func:`chaodipi.arena.tournament.ray_cluster.connect`); ``on_start(line)`` once the shards are
    planned. ``working_dir``: a folder holding the config's to ship to the nodes (Ray's
    ``runtime_env``); without it the project and the bots must be at the same path on every
    node. ``task``: what plays a shard on a node (a benchmark passes one that plays nothing,
    to measure the driver alone).

    Made before the run claims its database, it refuses at once (:class:`UsageError`) a
    config or an option that cannot run on Ray, and raises
    :class:`~chaodipi.arena.errors.MissingExtraError` without ray; connecting (when the run opens
    it, if any game is left to play) raises ``ConnectionError`` when no cluster answers."""

    def __init__(
        self,
        config: TournamentConfig,
        address: str,
        *,
        on_start: Callable[[str], None] | None = None,
        deals_per_shard: int | None = None,
        working_dir: Path | None = None,
        log_level: str = "warning",
        task: Callable[[Shard], Iterator[ShardResult]] = play_shard,
    ) -> None:
        check_config(config)
        if deals_per_shard is not None and deals_per_shard < 1:
            raise UsageError(f"--ray-shard-deals must be at least 1, not {deals_per_shard}")
        self.ray = import_ray()
        self.address = address
        self.env, self.folder = runtime_env(config, working_dir)
        self.on_start = on_start
        self.deals_per_shard = deals_per_shard
        self.log_level = log_level
        self.task = task

    @asynccontextmanager
    async def open(self, assignment: Assignment) -> AsyncIterator[_Shards]:
        config = assignment.config
        log = get_logger(database=str(config.database))
        if not assignment.games:  # nothing to play: no cluster needed
            yield _Shards(self.ray, None, [], self.task, log)
            return
        with connect(self.address, runtime_env=self.env) as connection:
            plan = plan_shards(
                assignment.games, config.concurrency, _node_cpus(self.ray), self.deals_per_shard
            )
            if self.on_start is not None:
                self.on_start(
                    f"on Ray at {connection.address} ({connection.nodes} nodes, "
                    f"{connection.cpus:g} CPUs): {len(assignment.games)} games in "
                    f"{len(plan.shards)} shards of {plan.deals_per_shard} deals, "
                    f"{plan.slots} at once ({config.concurrency} games and "
                    f"{plan.cpus_per_shard} CPUs each)"
                )
            shards = [
                Shard(
                    i,
                    config,
                    assignment.deal_key,
                    games,
                    str(assignment.log_dir),
                    self.folder,
                    self.log_level,
                )
                for i, games in enumerate(plan.shards)
            ]
            playing = _Shards(self.ray, plan, shards, self.task, log)
            try:
                yield playing
            finally:
                playing.cancel()


class _Shards:
    """The loop: keep ``plan.in_flight`` shards submitted, hand each game's result on as it
    comes."""

    def __init__(
        self,
        ray: Any,
        plan: Plan | None,
        shards: list[Shard],
        task: Callable[[Shard], Iterator[ShardResult]],
        log: Any,
    ) -> None:
        self.ray = ray
        self.in_flight = 0 if plan is None else plan.in_flight
        self.waiting = collections.deque(shards)
        self.streams: dict[Any, Shard] = {}
        self.nodes: dict[int, set[str]] = {}
        self.processes = 0
        self.log = log
        self.task: Any = None
        if plan is not None:
            self.task = ray.remote(task).options(
                num_cpus=plan.cpus_per_shard,
                num_returns="streaming",
                max_retries=MAX_RETRIES,
                retry_exceptions=False,
                scheduling_strategy="SPREAD",
            )

    async def play(self, on_result: OnResult) -> None:
        while self.streams or self.waiting:
            while self.waiting and len(self.streams) < self.in_flight:
                self._submit(self.waiting.popleft())
            # every stream with a result ready, at most WAIT_S from now: ray.wait costs about
            # 1 µs per stream in flight, spread over all the results it finds
            streams = list(self.streams)
            wait = functools.partial(
                self.ray.wait, streams, num_returns=len(streams), timeout=WAIT_S
            )
            ready, _ = await anyio.to_thread.run_sync(wait)
            for stream in ready:
                await self._drain(stream, on_result)

    def _submit(self, shard: Shard) -> None:
        assert self.task is not None
        self.streams[self.task.remote(shard)] = shard
        first, last = shard.deals
        self.log.info(
            "shard_submitted", shard=shard.index, games=len(shard.games), deals=[first, last]
        )

    async def _drain(self, stream: Any, on_result: OnResult) -> None:
        """Hand on the stream's results while one is ready (and the driver wants them)."""
        while stream in self.streams:
            item = self._read(stream)
            if item is not None:
                await anyio.lowlevel.checkpoint_if_cancelled()
                on_result(item.result)
            if stream not in self.streams or not self.ray.wait([stream], timeout=0)[0]:
                return

    def _read(self, stream: Any) -> ShardResult | None:
        """The stream's next result; None when it has ended."""
        shard = self.streams[stream]
        try:
            ref = next(stream)
        except StopIteration:
            del self.streams[stream]
            self.log.info(
                "shard_done", shard=shard.index, nodes=sorted(self.nodes.get(shard.index, ()))
            )
            return None
        try:
            item: ShardResult = self.ray.get(ref)
        except self.ray.exceptions.RayError as err:
            del self.streams[stream]
            raise BackendFailed(self._failed(shard, err)) from None
        self.nodes.setdefault(shard.index, set()).add(item.node)
        self.processes += item.processes
        return item

    def _failed(self, shard: Shard, err: Exception) -> str:
        """Why the run stops: the shard failed for good."""
        cause = getattr(err, "cause", None)
        if isinstance(cause, ShardError):
            why = str(cause)
        else:
            lines = str(err).strip().splitlines()
            why = f"{type(err).__name__}: {lines[-1] if lines else ''}"
            if cause is not None:
                why = f"{type(cause).__name__}: {cause} (the node's Ray worker log has more)"
        first, last = shard.deals
        self.log.error("shard_failed", shard=shard.index, error=why)
        return (
            f"shard {shard.index} (deals {first}-{last}) failed on the cluster: {why}; the "
            "games stored stay, and --resume plays the others"
        )

    def cancel(self) -> None:
        """Stop every shard in flight: its worker is killed, its bots with it."""
        if self.streams:
            self.log.info("shards_cancelled", shards_in_flight=len(self.streams))
        for stream in list(self.streams):
            del self.streams[stream]
            try:
                self.ray.cancel(stream, force=True)
            except Exception as err:  # a finished shard, a lost connection: nothing to stop
                self.log.info("shard_cancel_failed", error=str(err))
