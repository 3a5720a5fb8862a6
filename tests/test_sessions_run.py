"""Sessions in real runs: what each bot process was offered, over a whole round-robin, and a
process that hangs in some of its games while it plays others."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament.processes import bot_environment
from tests.test_tournament import arena, write_config

SESSION_BOT = f"{sys.executable} {Path(__file__).parent / 'bots' / 'session_bot.py'}"


def deals_of_tables(stderr: str) -> dict[str, int]:
    """Each table's deal, from the runner's ``game_started`` log lines (--log-level info)."""
    tables = {}
    for line in stderr.splitlines():
        if '"game_started"' in line:
            event = json.loads(line)
            tables[event["table"]] = int(re.search(r"-d(\d+)-[ab]$", event["game"])[1])  # type: ignore[index]
    return tables


def test_no_process_is_offered_two_seats_of_one_deal_over_a_whole_round_robin(
    tmp_path: Path, transport: str
) -> None:
    """Three bots, three deals, three games at once: 18 games, 72 seats. Every process records
    the offers it received (what the server actually sent it); no process ever got two seats
    of one deal, and far fewer processes than seats were started."""
    record = tmp_path / "record"
    record.mkdir()
    bot = f"{SESSION_BOT} --record {record}"
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=3,
        concurrency=3,
        bots={"alpha": bot, "beta": bot, "gamma": bot},
    )
    done = arena("run", str(config), "--log-level", "info")
    assert done.returncode == 0, done.stderr[-3000:]
    deals = deals_of_tables(done.stderr)
    assert len(deals) == 18
    offers = [line.split() for line in (record / "offers.txt").read_text().splitlines()]
    assert len(offers) == 72  # every seat of every game, offered once
    seen = Counter((pid, deals[table]) for pid, table, _ in offers)
    assert max(seen.values()) == 1, [k for k, n in seen.items() if n > 1]
    by_pid: dict[str, set[str]] = defaultdict(set)
    for pid, table, _ in offers:
        by_pid[pid].add(table)
    assert len(by_pid) <= 3 * 8  # each bot plays 8 seats of a deal: at most 8 processes each
    assert any(len(tables) > 1 for tables in by_pid.values())  # processes played on
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 18 and not any(r.void for r in rows)


def test_a_process_hanging_in_one_game_is_struck_there_and_plays_its_others(
    tmp_path: Path, transport: str
) -> None:
    """The hanger never answers when it holds seat 2 (its team is 0 in those games) and plays
    its other seats. Games where it sits at seats 0 and 2 end by its strikes; the others are
    played out, by the same processes, at the same time."""
    hanger = f"{SESSION_BOT} --hang-seat 2"
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=3,
        concurrency=4,
        decision_ms=300,
        bank_ms=8000,  # honest seats have ample time however loaded the machine is
        max_strikes=1,
        bots={"hanger": hanger, "steady": SESSION_BOT},
    )
    done = arena("run", str(config))
    assert done.returncode == 1, done.stderr[-3000:]  # forfeits make the exit code 1
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 6 and not any(r.void for r in rows)
    for row in rows:
        hanger_team = 0 if (row.key.bot_a == "hanger") == (not row.key.swapped) else 1
        if hanger_team == 0:  # the hanger held seat 2
            assert row.forfeit == "hanger" and row.strikes_a + row.strikes_b >= 1
        else:
            assert row.forfeit is None and row.strikes_a == row.strikes_b == 0


SNOOP_BOT = f"{sys.executable} {Path(__file__).parent / 'bots' / 'snoop_bot.py'}"


@pytest.mark.parametrize("transport", ["local", "grpc"])  # both in the default run
def test_no_bot_process_has_a_secret_on_its_command_line(tmp_path: Path, transport: str) -> None:
    """Every bot process reads, at its first decision of each game (all four seats' processes
    are alive then), the command line of every other bot process of the run, as any user of
    the machine could (/proc/PID/cmdline): neither a session token nor a fresh bot's ticket is
    on any of them. Each process records the secret it was handed in its environment; every
    process is seen by another one. Over each transport in the default run (the ``transport``
    fixture's ``grpc`` is slow): a process is handed its secret with a link (``local``) or
    with the address alone (``grpc``), and this is the default run's ``arena run`` over
    ``grpc``."""
    record = tmp_path / "record"
    record.mkdir()
    bot = f"{SNOOP_BOT} --record {record}"
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=2,
        concurrency=2,
        bots={"pooled": bot, "oneshot": {"command": bot, "fresh": True}},
    )
    done = arena("run", str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    handed = [line.split(" ", 1) for line in (record / "secrets.txt").read_text().splitlines()]
    secrets = {secret for _, secret in handed}
    assert len(handed) >= 4 + 8 and all(secrets)  # 4 games: 2 fresh seats each, sessions
    seen = [json.loads(line) for line in (record / "cmdlines.jsonl").read_text().splitlines()]
    assert {int(pid) for pid, _ in handed} <= {process["pid"] for process in seen}
    for process in seen:
        argv = process["argv"]
        assert "--address" in argv, argv  # a bot process of this run
        for word in argv:
            assert not any(secret in word for secret in secrets), argv
            assert not any(secret.rpartition("/")[2] in word for secret in secrets), argv
            assert not word.startswith(("--token", "--ticket")), argv


def test_a_bot_is_handed_one_secret_and_never_a_stray_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token or ticket the arena's own user has in its environment is not passed on: a
    session bot given a stray ARENA_TICKET would play that seat instead (a ticket wins)."""
    monkeypatch.setenv("ARENA_TICKET", "stray/0/ticket")
    monkeypatch.setenv("ARENA_TOKEN", "stray-token")
    session = bot_environment("127.0.0.1:7", token="the-session-token")
    assert session["ARENA_TOKEN"] == "the-session-token" and "ARENA_TICKET" not in session
    fresh = bot_environment("127.0.0.1:7", ticket="t1/2/the-ticket")
    assert fresh["ARENA_TICKET"] == "t1/2/the-ticket" and "ARENA_TOKEN" not in fresh
    assert session["ARENA_ADDRESS"] == fresh["ARENA_ADDRESS"] == "127.0.0.1:7"
