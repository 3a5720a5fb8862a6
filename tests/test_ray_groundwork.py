"""Tournaments on Ray, the groundwork: a cluster started here stays on loopback, and the
execution shape of tests/ray_prototype.py (a streaming task per shard of deals, real games
inside, the driver writing SQLite) delivers every game exactly once, over two nodes, when a
worker is killed and when a node is lost. Also the facts the design rests on (bot processes
and a dying worker, the worker's SIGTERM handler).

Marked ``ray``: deselected by default, run as ``pytest -m ray`` with the ray extra installed.
Timings are printed, never asserted; waits are for events, with generous bounds against hangs.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena import ray_cluster
from arena.ray_cluster import INSTALL_HINT, Connection, connect, loopback_only

from .ray_prototype import (
    GameDone,
    ResultStore,
    Shard,
    children_then_wait,
    drive,
    remote_shard_games,
    shard_games,
)

RAY_MISSING = importlib.util.find_spec("ray") is None
if RAY_MISSING and not os.environ.get("CI"):
    pytest.skip(INSTALL_HINT, allow_module_level=True)

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
WORKER_ENV = {"env_vars": {"PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'proto'}"}}
"""How the workers find this checkout (tests/ is not installed): Ray's runtime_env."""
HANG_S = 120.0
ENVIRONMENT = (
    *ray_cluster.LOOPBACK_ENVIRONMENT,
    *ray_cluster.QUIET_ENVIRONMENT,
    "RAY_AUTH_MODE",
)


Report = Callable[..., None]


@pytest.fixture(scope="module")
def report(pytestconfig: pytest.Config) -> Report:
    """Print measurements in the test run's output (past pytest's capture)."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def say(*lines: str) -> None:
        with capture.global_and_fixture_disabled():
            print("".join(f"\n[ray] {line}" for line in lines), flush=True)

    return say


@pytest.fixture(scope="module", autouse=True)
def ray_environment() -> Iterator[None]:
    """Loopback only, no usage statistics, and no token (it would be written to
    ~/.ray/auth_token); restored after the module. In CI (``CI`` set) a missing ray fails
    the Ray tests rather than skip them."""
    if RAY_MISSING:
        pytest.fail(f"the Ray tests need ray: {INSTALL_HINT}")
    saved = {name: os.environ.get(name) for name in ENVIRONMENT}
    os.environ["RAY_AUTH_MODE"] = "disabled"
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    loopback_only()
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def listening() -> set[tuple[str, int]]:
    """The TCP sockets listening on this machine: (local address in hex, port)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "0A":  # LISTEN
                    host, port = fields[1].split(":")
                    found.add((host, int(port, 16)))
    return found


LOOPBACK_HEX = (
    "0100007F",  # 127.0.0.1
    "00000000000000000000000001000000",  # ::1
    "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1
)


def test_a_local_cluster_listens_on_loopback_alone(report: Report) -> None:
    import ray

    before = listening()
    started = time.perf_counter()
    with connect("local", num_cpus=1, runtime_env=WORKER_ENV) as connection:
        up = time.perf_counter() - started
        assert connection.started_here and connection.nodes == 1 and connection.cpus == 1.0
        assert connection.address.startswith("127.0.0.1:")

        @ray.remote
        def where() -> str:
            return str(ray.util.get_node_ip_address())

        assert ray.get(where.remote(), timeout=HANG_S) == "127.0.0.1"
        opened = listening() - before
        assert opened, "a running cluster listens somewhere"
        assert {host for host, _ in opened} <= set(LOOPBACK_HEX), opened
        stopping = time.perf_counter()
    report(
        f"connect('local', num_cpus=1): up in {up:.2f} s, {len(opened)} ports opened, all on "
        f"loopback; stopped in {time.perf_counter() - stopping:.2f} s"
    )


