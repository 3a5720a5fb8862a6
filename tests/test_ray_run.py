"""``arena run --ray`` without a cluster (the normal suite): the options it refuses and why, how
it ships code and files, and a shard played in this process as a Ray worker plays it
(tests/test_ray_tournament.py runs real clusters; tests/test_driver.py the driver that counts
and stores what the shards send)."""

from __future__ import annotations

import signal
import sys
import zlib
from dataclasses import replace
from pathlib import Path
from types import FrameType

import pytest

import chaodipi
from chaodipi.arena.cli.main import main
from chaodipi.arena.deals import DealKey
from chaodipi.arena.errors import ShardError, UsageError
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.tournament import ray_cluster, ray_shard
from chaodipi.arena.tournament.backend import FailureKind
from chaodipi.arena.tournament.config import load_config, schedule
from chaodipi.arena.tournament.ray_backend import check_config, runtime_env
from chaodipi.arena.tournament.ray_cluster import INSTALL_HINT
from chaodipi.arena.tournament.ray_shard import Shard, ShardResult, play_shard
from tests.test_run_faults import BROKEN
from tests.test_tournament import write_config

ROOT = Path(__file__).resolve().parent.parent
HEURISTIC = "python3 -m chaodipi.sample_bots.heuristic_bot"
HIGHEST = f"python3 {ROOT / 'examples' / 'highest_card_bot.py'}"
UNHURRIED = {"connect_timeout": 600, "decision_ms": 120_000}
"""The clocks of the games these tests play: only a guard against a hang. Under load (the
whole suite on a busy 2-core machine) a bot process can take more than the default 10 s to
start and connect, which voids its game, and more than 2 s to answer; these tests check what
a shard sends, never a bot's speed."""


@pytest.fixture(autouse=True)
def no_frozen_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker freezes its heap once (chaodipi.arena.serving.server.tune_garbage_collector): not pytest's."""
    monkeypatch.setattr(ray_shard, "_prepared", True)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(
        tmp_path / "t.toml", deals=1, bots={"a": HEURISTIC, "b": HIGHEST}, **UNHURRIED
    )


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["run", *args])
    return code, capsys.readouterr().err


