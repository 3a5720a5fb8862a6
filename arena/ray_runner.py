"""``arena run CONFIG --ray ADDRESS``: a tournament's games played on a Ray cluster, its
results stored here as they arrive.

The driver (this process) does what the local runner does, less the games: it claims the
database (``--resume`` skips what is stored), cuts the games still to play into **shards of
whole deals** (:func:`plan_shards`), and sends each shard to the cluster as a streaming task
(:func:`arena.ray_shard.play_shard`: a table server and the bots' sessions on its node). It
reads every shard's results with ``ray.wait`` as games end and hands each to the same
:class:`arena.recorder.Recorder` as the local runner: the same rows, progress, SPRT and report.
Only the driver writes SQLite.

Faults: a shard whose worker or node is lost is run again by Ray (``max_retries``), and Ray
drops the results the driver already has; a result for a game stored already is not stored
again. A shard that fails for good (out of retries, or an error in it) stops the run with its
reason; what is stored stays, and ``--resume`` (on Ray or not) plays the rest. An SPRT
decision, a bot that keeps failing on a node, Ctrl-C or SIGTERM cancel every shard in flight
(their workers are killed, and their bots with them).
"""

from __future__ import annotations

import collections
import importlib
import math
import os
import signal
import site
import sys
import sysconfig
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from arena.config import TournamentConfig
from arena.logs import get_logger
from arena.processes import BotFailures
from arena.ray_cluster import connect, import_ray
from arena.ray_shard import GameResult, Shard, ShardError, play_shard
from arena.recorder import Outcome, Recorder, prepare_log_dir
from arena.results import GameKey, GameRow, ResultsDB
from arena.stats import SprtTest

