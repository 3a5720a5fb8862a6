"""``arena run --ray`` on a two-node Ray cluster on this machine (a head without CPUs, two
nodes of one CPU): the same games, report and replays as a local run on the same deals; a
killed worker and a lost node cost no game and store none twice; a run interrupted on Ray
resumes locally and the other way round; the SPRT stops the cluster; a bot that cannot start
on the nodes stops the run with its stderr, as a local run does. And a cluster that
``--ray local`` starts listens on loopback alone.

The bots are deterministic (the heuristic bot, examples/highest_card_bot.py and
tests/bots/steady_bot.py, which seeds its moves from its hand), so a game's row depends on its
deal and seats alone, wherever it is played. Every driver is an ``arena run`` process; this
process only runs the cluster. Marked ``ray`` (``pytest -m ray``). Waits are for events (a
stored game, a busy worker, a process's exit), with generous bounds against hangs only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament import ray_cluster
from chaodipi.arena.tournament.config import MEANING, load_config, schedule
from chaodipi.arena.tournament.ray_cluster import INSTALL_HINT, connect, loopback_only
from chaodipi.records import load_lines
from tests.test_tournament import stored_games

RAY_MISSING = importlib.util.find_spec("ray") is None
if RAY_MISSING and not os.environ.get("CI"):
    pytest.skip(INSTALL_HINT, allow_module_level=True)

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 240.0
FAST_HEALTH_CHECKS = {"health_check_period_ms": 500, "health_check_failure_threshold": 2}
ENVIRONMENT = (
    *ray_cluster.LOOPBACK_ENVIRONMENT,
    *ray_cluster.QUIET_ENVIRONMENT,
    "RAY_AUTH_MODE",
)
BOTS = {
    "heuristic": "python3 -m chaodipi.sample_bots.heuristic_bot",
    "highest": f"python3 {ROOT / 'examples' / 'highest_card_bot.py'}",
    "steady": f"python3 {ROOT / 'tests' / 'bots' / 'steady_bot.py'}",
}
SETTINGS: dict[str, object] = {
    "preset": "classic",
    "hands": 1,
    "deals": 4,
    "concurrency": 2,
    "decision_ms": 5000,  # no timeout under load: a struck decision would change the game
    "connect_timeout": 60,  # a bound, not a wait: a bot on a node at load 14 took over 10 s
    "database": "results.sqlite",
    "replays": "replays",
}
GAMES = 4 * 3 * 2  # deals × pairings × seatings


@pytest.fixture(scope="module", autouse=True)
def ray_environment() -> Iterator[None]:
    """Loopback only, no usage statistics, no token (the drivers inherit it)."""
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


def test_a_local_cluster_listens_on_loopback_alone() -> None:
    """What ``--ray local`` starts (first in this module: no other cluster runs yet)."""
    import ray

    before = listening()
    worker_env = {"env_vars": {"PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'proto'}"}}
    with connect("local", num_cpus=1, runtime_env=worker_env) as connection:
        assert connection.started_here and connection.nodes == 1 and connection.cpus == 1.0
        assert connection.address.startswith("127.0.0.1:")

        @ray.remote
        def where() -> str:
            return str(ray.util.get_node_ip_address())

        assert ray.get(where.remote(), timeout=HANG_S) == "127.0.0.1"
        opened = listening() - before
        assert opened, "a running cluster listens somewhere"
        assert {host for host, _ in opened} <= set(LOOPBACK_HEX), opened


@dataclass
class TwoNodes:
    cluster: Any
    nodes: list[Any]

    @property
    def address(self) -> str:
        return str(self.cluster.address)

    def replace(self, node: Any) -> None:
        self.nodes.remove(node)
        self.nodes.append(self.cluster.add_node(num_cpus=1))
        self.cluster.wait_for_nodes()


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[TwoNodes]:
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 0,
            "include_dashboard": False,
            "_system_config": FAST_HEALTH_CHECKS,
        },
    )
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
        cluster.wait_for_nodes()
        yield TwoNodes(cluster, nodes)
    finally:
        cluster.shutdown()


def write_config(folder: Path, **extra: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    settings = {**SETTINGS, **extra}
    bots = settings.pop("bots", BOTS)
    lines = [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    for name, command in bots.items():  # type: ignore[attr-defined]
        lines += [f"[bots.{name}]", f"command = {json.dumps(command)}"]
    path = folder / "t.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *args], capture_output=True, text=True, timeout=HANG_S
    )


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def rows(database: Path) -> list[tuple[object, ...]]:
    """Every stored game, every column but the timings and the game's number (the order it
    was stored in, which the backends' scheduling decides), in key order."""
    db = sqlite3.connect(database)
    try:
        cursor = db.execute("SELECT * FROM games ORDER BY bot_a, bot_b, deal, swapped")
        names = [column[0] for column in cursor.description]
        keep = [i for i, name in enumerate(names) if name not in ("seconds", "finished_at", "id")]
        return [tuple(row[i] for i in keep) for row in cursor]
    finally:
        db.close()