@dataclass
class TwoNodes:
    """A head without CPUs (the driver's node) and two worker nodes of 1 CPU each."""

    cluster: Any
    nodes: list[Any]
    connection: Connection
    timings: dict[str, float] = field(default_factory=dict)

    def node_ids(self) -> set[str]:
        return {node.node_id for node in self.nodes}

    def replace(self, node: Any) -> None:
        self.nodes.remove(node)
        self.nodes.append(self.cluster.add_node(num_cpus=1))
        self.cluster.wait_for_nodes()


FAST_HEALTH_CHECKS = {"health_check_period_ms": 500, "health_check_failure_threshold": 2}
"""A lost node is declared dead after about 1 s, not 15 s (Ray's defaults: every 3 s, 5 misses):
a retry that the scheduler sends to the dead node before that waits for it (measured both)."""


@pytest.fixture(scope="module")
def two_nodes(report: Report) -> Iterator[TwoNodes]:
    import ray
    from ray.cluster_utils import Cluster

    started = time.perf_counter()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 0,
            "include_dashboard": False,
            "_system_config": FAST_HEALTH_CHECKS,
        },
    )
    head = time.perf_counter()
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
        cluster.wait_for_nodes()
        added = time.perf_counter()
        connection = connect("auto", runtime_env=WORKER_ENV)  # the cluster just written
        connected = time.perf_counter()
        assert connection.address == cluster.address
        assert (connection.nodes, connection.cpus) == (3, 2.0)
        timings = {
            "head": head - started,
            "two nodes": added - head,
            "connect": connected - added,
        }
        report(
            f"cluster: head {timings['head']:.2f} s, two worker nodes "
            f"{timings['two nodes']:.2f} s, connect('auto') {timings['connect']:.3f} s"
        )
        yield TwoNodes(cluster, nodes, connection, timings)
    finally:
        stopping = time.perf_counter()
        ray.shutdown()
        cluster.shutdown()
        report(f"cluster stopped in {time.perf_counter() - stopping:.2f} s")


def shards_of(first: int, count: int, games: int, **options: Any) -> list[Shard]:
    return [
        Shard(index, tuple(1000 * index + game for game in range(games)), **options)
        for index in range(first, first + count)
    ]


def keys(games: list[GameDone]) -> list[tuple[int, int]]:
    return sorted((game.shard, game.game) for game in games)


def outcomes(games: list[GameDone]) -> dict[int, tuple[int | None, int, int, str]]:
    return {game.seed: (game.winner, game.hands, game.reward, game.reason) for game in games}


def test_shards_spread_over_two_nodes_each_game_arrives_once(
    two_nodes: TwoNodes, tmp_path: Path, report: Report
) -> None:
    task = remote_shard_games(max_retries=3)
    shards = shards_of(0, 4, 4)
    store = ResultStore(tmp_path / "games.sqlite")
    started = time.perf_counter()
    cold = drive(
        shards,
        store.add,
        task=task,
        options={"scheduling_strategy": "SPREAD"},
        timeout_s=HANG_S,
    )
    cold_s = time.perf_counter() - started
    rows = store.rows()
    store.close()
    expected = [(s.index, g) for s in shards for g in range(len(s.seeds))]
    assert keys(cold.games) == expected
    assert [(row[0], row[1]) for row in rows] == expected  # the primary key refuses a twin
    assert {game.node for game in cold.games} == two_nodes.node_ids()
    assert all(game.reason == "played to the end" for game in cold.games)

    # the same shards in this process, no Ray: the same games, and the time they take here
    local_s: list[float] = []
    local_games: list[GameDone] = []
    for shard in shards:
        began = time.perf_counter()
        local_games.extend(shard_games(shard))
        local_s.append(time.perf_counter() - began)
    assert outcomes(local_games) == outcomes(cold.games)

    # warm workers, one shard in flight at a time: Ray's cost per shard and per game
    warm = drive(shards, lambda game: None, task=task, max_in_flight=1, timeout_s=HANG_S)
    assert keys(warm.games) == expected
    games_per_shard = len(shards[0].seeds)
    warm_mean = statistics.mean(warm.shard_seconds.values())
    local_mean = statistics.mean(local_s)
    in_table = statistics.mean(game.seconds for game in warm.games)
    report(
        f"4 shards x 4 games (2 tables at a time per shard), both nodes: {cold_s:.2f} s "
        f"with cold workers; per shard submit-to-end "
        + ", ".join(f"{s:.2f}" for s in cold.shard_seconds.values())
        + " s",
        f"one shard at a time, warm workers: {warm_mean:.3f} s per shard on Ray, "
        f"{local_mean:.3f} s in the driver's process without Ray; a game's table "
        f"{in_table:.3f} s",
        f"Ray's overhead: {(warm_mean - local_mean) * 1000 / games_per_shard:+.1f} ms per "
        f"game ({(warm_mean - local_mean) * 1000:+.0f} ms per shard of {games_per_shard})",
    )


