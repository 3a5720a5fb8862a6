"""``arena serve`` run as a user runs it: bot processes, secret deals, spectators, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import grpc
import pytest
import trio
import trio.testing

from chaodipi.arena.deals import DealKey
from chaodipi.arena.serving.hosting import void_unseated
from chaodipi.arena.serving.server import open_server
from chaodipi.arena.serving.table import Table, TableResult, Void
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi.engine.match import Ending
from chaodipi.records import load_lines, replay_record

from .server_support import RawClient, config, until
from .table_support import ListPort
from .test_cli import arena


def _wait_for(path: Path, lines: int = 4) -> None:
    """Wait until the server has written ``path`` (the deadline only guards against a hang)."""
    deadline = time.monotonic() + 120
    while not (path.exists() and path.read_text(encoding="utf-8").count("\n") >= lines):
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.05)


def _serve(tickets: Path, *extra: str) -> subprocess.Popen[str]:
    """`arena serve` on a free localhost port, its tickets written to ``tickets``."""
    command = [sys.executable, "-m", "chaodipi.arena", "serve", "--plaintext", "--address", "127.0.0.1:0"]
    server = subprocess.Popen(
        [*command, "--tickets", str(tickets), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(tickets)
    return server


def _play(tickets: Path, server: subprocess.Popen[str]) -> tuple[str, str, list[dict[str, str]]]:
    """Four random bot processes take the seats; the server's stdout, stderr and the tickets."""
    rows = [json.loads(line) for line in tickets.read_text(encoding="utf-8").splitlines()]
    try:
        bots = [
            subprocess.Popen(
                [sys.executable, "-m", "chaodipi.sample_bots.random_bot", "--address", row["address"]],
                env={**os.environ, "ARENA_TICKET": row["ticket"]},
                stderr=subprocess.DEVNULL,
            )
            for row in rows
        ]
        out, err = server.communicate(timeout=120)
        for bot in bots:
            bot.wait(timeout=30)
    finally:
        server.kill()
    assert server.returncode == 0, err
    return out, err, rows


def _replay_seed(path: Path) -> str:
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return str(header["seed"])


def test_serve_then_four_bot_processes_play_a_match(tmp_path: Path) -> None:
    tickets = tmp_path / "tickets.jsonl"
    server = _serve(tickets, "--hands", "1")
    assert oct(tickets.stat().st_mode & 0o777) == "0o600"
    out, err, rows = _play(tickets, server)
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["reason"] == "played to the end" and summary["hands"] == 1
    assert rows[0]["ticket"] not in err  # tickets are never logged
    # every table is recorded, by default beside the tickets (docs/game-record.md)
    record = tmp_path / "tickets.jsonl-records" / "t1.jsonl"
    assert summary["record"] == str(record)
    lines = load_lines(record.read_text(encoding="utf-8"))
    assert replay_record(lines).records[0].total == lines[-1]["total"]
    assert [b["seat"] for b in lines[0]["bots"]] == [0, 1, 2, 3]
    assert all(b["name"] for b in lines[0]["bots"])  # as each bot's Hello named it
    assert all(r["ticket"].split("/")[-1] not in record.read_text() for r in rows)
    # the deal came from a secret key: a keyed hash no bot can match to a small number
    seed = _replay_seed(record)
    assert len(seed) == 64 and int(seed, 16) > 2**128
    assert seed not in out + err and "spectator token" not in err


