"""The ``arena`` command line, run as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.presets import PRESETS


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args], capture_output=True, text=True, timeout=120
    )


def test_presets_lists_every_preset() -> None:
    done = arena("presets")
    assert done.returncode == 0
    for name in PRESETS:
        assert name in done.stdout


def test_one_preset_lists_every_option() -> None:
    done = arena("presets", "hefei")
    assert done.returncode == 0
    assert "BidRules.fry_by_order = True" in done.stdout
    assert "ScoreRules.level_step = 10" in done.stdout


def test_unknown_preset_is_named_with_the_choices() -> None:
    done = arena("selfplay", "--preset", "nope")
    assert done.returncode == 2
    assert "no preset 'nope'" in done.stderr and "anchao" in done.stderr


def test_selfplay_prints_a_summary() -> None:
    done = arena("selfplay", "--matches", "2", "--hands", "1", "--preset", "anchao")
    assert done.returncode == 0, done.stderr
    assert "hands played" in done.stdout and "actions/s" in done.stdout


def _wait_for(path: Path, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text(encoding="utf-8").count("\n") >= 4):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.05)


def _serve(tickets: Path, *extra: str) -> subprocess.Popen[str]:
    """`arena serve` on a free localhost port, its tickets written to ``tickets``."""
    command = [sys.executable, "-m", "arena", "serve", "--plaintext", "--address", "127.0.0.1:0"]
    server = subprocess.Popen(
        [*command, "--tickets", str(tickets), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(tickets)
    return server


def test_serve_then_four_bot_processes_play_a_match(tmp_path: Path) -> None:
    tickets = tmp_path / "tickets.jsonl"
    server = _serve(tickets, "--hands", "1", "--replays", str(tmp_path / "replays"))
    try:
        rows = [json.loads(line) for line in tickets.read_text(encoding="utf-8").splitlines()]
        assert oct(tickets.stat().st_mode & 0o777) == "0o600"
        bots = [
            subprocess.Popen(
                [sys.executable, "-m", "sample_bots.random_bot", "--address", row["address"]],
                env={**os.environ, "ARENA_TICKET": row["ticket"]},
                stderr=subprocess.DEVNULL,
            )
            for row in rows
        ]
        out, err = server.communicate(timeout=60)
        for bot in bots:
            bot.wait(timeout=10)
    finally:
        server.kill()
    assert server.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["reason"] == "played to the end" and summary["hands"] == 1
    assert rows[0]["ticket"] not in err  # tickets are never logged
    assert (tmp_path / "replays" / "t1.jsonl").exists()


def test_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    server = _serve(tmp_path / "tickets.jsonl")
    server.send_signal(signal.SIGTERM)
    out, _ = server.communicate(timeout=30)
    assert server.returncode == 1
    assert json.loads(out.strip().splitlines()[-1])["reason"] == "the server was stopped"


def test_serve_refuses_plaintext_unless_asked() -> None:
    done = arena("serve")
    assert done.returncode == 2 and "--plaintext" in done.stderr
