"""A standing ladder as its operator and its bots' authors run it, every part a process of its
own over real gRPC: ``arena ladder serve`` with two hosted rungs, two resident bots added with
``arena ladder add`` (the Python SDK's random bot and the Go kit's, four processes each), played
until every version has its pairs; the leaderboard read in chromium; the ladder killed with
SIGKILL and started again, which keeps every finished pair once, rated once, abandons what was
playing and plays on; then a new version that crashes in its validation game is reported failed,
with why, and never rated (tests/test_ladder_service.py checks a hosted bot's stderr is shown). Waits are for the ladder's own lines (each pair's ``pair_over``), never
for a length of time."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

from chaodipi.arena.ladder import PairKind, PairState, Store, database_url, load_ladder
from tests import test_viewer
from tests.kits import GO

ROOT = Path(__file__).resolve().parent.parent
FAULTY = ROOT / "tests" / "bots" / "faulty_bot.py"
LINE_WAIT_S = 180.0
"""The most a test waits for the ladder's next line (a guard against a hang, not a pause)."""

pytestmark = pytest.mark.slow

browser = test_viewer.browser
"""Debian's chromium driven by playwright (skipped without them, failed in CI)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Serving:
    """``arena ladder serve`` as a process, its stderr read line by line in a thread."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chaodipi.arena",
                "ladder",
                "serve",
                str(config),
                "--log-level",
                "info",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: Queue[str | None] = Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        with self.process.stderr:
            for line in self.process.stderr:
                self.lines.put(line)
        self.lines.put(None)

    def wait_ended(self) -> None:
        """Read what is left of its stderr (the pipe is closed when it ends)."""
        while self.lines.get(timeout=LINE_WAIT_S) is not None:
            pass

    def next_line(self) -> str:
        try:
            line = self.lines.get(timeout=LINE_WAIT_S)
        except Empty:
            said = "".join(self.seen[-20:])
            raise AssertionError(f"the ladder said nothing for minutes:\n{said}") from None
        if line is None:
            raise AssertionError("the ladder ended:\n" + "".join(self.seen[-30:]))
        self.seen.append(line)
        return line

    def wait_for(self, text: str) -> str:
        while True:
            line = self.next_line()
            if text in line:
                return line

    def pairs_until(self, enough: Counter[str]) -> Counter[str]:
        """Read ``pair_over`` lines until every version named in ``enough`` has that many."""
        seen: Counter[str] = Counter()
        while any(seen[v] < n for v, n in enough.items()):
            line = self.next_line()
            if '"pair_over"' in line:
                event = json.loads(line)
                if event.get("score_a") is not None:
                    seen.update((event["a"], event["b"]))
        return seen


def _residents(
    name: str, command: list[str], token: Path, version: str, address: str, count: int = 4
) -> list[subprocess.Popen[bytes]]:
    argv = [
        *command,
        "--address",
        address,
        "--token-file",
        str(token),
        "--bot-version",
        version,
        "--name",
        name,
    ]
    return [
        subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        for _ in range(count)
    ]


def _arena(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "ladder", *words],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_a_ladder_keeps_every_finished_pair_through_sigkill_and_reports_a_failed_version(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], browser: Any
) -> None:
    go_bot = list(GO.ready().bot)
    address, web = f"127.0.0.1:{_free_port()}", f"127.0.0.1:{_free_port()}"
    config = tmp_path / "ladder.toml"
    config.write_text(
        f'name = "e2e"\naddress = "{address}"\nweb = "{web}"\nhands = 1\nconcurrency = 2\n'
        'rungs = ["random", "heuristic"]\nrefit_minutes = 0.2\nconnect_timeout = 30\n',
        encoding="utf-8",
    )
    serving = _Serving(config)
    serving.wait_for("resident bots connect to")
    tokens = {}
    for bot in ("py", "go"):
        added = _arena("add", str(config), bot)
        assert added.returncode == 0, added.stderr
        tokens[bot] = tmp_path / "tokens" / f"{bot}.token"
        assert oct(tokens[bot].stat().st_mode & 0o777) == "0o600"
        assert tokens[bot].read_text().strip() not in added.stdout  # the token is never printed
    processes += _residents(
        "py", [sys.executable, "-m", "chaodipi.sample_bots.random_bot"], tokens["py"], "v1", address
    )
    processes += _residents("go", go_bot, tokens["go"], "g1", address)
    versions = ("random@1", "heuristic@1", "py@1", "go@1")
    serving.pairs_until(Counter(dict.fromkeys(versions, 2)))

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"http://{web}/")
    standings = page.inner_text("#standings")
    assert all(version in standings for version in versions), standings
    page.close()

    serving.process.send_signal(signal.SIGKILL)
    serving.process.wait()
    serving.wait_ended()
    ladder = load_ladder(config)
    url = database_url(ladder.storage, ladder.folder)
    with _closing(Store.open(url, create=False)) as store:
        done = {p.id: p for p in store.pairs()}
        playing = store.pairs(kinds=tuple(PairKind), states=(PairState.PLAYING,))
        ratings = {v: store.rating_history(v) for v in {p.version_a for p in done.values()}}
    assert len(done) >= 4

    killed_at = max(done)
    serving = _Serving(config)
    serving.wait_for("resident bots connect to")
    serving.pairs_until(Counter({"py@1": 2, "go@1": 2}))

    with _closing(Store.open(url, create=False)) as store:
        again = {p.id: p for p in store.pairs()}
        for pair_id, pair in done.items():  # every finished pair kept, once, as it was
            assert again[pair_id] == pair
        for pair in playing:  # what was playing is abandoned, never played as new
            found = store.pair(pair.id)
            assert found is not None and found.state is PairState.ABANDONED
            assert found.id not in again
        assert all(p > killed_at for p in set(again) - set(done))
        for version, history in ratings.items():  # rated once: the same rows, none again
            assert store.rating_history(version)[: len(history)] == history
        for pair in again.values():
            games = store.games(pair_id=pair.id)
            assert sorted(g.row.key.swapped for g in games) == [False, True]

    broken = _residents("py", [sys.executable, str(FAULTY), "--crash"], tokens["py"], "v2", address)
    processes += broken
    serving.wait_for('"validated"')
    status = _arena("status", str(config), "--json")
    assert status.returncode == 0, status.stderr
    document = json.loads(status.stdout)
    failed = {a["version"]: a for a in document["apart"]}
    assert failed["py@2"]["state"] == "failed"
    # a resident's process runs on its owner's machine: the ladder sees its streams end (one
    # or more: a seat whose process had not yet crashed when the game ended runs out of time)
    assert re.match(r"its streams? ended mid-game \(\d: ", failed["py@2"]["reason"]), failed["py@2"]
    assert "py@2" not in {s["version"] for s in document["standings"]}
    with _closing(Store.open(url, create=False)) as store:
        py2 = next(v for v in store.versions() if v.name == "py@2")
        assert all(py2.id not in (p.version_a, p.version_b) for p in store.pairs())
    serving.process.send_signal(signal.SIGTERM)
    assert serving.process.wait(timeout=60) == 0
    serving.wait_ended()


class _closing:
    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> Store:
        return self.store

    def __exit__(self, *_: object) -> None:
        self.store.close()
