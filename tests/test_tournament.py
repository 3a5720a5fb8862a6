"""Tournaments end to end: real bot processes over gRPC, SQLite results, resume, reports."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chaodipi.arena.errors import ConfigError, DatabaseError
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament.config import load_config, schedule

BOT = f"{sys.executable} -m chaodipi.sample_bots.random_bot"


def write_config(path: Path, **extra: object) -> Path:
    settings: dict[str, object] = {
        "preset": "classic",
        "hands": 1,
        "deals": 2,
        "concurrency": 4,
        "decision_ms": 2000,
        "database": "results.sqlite",
    }
    bots = extra.pop("bots", None) or {"alpha": BOT, "beta": BOT + " --name beta", "gamma": BOT}
    settings.update(extra)
    lines = [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    for name, command in bots.items():  # type: ignore[attr-defined]
        keys = command if isinstance(command, dict) else {"command": command}
        lines += [f"[bots.{name}]", *(f"{k} = {json.dumps(v)}" for k, v in keys.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def arena(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", *args], capture_output=True, text=True, timeout=timeout
    )


def stored_games(database: Path) -> int:
    """Games stored so far (0 before the run has made its database), read as ``arena report``
    reads: without taking the writer's lock."""
    try:
        db = ResultsDB(database, read_only=True)
    except DatabaseError:
        return 0
    try:
        return db.count()
    finally:
        db.close()


def test_round_robin_end_to_end_and_the_report_matches_the_games(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml")
    done = arena("run", str(config), "--json", "--csv", str(tmp_path / "csv"))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    db = sqlite3.connect(tmp_path / "results.sqlite")
    rows = db.execute("SELECT bot_a, bot_b, deal, swapped, score_a FROM games").fetchall()
    # 3 pairings × 2 deals × 2 seatings
    assert len(rows) == 12 == report["games"]
    for pair in report["pairs"]:
        scores = [r[4] for r in rows if (r[0], r[1]) == (pair["bot_a"], pair["bot_b"])]
        assert pair["wins"] == scores.count(1.0) and pair["losses"] == scores.count(0.0)
        assert pair["draws"] == scores.count(0.5)
        assert sum(pair["pentanomial"]) == 2  # two seeds, each a pair of games
    by_bot = {b["bot"]: b for b in report["bots"]}
    for name in ("alpha", "beta", "gamma"):
        mine = [r[4] for r in rows if r[0] == name] + [1 - r[4] for r in rows if r[1] == name]
        assert by_bot[name]["games"] == 8 and by_bot[name]["score"] == pytest.approx(sum(mine))
    assert (tmp_path / "csv" / "standings.csv").read_text().startswith("rank,bot,games,score")
    again = arena(
        "report", str(tmp_path / "results.sqlite"), "--json", "--plot", str(tmp_path / "plots")
    )
    assert json.loads(again.stdout) == report
    for name in ("ratings.png", "head_to_head.png"):
        assert (tmp_path / "plots" / name).read_bytes().startswith(b"\x89PNG")


def test_a_rerun_without_resume_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", deals=1, bots={"a": BOT, "b": BOT})
    assert arena("run", str(config)).returncode == 0
    done = arena("run", str(config))
    assert done.returncode == 2 and "--resume" in done.stderr
    resumed = arena("run", str(config), "--resume")
    assert resumed.returncode == 0 and "0 games played now, 2 already stored" in resumed.stderr


@pytest.mark.slow  # a real run killed outright, its every process: `pytest -m slow`
def test_sigkill_midway_then_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    config_path = write_config(
        tmp_path / "t.toml", deals=6, concurrency=2, hands=2, bots={"a": BOT, "b": BOT}
    )
    config = load_config(config_path)
    database = tmp_path / "results.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if stored_games(database) >= 3:
            break
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)  # the runner and every bot it started
    process.wait()
    before = {r.key: r for r in ResultsDB(database, read_only=True).rows()}
    assert 3 <= len(before) < len(schedule(config))
    done = arena("run", str(config_path), "--resume")
    assert done.returncode == 0, done.stderr
    after = {r.key: r for r in ResultsDB(database, read_only=True).rows()}
    assert set(after) == set(schedule(config))  # every game, once (the key is the primary key)
    assert all(after[key] == row for key, row in before.items())  # nothing replayed
    assert (
        f"{len(after) - len(before)} games played now, {len(before)} already stored" in done.stderr
    )