__all__ = [
    "IN_FLIGHT_PER_SLOT",
    "MAX_RETRIES",
    "MAX_SHARD_DEALS",
    "MIN_SHARD_DEALS",
    "SHARDS_PER_SLOT",
    "Driver",
    "Plan",
    "RayRunError",
    "plan_shards",
    "run_on_ray",
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
WAIT_S = 0.05
"""The driver collects the results ready within this time at once (its only latency)."""
"""Shards submitted per slot: the next one waits in Ray's queue while one plays."""


class RayRunError(ValueError):
    """A run that cannot go on Ray as asked; the message says what to change."""


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

    >>> keys = [GameKey("a", "b", deal, s) for deal in range(1, 301) for s in (0, 1)]
    >>> plan = plan_shards(keys, 2, [4.0, 4.0])
    >>> plan.cpus_per_shard, plan.slots, plan.deals_per_shard, len(plan.shards), plan.in_flight
    (2, 4, 25, 12, 8)
    >>> [(key.seed, key.swapped) for key in plan.shards[1][:3]]
    [(26, 0), (26, 1), (27, 0)]
    >>> [len(shard) // 2 for shard in plan_shards(keys, 4, [2.0, 0.0]).shards]  # one slot
    [100, 100, 100]
    >>> [len(shard) // 2 for shard in plan_shards(keys[:40], 4, [8.0, 8.0]).shards]  # evened
    [10, 10]
    >>> plan_shards(keys, 4, [2.0], deals_per_shard=7).shards[1][0].seed
    8
    """
    cpus = [int(c) for c in node_cpus if c >= 1]
    if not cpus:
        raise RayRunError("the Ray cluster has no node with a CPU to play on")
    cpus_per_shard = max(1, min(concurrency, min(cpus)))
    slots = sum(c // cpus_per_shard for c in cpus)
    deals: dict[int, list[GameKey]] = collections.defaultdict(list)
    for key in pending:
        deals[key.seed].append(key)
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
            raise RayRunError(
                f"bot {bot.name!r} is an external bot (token): its processes connect to one "
                "arena address, but with --ray the tables run on the cluster's nodes; give it "
                "a command, or run without --ray"
            )


def _code_roots() -> list[str]:
    """The folders the arena's packages are imported from here, unless installed in
    site-packages: a checkout used in place (a PYTHONPATH) is sought at the same path on the
    nodes."""
    paths = sysconfig.get_paths()
    installed = {
        Path(p).resolve() for p in [*site.getsitepackages(), paths["purelib"], paths["platlib"]]
    }
    roots: list[str] = []
    for name in ("arena", "engine", "chaodipi_bot", "sample_bots", "chaodipi"):
        try:
            module = sys.modules.get(name) or importlib.import_module(name)
        except ImportError:
            continue
        where = getattr(module, "__file__", None)
        if where is None:
            continue
        root = Path(where).resolve().parent.parent
        if root not in installed and str(root) not in roots:
            roots.append(str(root))
    return roots


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
        raise RayRunError(f"--ray-working-dir {working_dir}: no such folder")
    try:
        inside = folder.relative_to(working_dir)
    except ValueError:
        raise RayRunError(
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


def run_on_ray(
    config: TournamentConfig,
    address: str,
    *,
    resume: bool = False,
    sprt_test: SprtTest | None = None,
    on_game: Callable[[GameRow, int, int], None] | None = None,
    on_start: Callable[[str], None] | None = None,
    deals_per_shard: int | None = None,
    working_dir: Path | None = None,
    log_level: str = "warning",
    log_dir: Path | None = None,
) -> Outcome:
    """Play every game not yet stored on the Ray cluster at ``address`` (``auto``, ``local``
    or HOST:PORT, :func:`arena.ray_cluster.connect`); ``on_game(row, done, total)`` after
    each stored game, ``on_start(line)`` once the shards are planned. ``working_dir``: a
    folder holding the config's to ship to the nodes (Ray's ``runtime_env``); without it the
    project and the bots must be at the same path on every node.

    Raises :class:`RayRunError` (a config or option that cannot run on Ray),
    :class:`arena.ray_cluster.RayMissingError`, ``ConnectionError`` (no cluster at
    ``address``), and what :class:`ResultsDB` raises."""
    check_config(config)
    if deals_per_shard is not None and deals_per_shard < 1:
        raise RayRunError(f"--ray-shard-deals must be at least 1, not {deals_per_shard}")
    ray = import_ray()
    env, folder = runtime_env(config, working_dir)
    db = ResultsDB(config.database)
    try:
        db.claim(config.fingerprint(), resume=resume)
        outcome = Outcome()
        recorder = Recorder(config, db, outcome, sprt_test=sprt_test, on_game=on_game)
        log_dir = prepare_log_dir(config, log_dir)
        if not recorder.pending:
            return outcome
        deal_key = db.deal_key()
        with connect(address, runtime_env=env) as connection:
            plan = plan_shards(
                recorder.pending, config.concurrency, _node_cpus(ray), deals_per_shard
            )
            if on_start is not None:
                on_start(
                    f"on Ray at {connection.address} ({connection.nodes} nodes, "
                    f"{connection.cpus:g} CPUs): {len(recorder.pending)} games in "
                    f"{len(plan.shards)} shards of {plan.deals_per_shard} deals, "
                    f"{plan.slots} at once ({config.concurrency} games and "
                    f"{plan.cpus_per_shard} CPUs each)"
                )
            shards = [
                Shard(i, config, deal_key, games, str(log_dir), folder, log_level)
                for i, games in enumerate(plan.shards)
            ]
            Driver(ray, plan, shards, recorder).run()
        return outcome
    finally:
        db.close()


class _Failures:
    """A bot that fails in ``limit`` games in a row stops the run, as in a local run, counted
    here over every node's games (a shard counts only its own): a game is failed for a bot
    that never played in it (the void reason's lines start with the bot's name) or whose
    process died in it; one it played through resets the count."""

    def __init__(self, limit: int = BotFailures().limit) -> None:
        self.limit = limit
        self.in_a_row: dict[str, int] = {}

    def check(self, row: GameRow) -> str | None:
        """Count a stored game; the message that stops the run, once a bot failed too often."""
        key = row.key
        lines = (row.void or "").splitlines()
        for bot, crashes in ((key.bot_a, row.crashes_a), (key.bot_b, row.crashes_b)):
            mine = [line for line in lines if line.startswith(f"{bot} (seat ")]
            if not mine and not crashes:
                if row.void is None:
                    self.in_a_row[bot] = 0
                continue
            count = self.in_a_row[bot] = self.in_a_row.get(bot, 0) + 1
            if count >= self.limit:
                what = "failed to start" if mine else "kept dying: it died in"
                died = [line for line in row.errors.splitlines() if line.startswith(f"{bot} (")]
                last = (mine or died or [""])[0]
                return (
                    f"bot {bot!r} {what} {count} games in a row on the cluster (the last: {last})"
                )
        return None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class Driver:
    """The loop: keep ``plan.in_flight`` shards submitted, hand each result to the recorder as
    it comes. ``task``: what plays a shard on a node (a benchmark passes one that plays
    nothing, to measure the driver alone)."""

    def __init__(
        self,
        ray: Any,
        plan: Plan,
        shards: list[Shard],
        recorder: Recorder,
        task: Callable[[Shard], Iterator[GameResult]] = play_shard,
    ) -> None:
        self.ray = ray
        self.plan = plan
        self.waiting = collections.deque(shards)
        self.recorder = recorder
        self.outcome = recorder.outcome
        self.streams: dict[Any, Shard] = {}
        self.nodes: dict[int, set[str]] = {}
        self.stopping = False
        self.failures = _Failures()
        self.task = ray.remote(task).options(
            num_cpus=plan.cpus_per_shard,
            num_returns="streaming",
            max_retries=MAX_RETRIES,
            retry_exceptions=False,
            scheduling_strategy="SPREAD",
        )
        self.log = get_logger(database=str(recorder.config.database))

    def run(self) -> None:
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
        try:
            while self.streams or (self.waiting and not self.stopping):
                while (
                    self.waiting and not self.stopping and len(self.streams) < self.plan.in_flight
                ):
                    self._submit(self.waiting.popleft())
                # every stream with a result ready, at most WAIT_S from now: ray.wait costs
                # about 1 µs per stream in flight, spread over all the results it finds
                streams = list(self.streams)
                ready, _ = self.ray.wait(streams, num_returns=len(streams), timeout=WAIT_S)
                for stream in ready:
                    self._drain(stream)
        except KeyboardInterrupt:
            self.outcome.interrupted = True
            self.log.warning("run_interrupted", shards_in_flight=len(self.streams))
        finally:
            self._cancel()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def _submit(self, shard: Shard) -> None:
        self.streams[self.task.remote(shard)] = shard
        first, last = shard.deals
        self.log.info(
            "shard_submitted", shard=shard.index, games=len(shard.games), deals=[first, last]
        )

    def _drain(self, stream: Any) -> None:
        """Read the stream's results while one is ready."""
        while stream in self.streams:
            self._read(stream)
            if stream not in self.streams or not self.ray.wait([stream], timeout=0)[0]:
                return

    def _read(self, stream: Any) -> None:
        shard = self.streams[stream]
        try:
            ref = next(stream)
        except StopIteration:
            del self.streams[stream]
            self.log.info(
                "shard_done", shard=shard.index, nodes=sorted(self.nodes.get(shard.index, ()))
            )
            return
        try:
            result: GameResult = self.ray.get(ref)
        except self.ray.exceptions.RayError as err:
            del self.streams[stream]
            self._failed(shard, err)
            return
        self.nodes.setdefault(shard.index, set()).add(result.node)
        self.outcome.processes += result.processes
        if result.row is None:  # the shard stopped: a bot kept failing on its node
            if not self.stopping:
                self.recorder.stop(result.stopped or f"shard {shard.index} stopped")
                self.stopping = True
                self._cancel(keep=stream)  # this one's last results are on their way
            return
        replay = zlib.decompress(result.replay) if result.replay is not None else None
        duplicates = self.outcome.duplicates
        decided = self.recorder.keep(result.row, replay=replay)  # the SPRT
        stored = self.outcome.duplicates == duplicates
        failing = self.failures.check(result.row) if stored else None
        if failing is not None and not self.stopping:
            self.recorder.stop(failing)
        if decided or failing is not None:
            self.stopping = True
            self._cancel()

    def _failed(self, shard: Shard, err: Exception) -> None:
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
        self.recorder.stop(
            f"shard {shard.index} (deals {first}-{last}) failed on the cluster: {why}; the "
            "games stored stay, and --resume plays the others"
        )
        self.stopping = True
        self._cancel()

    def _cancel(self, keep: Any = None) -> None:
        """Stop every shard in flight but ``keep``: its worker is killed, its bots with it."""
        for stream in list(self.streams):
            if stream is keep:
                continue
            del self.streams[stream]
            try:
                self.ray.cancel(stream, force=True)
            except Exception as err:  # a finished shard, a lost connection: nothing to stop
                self.log.info("shard_cancel_failed", error=str(err))