def play_and_kill(
    two_nodes: TwoNodes,
    tmp_path: Path,
    kill: Callable[[GameDone], None],
) -> tuple[list[GameDone], float]:
    """Shard 10 holds its first attempt after 2 of its 5 games; once the driver has those 2,
    ``kill`` strikes where they were played. Shard 11 plays beside it. Checks that SQLite
    holds each game once; returns every game the driver received, in order, and the seconds
    from the kill to the last one."""
    task = remote_shard_games(max_retries=2)
    held = Shard(10, (7, 8, 9, 10, 11), hold_after=2, marker=str(tmp_path / "shard10.attempt"))
    other = Shard(11, (12, 13, 14))
    store = ResultStore(tmp_path / "games.sqlite")
    killed_at: list[float] = []

    def on_game(game: GameDone) -> None:
        store.add(game)
        if game.shard == 10 and game.game == 1 and not killed_at:
            assert game.attempt == 1
            kill(game)
            killed_at.append(time.perf_counter())

    result = drive(
        [held, other],
        on_game,
        task=task,
        options={"scheduling_strategy": "SPREAD"},
        timeout_s=HANG_S,
    )
    after_kill = time.perf_counter() - killed_at[0]
    rows = store.rows()
    store.close()
    assert keys(result.games) == [(10, g) for g in range(5)] + [(11, g) for g in range(3)]
    assert [(row[0], row[1]) for row in rows] == keys(result.games)
    return result.games, after_kill


def test_a_killed_worker_shard_is_retried_each_game_once(
    two_nodes: TwoNodes, tmp_path: Path, report: Report
) -> None:
    games, after_kill = play_and_kill(
        two_nodes, tmp_path, lambda game: os.kill(game.pid, signal.SIGKILL)
    )
    shard = [game for game in games if game.shard == 10]
    first, retry = shard[:2], shard[2:]
    assert {game.attempt for game in first} == {1} and {game.attempt for game in retry} == {2}
    assert len({game.pid for game in first}) == 1
    assert not {game.pid for game in first} & {game.pid for game in retry}
    report(
        f"worker SIGKILLed after 2 of 5 games: the retry (a new worker, "
        f"{'same' if first[0].node == retry[0].node else 'other'} node) delivered "
        f"games 2-4 {after_kill:.2f} s after the kill; games 0-1 not repeated"
    )


def test_a_lost_node_shard_is_retried_elsewhere_each_game_once(
    two_nodes: TwoNodes, tmp_path: Path, report: Report
) -> None:
    lost: list[Any] = []

    def remove(game: GameDone) -> None:
        node = next(node for node in two_nodes.nodes if node.node_id == game.node)
        two_nodes.cluster.remove_node(node, allow_graceful=False)  # SIGKILLs raylet, workers
        lost.append(node)

    try:
        games, after_kill = play_and_kill(two_nodes, tmp_path, remove)
    finally:
        for node in lost:
            two_nodes.replace(node)
    shard = [game for game in games if game.shard == 10]
    first, retry = shard[:2], shard[2:]
    assert {game.node for game in first} == {lost[0].node_id}
    assert {game.attempt for game in retry} == {2}
    assert lost[0].node_id not in {game.node for game in retry}
    report(
        f"node removed (SIGKILL) after 2 of 5 games: the retry on the other node "
        f"delivered games 2-4 {after_kill:.2f} s after the kill; games 0-1 not repeated"
    )