def test_a_bot_that_cannot_start_makes_void_games_not_wins(tmp_path: Path) -> None:
    """Its games are void (kept out of the statistics, played again on --resume), noticed when
    its process exits rather than after a timeout, and its stderr is quoted."""
    broken = (
        f"{sys.executable} -c \"import sys; print('no model file', file=sys.stderr); sys.exit(3)\""
    )
    config = write_config(tmp_path / "t.toml", deals=1, bots={"good": BOT, "broken": broken})
    done = arena("run", str(config))
    assert done.returncode == 1
    assert "broken" in done.stderr and "exited before" in done.stderr
    assert "no model file" in done.stderr and "exit code 3" in done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2
    assert all(r.void and r.score_a is None and r.forfeit is None for r in rows)
    assert "0 games played now (and 2 void, to play again)" in done.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("preset = 'nope'\n", "preset: no preset 'nope'"),
        ("deals = 0\n[bots.a]\ncommand='x'\n[bots.b]\ncommand='y'\n", "deals: must be at least 1"),
        ("hands = 'two'\n", "hands: must be a whole number"),
        ("[bots.a]\ncommand = 5\n", "bots.a.command: must be a string or a list of strings"),
        ("[bots.a]\ncommand='x'\n", "bots: a tournament needs at least two bots"),
        ("colour = 'red'\n", "colour: unknown key"),
        ("schedule = 'swiss'\n", "schedule: must be"),
        ("transport = 'tcp'\n", 'transport: must be "local" or "grpc", not \'tcp\''),
        ("[bots.a]\ncommand='x'\ncmd='y'\n", "bots.a.cmd: unknown key"),
        ("preset = \n", "is not valid TOML"),
        (
            "schedule = 'gauntlet'\n[bots.a]\ncommand='x'\n[bots.b]\ncommand='y'\n",
            "gauntlet: name the bot",
        ),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_gauntlet_schedule(tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path / "g.toml", schedule="gauntlet", gauntlet="beta"))
    assert config.pairings() == [("beta", "alpha"), ("beta", "gamma")]
    assert len(schedule(config)) == 2 * 2 * 2


def test_config_error_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("seeds = -1\n", encoding="utf-8")
    done = arena("run", str(path))
    assert done.returncode == 2 and "deals: must be at least 1" in done.stderr
    missing = arena("run", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_sprt_stops_a_lopsided_match_early(tmp_path: Path) -> None:
    heuristic = f"{sys.executable} -m chaodipi.sample_bots.heuristic_bot"
    config = write_config(
        tmp_path / "s.toml",
        deals = 30,
        concurrency=2,
        hands=1,
        bots={"heuristic": heuristic, "random": BOT},
    )
    done = arena("run", str(config), "--sprt", "0,100,0.05,0.05")
    assert done.returncode == 0, done.stderr
    assert "SPRT: H1 accepted" in done.stdout
    stored = ResultsDB(tmp_path / "results.sqlite", read_only=True).count()
    assert stored < 60  # stopped before the schedule ran out
    bad = arena("run", str(config), "--sprt", "1,2")
    assert bad.returncode == 2 and "elo0,elo1,alpha,beta" in bad.stderr


def test_an_external_bot_connects_with_its_token(tmp_path: Path) -> None:
    """A bot that runs by itself: each of its processes (here threads) opens a session with
    the bot's token and plays the seats it is offered; four sessions, since a process is never
    given two seats of one deal (one pairing's deal has four seats for each bot)."""
    import random
    import socket
    import threading

    from chaodipi.bot import run_bot

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = "external-secret-1"
    config = tmp_path / "e.toml"
    config.write_text(
        'hands = 1\nseeds = 1\nconcurrency = 1\ndatabase = "results.sqlite"\n'
        f'[bots.outside]\ntoken = "{token}"\n[bots.inside]\ncommand = "{BOT}"\n',
        encoding="utf-8",
    )
    runner = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config), "--port", str(port), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    results: list[object] = []

    def outside(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(50):  # the server may not listen yet
            try:
                decide = lambda view: view.legal.sample(rng)  # noqa: E731
                address = f"127.0.0.1:{port}"
                results.append(run_bot(decide, address=address, token=token, name="outside"))
                return
            except Exception:
                time.sleep(0.2)

    threads = [threading.Thread(target=outside, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    out, err = runner.communicate(timeout=180)
    for thread in threads:
        thread.join(30)
    assert runner.returncode == 0, err
    report = json.loads(out)
    assert report["games"] == 2 and len(results) == 4
    assert sum(len(r.games) for r in results) == 4  # type: ignore[attr-defined]
    assert {b["bot"] for b in report["bots"]} == {"outside", "inside"}
    assert all(b["timeouts"] == 0 for b in report["bots"])