def test_serve_saves_its_deal_key_only_when_asked_and_can_deal_the_same_cards_again(
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "deal.key"
    first = _serve(
        tmp_path / "a.jsonl",
        *("--hands", "1", "--tables", "2", "--records", str(tmp_path / "a")),
        *("--deal-key-file", str(key_file)),
    )
    out, err, _ = _play(tmp_path / "a.jsonl", first)
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    key = DealKey.from_hex(key_file.read_text(encoding="ascii"))
    assert key.hex() not in out + err
    seeds = [_replay_seed(tmp_path / "a" / f"t{i + 1}.jsonl") for i in range(2)]
    assert seeds == [key.seed(0), key.seed(1)]  # table i plays deal i of the key

    again = _serve(
        tmp_path / "b.jsonl",
        *("--hands", "1", "--tables", "2", "--records", str(tmp_path / "b")),
        *("--reuse-deal-key", str(key_file)),
    )
    _play(tmp_path / "b.jsonl", again)
    assert [_replay_seed(tmp_path / "b" / f"t{i + 1}.jsonl") for i in range(2)] == seeds

    refused = arena(
        "serve", "--plaintext", "--address", "127.0.0.1:0", "--deal-key-file", str(key_file)
    )
    assert refused.returncode == 2 and "exists" in refused.stderr
    assert "--reuse-deal-key" in refused.stderr


def test_serve_makes_a_spectator_token_only_when_asked(tmp_path: Path) -> None:
    tickets = tmp_path / "tickets.jsonl"
    server = _serve(tickets, "--hands", "1", "--spectator-token")
    token_file = tmp_path / "tickets.jsonl.spectator"
    assert oct(token_file.stat().st_mode & 0o777) == "0o600"
    token = token_file.read_text(encoding="utf-8").strip()
    address = json.loads(tickets.read_text(encoding="utf-8").splitlines()[0])["address"]
    channel = grpc.insecure_channel(address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    wrong = stub.Watch(pb.WatchRequest(table="t1", token="a guess"))
    try:
        list(wrong)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    else:
        raise AssertionError("a wrong spectator token was let in")
    call = stub.Watch(pb.WatchRequest(table="t1", token=token))
    call.initial_metadata()  # the server has taken the spectator in: start the bots now
    out, err, _ = _play(tickets, server)
    events = list(call)
    channel.close()
    assert token not in out + err
    assert events[0].HasField("attached") and events[1].HasField("event")
    assert not events[0].attached.held_back and not events[0].attached.bots  # not a tournament's
    assert events[-1].HasField("match_over")
    assert events[-1].match_over.reason == "played to the end"


def test_serve_without_a_tickets_file_writes_the_spectator_token_to_a_private_file() -> None:
    """The tickets go to stdout; the spectator token goes to a new file readable by its owner
    only, whose name is printed on stderr. The token is on neither output."""
    command = [sys.executable, "-m", "chaodipi.arena", "serve", "--plaintext", "--address", "127.0.0.1:0"]
    server = subprocess.Popen(
        [*command, "--spectator-token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stderr is not None
    said: list[str] = []
    try:
        for line in server.stderr:  # up to the line about the token (or the end of stderr)
            said.append(line)
            if "spectator token" in line:
                break
        tickets = [server.stdout.readline() for _ in range(4)]  # printed after the token
    finally:
        server.kill()
    out, err = server.communicate(timeout=60)
    assert said and "arena serve: spectator token written to " in said[-1], said
    path = Path(said[-1].split("written to ", 1)[1].removesuffix(" (readable by you only)\n"))
    try:
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        token = path.read_text(encoding="utf-8").strip()
    finally:
        path.unlink()
    assert len(token) >= 32 and all(json.loads(t)["ticket"] for t in tickets)
    assert token not in "".join(said) + err + out + "".join(tickets)


def test_serve_writes_the_spectator_token_to_the_path_given(tmp_path: Path) -> None:
    path = tmp_path / "watch.token"
    server = _serve(tmp_path / "tickets.jsonl", "--spectator-token", str(path))
    try:
        assert oct(path.stat().st_mode & 0o777) == "0o600"  # written before the tickets
        token = path.read_text(encoding="utf-8").strip()
    finally:
        server.kill()
    out, err = server.communicate(timeout=60)
    assert f"spectator token written to {path} (readable by you only)" in err
    assert len(token) >= 32 and token not in out + err


def test_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    server = _serve(tmp_path / "tickets.jsonl")
    server.send_signal(signal.SIGTERM)
    out, _ = server.communicate(timeout=60)
    assert server.returncode == 1
    assert json.loads(out.strip().splitlines()[-1])["reason"] == "the server was stopped"


def test_serve_refuses_plaintext_unless_asked() -> None:
    done = arena("serve")
    assert done.returncode == 2 and "--plaintext" in done.stderr


def test_serve_help_says_how_deals_and_spectators_work() -> None:
    done = arena("serve", "--help")
    assert done.returncode == 0
    for option in ("--deal-key-file", "--reuse-deal-key", "--spectator-token"):
        assert option in done.stdout
    assert "--seed" not in done.stdout
    words = " ".join(done.stdout.split())  # as argparse wrapped it
    assert "--spectator-token [PATH]" in words and "never the token" in words


def test_a_second_serve_on_a_taken_port_fails_at_once_naming_it(tmp_path: Path) -> None:
    """grpc's SO_REUSEPORT used to let both start ("serving"), each taking part of the bots."""
    tickets = tmp_path / "tickets.jsonl"
    first = _serve(tickets)
    try:
        address = json.loads(tickets.read_text(encoding="utf-8").splitlines()[0])["address"]
        second = arena("serve", "--plaintext", "--address", address)
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert second.returncode == 2, second.stderr
    assert second.stderr.strip().splitlines() == [
        f"arena serve: cannot listen on {address}: the address is in use (another server "
        "listens there: stop it, or choose another port)"
    ]
    assert second.stdout == ""  # no tickets for a server that is not there


def test_a_table_whose_seats_never_connect_is_void_and_the_exit_code_says_why(
    tmp_path: Path,
) -> None:
    """As in `arena run`: nothing is played for seats nobody took (with these clocks the table
    used to play by itself and end in a forfeit after its strikes)."""
    done = arena(
        *("serve", "--plaintext", "--address", "127.0.0.1:0", "--tickets", str(tmp_path / "t")),
        *("--connect-timeout", "0.5", "--decision-ms", "10", "--bank-ms", "0"),
        *("--max-strikes", "1"),
    )
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    reason = "void: seats 0, 1, 2, 3 did not connect within 0.5 s"
    assert summary["void"] is True and summary["reason"] == reason, summary
    assert summary["winner"] is None and summary["forfeited_by"] is None and summary["hands"] == 0
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"arena serve: exit code 1: 1 of 1 tables did not play to the end: t1 ({reason})"


def test_the_seats_that_came_are_told_their_table_is_void() -> None:
    """Three seats connect, the fourth never does: once the connect timeout passes the three
    get MatchOver, ending ENDING_STOPPED with the reason, and nothing was played."""

    async def main() -> tuple[TableResult, list[pb.PlayResponse]]:
        async with open_server("127.0.0.1:0") as server:
            start = anyio.Event()
            table = server.start_table(config(), start=start)
            clients = [RawClient(server.address) for _ in range(3)]
            for seat, client in enumerate(clients):
                client.hello(table.ticket(seat))
            await until(lambda: sum(s.stats.connects for s in table.seats) == 3)
            void = await void_unseated(table, 0.1)
            assert void == Void((3,), "seat 3 did not connect within 0.1 s")
            result = await server.wait(table)
            ends = [await anyio.to_thread.run_sync(client.next, "match_over") for client in clients]
            for client in clients:
                client.close()
            return result, ends

    result, ends = anyio.run(main, backend="asyncio")
    reason = "void: seat 3 did not connect within 0.1 s"
    assert result.outcome.reason == reason and result.outcome.ending is Ending.STOPPED and result.outcome.hands == 0
    assert result.void == Void((3,), "seat 3 did not connect within 0.1 s")
    assert all(s.decisions == 0 for s in result.seats)
    for end in ends:
        assert end.match_over.ending == pb.ENDING_STOPPED and end.match_over.reason == reason


def test_a_seat_that_was_sent_its_hand_never_voids_its_table() -> None:
    """Void means only that a seat was never taken: once a seat has been sent its Snapshot (its
    hand), its bot's failures count as they would later, so the table refuses to void for it;
    it ends void only for the seats never taken."""

    async def main() -> tuple[TableResult, list[str]]:
        table = Table("t", config())
        port = ListPort()
        table.attach(0, port, "early")
        kinds = [str(m.WhichOneof("response")) for m in port.sent]
        assert table.seated(0) and not table.seated(1)
        with pytest.raises(ValueError, match="seat 0 was sent its hand"):
            table.void([0, 1], "seats 0, 1 did not connect")
        assert table.result is None
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(table.run)
            void = await void_unseated(table, 60)  # on the test's clock
            assert void == Void((1, 2, 3), "seats 1, 2, 3 did not connect within 60 s")
        assert table.result is not None
        return table.result, kinds

    result, kinds = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert kinds == ["welcome", "snapshot"]
    assert result.void == Void((1, 2, 3), "seats 1, 2, 3 did not connect within 60 s")
    assert result.outcome.reason == "void: seats 1, 2, 3 did not connect within 60 s"
    assert result.outcome.ending is Ending.STOPPED and result.outcome.winner is None and result.outcome.hands == 0


def test_the_void_rule_leaves_a_table_that_ended_for_another_reason_as_it_ended() -> None:
    """A table stopped before its seats were due is stopped, not void: the rule voids nothing
    and says so (None), so that nobody is blamed for not taking a seat of it."""

    async def main() -> tuple[TableResult, Void | None]:
        table = Table("t", config())
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(table.run)
            table.stop("the server was stopped")
            void = await void_unseated(table, 60)
        assert table.result is not None
        return table.result, void

    result, void = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert void is None and result.void is None and result.outcome.reason == "the server was stopped"