def test_bot_processes_play_inside_a_worker(two_nodes: TwoNodes, report: Report) -> None:
    """Bots started as the local runner starts them (fork and exec from a process whose gRPC
    server and Ray's own gRPC threads run) play whole games in a Ray worker."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    task = remote_shard_games(max_retries=0)
    shard = Shard(20, (21, 22, 23), processes=True)
    times = []
    options: dict[str, Any] = {}
    for _ in range(2):  # the first may start a worker, the second runs on the same node
        started = time.perf_counter()
        result = drive([shard], lambda game: None, task=task, options=options, timeout_s=HANG_S)
        times.append(time.perf_counter() - started)
        assert keys(result.games) == [(20, 0), (20, 1), (20, 2)]
        assert all(game.reason == "played to the end" for game in result.games)
        node = result.games[0].node
        options = {"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=False)}
    started = time.perf_counter()
    local = list(shard_games(shard))
    local_s = time.perf_counter() - started
    assert outcomes(local) == outcomes(result.games)
    report(
        f"3 games with 4 bot processes each (2 tables at a time): {times[0]:.2f} s then "
        f"{times[1]:.2f} s in a Ray worker, {local_s:.2f} s without Ray"
    )


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_workers_children_die_with_it_unless_in_a_session_of_their_own(
    two_nodes: TwoNodes, tmp_path: Path
) -> None:
    """Ray 2.60 makes each worker a process-group leader and kills the group when the worker
    dies: a bot in the worker's group dies with it; one started with start_new_session=True
    (as arena.processes.launch starts bots) outlives it. And Ray owns SIGTERM in a worker."""
    import ray
    from ray.exceptions import WorkerCrashedError

    task = ray.remote(num_returns="streaming", max_retries=0)(children_then_wait)
    stream = task.remote(str(tmp_path / "never"))
    info = ray.get(next(stream), timeout=HANG_S)
    try:
        assert info["worker_pgid"] == info["worker"]
        assert info["sigterm_is_default"] == 0  # Ray's handler: SIGTERM -> SystemExit
        os.kill(info["worker"], signal.SIGKILL)
        deadline = time.monotonic() + HANG_S
        while alive(info["plain"]) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(info["plain"])
        assert alive(info["session"])
        with pytest.raises(WorkerCrashedError):
            ray.get(next(stream), timeout=HANG_S)
    finally:
        for pid in (info["plain"], info["session"]):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_cancelled_shard_ends_and_its_node_plays_on(two_nodes: TwoNodes, tmp_path: Path) -> None:
    """What an early stop (SPRT) will do: ray.cancel a shard mid-way. Its stream ends with an
    error (TaskCancelledError, or a RayTaskError around trio's exception group when the
    interrupt lands inside trio); the worker's trio run and gRPC server end; the next shard
    on that node plays."""
    import ray
    from ray.exceptions import RayError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    task = remote_shard_games(max_retries=0)
    held = Shard(30, (31, 32, 33), hold_after=1, marker=str(tmp_path / "shard30.attempt"))
    stream = task.remote(held)
    first: GameDone = ray.get(next(stream), timeout=HANG_S)
    ray.cancel(stream)
    with pytest.raises(RayError):
        for ref in stream:
            ray.get(ref, timeout=HANG_S)
    pin = NodeAffinitySchedulingStrategy(first.node, soft=False)
    after = drive(
        [Shard(31, (34, 35))],
        lambda game: None,
        task=task,
        options={"scheduling_strategy": pin},
        timeout_s=HANG_S,
    )
    assert keys(after.games) == [(31, 0), (31, 1)]
    assert {game.node for game in after.games} == {first.node}