def deal_key(database: Path) -> str:
    db = sqlite3.connect(database)
    try:
        return str(db.execute("SELECT value FROM meta WHERE key = 'deal_key'").fetchone()[0])
    finally:
        db.close()


def same_deals(config: Path, reference: Path) -> Path:
    """Give ``config``'s new database the deal key of ``reference``: the same cards."""
    database = load_config(config).database
    db = ResultsDB(database)
    db.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (deal_key(reference),))
    db.db.commit()
    db.close()
    return database


@dataclass
class Reference:
    """A local run that Ray runs of the same config are compared with."""

    settings: dict[str, Any]
    """The config's keys (over SETTINGS)."""
    database: Path
    report: dict[str, Any]
    replays: dict[str, list[dict[str, Any]]]

    def config(self, folder: Path) -> tuple[Path, Path]:
        """The same tournament in ``folder``, on the same deals: (config, its database)."""
        config = write_config(folder, **self.settings)
        return config, same_deals(config, self.database)

    @property
    def games(self) -> int:
        return len(rows(self.database))


def replays(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each game's record file, as lines, without what differs from one run to the next (when
    and on which table it was played, how long each decision took)."""
    games = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = load_lines(path.read_text(encoding="utf-8"))
        for line in lines:
            for varies in ("date", "table", "ms"):
                line.pop(varies, None)
        games[path.name] = lines
    return games


def local_run(folder: Path, **settings: Any) -> Reference:
    config = write_config(folder, **settings)
    done = arena("run", str(config), "--json")
    assert done.returncode == 0, done.stderr
    database = load_config(config).database
    assert len(rows(database)) == len(schedule(load_config(config)))
    return Reference(settings, database, json.loads(done.stdout), replays(folder / "replays"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """The three bots' round-robin (24 games), played locally."""
    return local_run(tmp_path_factory.mktemp("local"))


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    """Two bots (16 games; half the bot processes per shard of three bots), played locally."""
    bots = {"heuristic": BOTS["heuristic"], "steady": BOTS["steady"]}
    return local_run(tmp_path_factory.mktemp("duel"), deals=8, bots=bots)


def shard_nodes(stderr: str) -> set[str]:
    """The nodes the driver's log (--log-level info, JSON lines) says shards ran on."""
    nodes: set[str] = set()
    for line in stderr.splitlines():
        if line.startswith("{") and '"shard_done"' in line:
            nodes.update(json.loads(line)["nodes"])
    return nodes