def test_without_ray_the_flag_says_how_to_install_it(
    config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, err = run(capsys, str(config), "--ray", "local")
    assert code == 2
    assert err.strip() == f"arena run: --ray: {INSTALL_HINT}"
    assert "pip install -e '.[ray]'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ray", "local", "--spectator-token"], "--spectator-token: with --ray the tables run"),
        (["--ray", "local", "--port", "5000"], "--host and --port: with --ray each shard"),
        (["--ray", "10.0.0.5"], "--ray: a Ray address is 'auto', 'local' or HOST:PORT"),
        (["--ray", "ray://head:10001"], "Ray Client address, which cannot stream"),
        (["--ray-shard-deals", "3"], "--ray-shard-deals and --ray-working-dir go with --ray"),
    ],
)
def test_options_that_cannot_go_with_ray_are_refused_with_the_reason(
    config: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, err = run(capsys, str(config), *args)
    assert code == 2 and message in err
    assert not (config.parent / "results.sqlite").exists()  # refused before anything began


def test_an_external_bot_cannot_play_on_ray(tmp_path: Path) -> None:
    path = write_config(
        tmp_path / "t.toml", bots={"inside": HEURISTIC, "outside": {"token": "a-secret-token"}}
    )
    with pytest.raises(UsageError, match=r"'outside' is an external bot .* give it a command"):
        check_config(load_config(path))


def test_code_goes_to_the_nodes_at_this_path_unless_a_folder_is_shipped(
    config: Path, tmp_path: Path
) -> None:
    loaded = load_config(config)
    env, folder = runtime_env(loaded, None)
    assert folder is None
    roots = env.get("env_vars", {}).get("PYTHONPATH", "").split(":")

    checkout = str(Path(chaodipi.__file__).parent.parent)
    assert checkout in roots or "site-packages" in checkout
    env, folder = runtime_env(loaded, tmp_path.parent)
    assert env["working_dir"] == str(tmp_path.parent.resolve())
    assert folder == tmp_path.name
    assert f"/{tmp_path.name}/results.sqlite" in env["excludes"]
    with pytest.raises(UsageError, match="must hold the config's folder"):
        runtime_env(loaded, ROOT / "docs")


def row(key: GameKey, void: str | None = None, crashes_b: int = 0) -> GameRow:
    return GameRow(
        key, None if void else 1.0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, crashes_b, None, "",
        "", 0.1, void,
    )  # fmt: skip


def shard_of(path: Path, games: int | None = None, **options: object) -> Shard:
    config = load_config(path)
    keys = schedule(config)[:games]
    return Shard(0, config, DealKey.new(), tuple(keys), str(path.parent / "logs"), **options)  # type: ignore[arg-type]


def test_a_shard_yields_every_game_in_order_with_its_replay(tmp_path: Path) -> None:
    """As on a Ray worker (this test runs on the main thread, as a task does): a table server
    and the bots' sessions here, one result per game, in the shard's order."""
    path = write_config(
        tmp_path / "t.toml",
        deals=2,
        replays="replays",
        bots={"a": HEURISTIC, "b": HIGHEST},
        **UNHURRIED,
    )
    shard = shard_of(path)
    results: list[ShardResult] = list(play_shard(shard))
    assert [r.result.row.key for r in results] == list(shard.games)
    assert [r.index for r in results] == [0, 1, 2, 3]
    assert all(r.result.row.void is None and not r.result.failures for r in results)
    assert all(r.result.seated == {"a", "b"} for r in results)
    for item in results:
        assert item.result.record is not None
        assert zlib.decompress(item.result.record).startswith(b"{")
    assert results[-1].processes >= 2 and not any(r.processes for r in results[:-1])
    assert not (tmp_path / "replays").exists()  # the driver writes them, not the node
    assert (tmp_path / "logs" / "shard-0").is_dir()


def test_a_shard_counts_no_failure_and_sends_each_one_as_a_fact(tmp_path: Path) -> None:
    """A bot that cannot start: the shard plays on (the driver counts, over every shard, and
    cancels it), and every game's result names the bot, that it never played, why, and the
    tail of its stderr read on the node."""
    path = write_config(
        tmp_path / "t.toml", deals=2, concurrency=1, bots={"good": HIGHEST, "broken": BROKEN}
    )
    results = list(play_shard(shard_of(path)))
    assert len(results) == 4 and all(r.result.row.void for r in results)
    for item in results:
        failures = item.result.failures
        assert failures and {f.bot for f in failures} == {"broken"}
        assert all(f.kind is FailureKind.UNSEATED for f in failures)
        assert all(f.stderr == "missing weights.bin" for f in failures)
        assert all(f.why.endswith("(exit code 3)") for f in failures)
        assert "broken" not in item.result.seated


def test_a_shard_leaves_the_workers_sigterm_handler_alone(tmp_path: Path) -> None:
    """Ray owns SIGTERM in a worker (its handler ends the worker): a shard installs none of its
    own, while it plays or after (the driver alone watches signals, chaodipi.arena.signals)."""
    path = write_config(
        tmp_path / "t.toml", deals=1, bots={"a": HEURISTIC, "b": HIGHEST}, **UNHURRIED
    )

    def rays(signum: int, frame: FrameType | None) -> None:
        raise AssertionError("not called")

    previous = signal.signal(signal.SIGTERM, rays)
    try:
        seen = [signal.getsignal(signal.SIGTERM) for _ in play_shard(shard_of(path))]
        seen.append(signal.getsignal(signal.SIGTERM))
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert len(seen) == 3 and all(handler is rays for handler in seen)


def test_a_shard_says_when_its_folder_is_missing_on_the_node(tmp_path: Path) -> None:
    path = write_config(
        tmp_path / "t.toml", deals=1, bots={"a": HEURISTIC, "b": HIGHEST}, **UNHURRIED
    )
    shard = shard_of(path)
    elsewhere = replace(shard, config=replace(shard.config, folder=tmp_path / "gone"))
    with pytest.raises(ShardError, match="does not exist on Ray node local: install the project"):
        list(play_shard(elsewhere))
    with pytest.raises(ShardError, match="the shipped working_dir does not hold it"):
        list(play_shard(replace(shard, folder="no/such/folder")))


def test_an_address_where_nothing_answers_is_named_at_once() -> None:
    """Ray itself would retry for minutes; connect says so within seconds."""
    with pytest.raises(ConnectionError, match=r"nothing answers at 127\.0\.0\.1:1 .*ray start"):
        ray_cluster._answers("127.0.0.1:1")


def test_a_game_received_twice_is_stored_once(tmp_path: Path) -> None:
    """What a shard run again by Ray could send: the recorder stores each game once."""
    from chaodipi.arena.results.database import ResultsDB
    from chaodipi.arena.tournament.recorder import Recorder, RunResult

    config = load_config(
        write_config(tmp_path / "t.toml", deals=1, bots={"a": HEURISTIC, "b": HIGHEST})
    )
    db = ResultsDB(config.database)
    db.claim(config.fingerprint(), resume=False)
    run_result = RunResult()
    seen: list[int] = []
    recorder = Recorder(config, db, run_result, on_game=lambda row, done, total: seen.append(done))
    game = row(recorder.pending[0])
    assert recorder.keep(game) is True and recorder.keep(game) is False
    assert (run_result.played, run_result.duplicates, seen, db.count()) == (1, 1, [1], 1)
    db.close()