def test_a_round_robin_on_two_nodes_stores_what_a_local_run_stores(
    two_nodes: TwoNodes, reference: Reference, tmp_path: Path
) -> None:
    config, database = reference.config(tmp_path)
    done = arena(
        "run", str(config), "--ray", two_nodes.address, "--json", "--log-level", "info",
        "--ray-shard-deals", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "on Ray at" in done.stderr and "2 shards of 2 deals" in done.stderr
    assert rows(database) == rows(reference.database)
    assert nowhere(json.loads(done.stdout)) == nowhere(reference.report)
    assert replays(tmp_path / "replays") == reference.replays
    assert shard_nodes(done.stderr) == {node.node_id for node in two_nodes.nodes}
    assert f"{GAMES} games played now, 0 already stored" in done.stderr
    assert "game_stored_already" not in done.stderr
    logs = tmp_path / "results-logs"
    assert sorted(p.name for p in logs.iterdir()) == ["shard-0", "shard-1"]


def busy_workers() -> list[int]:
    """Ray workers playing a shard now (Ray titles them after the task)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::play_shard"):
                found.append(int(entry.name))
    return found


def run_and_strike(
    two_nodes: TwoNodes, reference: Reference, tmp_path: Path, strike: Callable[[int], None]
) -> str:
    """An ``arena run --ray`` in which ``strike(worker_pid)`` hits a worker playing a shard,
    once a game is stored; the run must end with every game stored once, as locally."""
    config, database = reference.config(tmp_path)
    runner = start(
        "run", str(config), "--ray", two_nodes.address, "--ray-shard-deals", "4",
        "--log-level", "info",
    )  # fmt: skip
    struck = None
    deadline = time.monotonic() + HANG_S
    while struck is None and time.monotonic() < deadline and runner.poll() is None:
        workers = busy_workers()
        if workers and stored_games(database) >= 1:
            struck = workers[0]
            strike(struck)
        time.sleep(0.05)
    _out, err = runner.communicate(timeout=HANG_S)
    assert struck is not None, f"no worker was busy while the run played: {err}"
    assert runner.returncode == 0, err
    assert rows(database) == rows(reference.database)  # each game once (the primary key)
    assert f"{reference.games} games played now, 0 already stored" in err
    return err


def test_a_killed_worker_loses_no_game_and_stores_none_twice(
    two_nodes: TwoNodes, duel: Reference, tmp_path: Path
) -> None:
    children: list[int] = []

    def kill(pid: int) -> None:
        children.extend(child_pids(pid))
        os.kill(pid, signal.SIGKILL)

    run_and_strike(two_nodes, duel, tmp_path, kill)
    assert children, "the shard's bots ran in the worker"
    deadline = time.monotonic() + HANG_S
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in children), "a killed worker's bots died with it"


def test_a_lost_node_loses_no_game_and_stores_none_twice(
    two_nodes: TwoNodes, duel: Reference, tmp_path: Path
) -> None:
    lost: list[Any] = []

    def remove_node(pid: int) -> None:
        node = next(n for n in two_nodes.nodes if pid in descendants(n))
        two_nodes.cluster.remove_node(node, allow_graceful=False)  # SIGKILLs raylet, workers
        lost.append(node)

    try:
        run_and_strike(two_nodes, duel, tmp_path, remove_node)
    finally:
        for node in lost:
            two_nodes.replace(node)
    assert lost


def parents() -> dict[int, int]:
    """Every process's parent, from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def child_pids(pid: int) -> list[int]:
    return [child for child, parent in parents().items() if parent == pid]


def descendants(node: Any) -> set[int]:
    """Every process under a node's raylet (its workers among them)."""
    tree = parents()
    pids: set[int] = set()
    todo = [info.process.pid for info in node.all_processes.get("raylet", [])]
    while todo:
        pid = todo.pop()
        pids.add(pid)
        todo.extend(child for child, parent in tree.items() if parent == pid)
    return pids


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for_games(runner: subprocess.Popen[str], database: Path, count: int) -> None:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline and runner.poll() is None:
        if stored_games(database) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the run stored fewer than {count} games: {runner.communicate()[1]}")


def test_a_ray_run_killed_mid_way_resumes_locally(
    two_nodes: TwoNodes, reference: Reference, tmp_path: Path
) -> None:
    config, database = reference.config(tmp_path)
    runner = start("run", str(config), "--ray", two_nodes.address, "--ray-shard-deals", "2")
    wait_for_games(runner, database, 3)
    runner.kill()  # the driver, SIGKILL: Ray ends its job's workers, and their bots
    runner.communicate(timeout=HANG_S)
    stored = stored_games(database)
    assert 3 <= stored < GAMES
    done = arena("run", str(config), "--resume", "--json")
    assert done.returncode == 0, done.stderr
    assert f"{GAMES - stored} games played now, {stored} already stored" in done.stderr
    assert rows(database) == rows(reference.database)
    assert nowhere(json.loads(done.stdout)) == nowhere(reference.report)


def test_a_local_run_interrupted_resumes_on_ray(
    two_nodes: TwoNodes, reference: Reference, tmp_path: Path
) -> None:
    config, database = reference.config(tmp_path)
    runner = start("run", str(config))
    wait_for_games(runner, database, 3)
    runner.send_signal(signal.SIGINT)
    _out, err = runner.communicate(timeout=HANG_S)
    assert runner.returncode == 130, err
    stored = stored_games(database)
    done = arena("run", str(config), "--resume", "--json", "--ray", two_nodes.address)
    assert done.returncode == 0, done.stderr
    assert f"{GAMES - stored} games played now, {stored} already stored" in done.stderr
    assert rows(database) == rows(reference.database)
    assert nowhere(json.loads(done.stdout)) == nowhere(reference.report)


def nowhere(report: dict[str, Any]) -> dict[str, Any]:
    """A report's JSON with only the keys of its config that give its games their meaning
    (the run's own database, replay folder and Ray settings differ from one run to another)."""
    config = report["config"]
    return {**report, "config": {key: config[key] for key in (*MEANING, "bots")}}


def no_busy_worker() -> bool:
    """Wait (bounded) until no Ray worker plays a shard."""
    deadline = time.monotonic() + HANG_S
    while busy_workers() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not busy_workers()


def test_ctrl_c_on_the_driver_cancels_the_shards_and_resume_goes_on(
    two_nodes: TwoNodes, duel: Reference, tmp_path: Path
) -> None:
    config, database = duel.config(tmp_path)
    runner = start("run", str(config), "--ray", two_nodes.address, "--ray-shard-deals", "4")
    wait_for_games(runner, database, 1)
    runner.send_signal(signal.SIGINT)
    _out, err = runner.communicate(timeout=HANG_S)
    assert runner.returncode == 130, err
    assert "interrupted;" in err and "--resume" in err and "Traceback" not in err
    assert no_busy_worker()  # the shards in flight were cancelled
    stored = stored_games(database)
    done = arena("run", str(config), "--resume", "--ray", two_nodes.address)
    assert done.returncode == 0, done.stderr
    assert f"{duel.games - stored} games played now, {stored} already stored" in done.stderr
    assert rows(database) == rows(duel.database)


def test_sprt_stops_the_cluster_early(two_nodes: TwoNodes, tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        deals = 30,
        bots={"heuristic": BOTS["heuristic"], "random": "python3 -m chaodipi.sample_bots.random_bot"},
    )
    done = arena(
        "run", str(config), "--sprt", "0,100,0.05,0.05", "--ray", two_nodes.address,
        "--ray-shard-deals", "5",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "SPRT: H1 accepted" in done.stdout
    assert stored_games(load_config(config).database) < len(schedule(load_config(config)))
    assert no_busy_worker()  # the shards in flight were cancelled


BROKEN = f"{sys.executable} -c \"import sys; print('missing weights.bin', file=sys.stderr); sys.exit(3)\""


def test_a_bot_that_cannot_start_on_the_nodes_stops_the_run_with_its_stderr(
    two_nodes: TwoNodes, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path, deals=5, concurrency=1, bots={"good": BOTS["highest"], "broken": BROKEN}
    )
    # shards of one deal (two games): the driver counts the failures across shards
    done = arena("run", str(config), "--ray", two_nodes.address, "--ray-shard-deals", "1")
    assert done.returncode == 1
    stopped = [line for line in done.stderr.splitlines() if "arena run: stopped: " in line]
    # the local run's message (chaodipi.arena.tournament.driver.FailureCount): why, its command, then its stderr
    assert stopped and stopped[0].startswith(
        "arena run: stopped: bot 'broken' failed to start 3 games in a row (exited before "
        "connecting (exit code 3); command: "
    ), stopped
    assert "missing weights.bin" in done.stderr  # the tail of its stderr, from the node
    stored = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert stored and all(row.void for row in stored) and len(stored) < 10


WHERE_BOT = """\
import os, runpy, sys
with open(sys.argv.pop(1), "a") as out:
    print(os.getcwd(), file=out)
runpy.run_path(sys.argv.pop(1), run_name="__main__")
"""


def test_a_shipped_working_dir_is_where_bot_commands_run(
    two_nodes: TwoNodes, tmp_path: Path
) -> None:
    """--ray-working-dir: Ray unpacks the folder on each node, and bot commands run in the
    config's folder inside that copy (a bot with a relative path finds its files there)."""
    shipped = tmp_path / "shipped"
    (shipped / "league" / "bots").mkdir(parents=True)
    (shipped / "league" / "bots" / "where.py").write_text(WHERE_BOT, encoding="utf-8")
    highest = (ROOT / "examples" / "highest_card_bot.py").read_text(encoding="utf-8")
    (shipped / "league" / "bots" / "highest.py").write_text(highest, encoding="utf-8")
    record = tmp_path / "cwds.txt"
    command = f"python3 bots/where.py {record} bots/highest.py"
    config = write_config(
        shipped / "league", deals=1, bots={"heuristic": BOTS["heuristic"], "highest": command}
    )
    done = arena(
        "run", str(config), "--ray", two_nodes.address, "--ray-working-dir", str(shipped),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 games played now" in done.stderr
    cwds = set(record.read_text().split())
    assert cwds and all(cwd.endswith("/league") for cwd in cwds)
    assert not any(cwd.startswith(str(shipped)) for cwd in cwds)  # Ray's copy, not ours
