"""``arena watch`` against a real table server: the spectator's stream read live into the
record's public lines and printed as ``arena show`` prints them; its token never on a command
line; each refusal one line."""

from __future__ import annotations

import io
import random
import shlex
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
import trustme
from rich.cells import cell_len

from chaodipi.arena.cli.live import ending_text, open_watch, watch_table
from chaodipi.arena.cli.main import main
from chaodipi.arena.cli.watch import read_spectator_token
from chaodipi.arena.errors import UsageError
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.serving.record import table_record
from chaodipi.arena.v2.convert import (
    event_from_message,
    event_message,
    outcome_from_message,
)
from chaodipi.bot import run_bot
from chaodipi.engine import PRESETS, Ending, Match, Outcome
from chaodipi.records import (
    LiveRecord,
    Transcript,
    record_lines,
    replay_record,
    spaced,
    unpack,
)
from tests.server_support import (
    SPECTATOR_TOKEN,
    Running,
    config,
    random_decide,
    run_tables,
    until,
)
from tests.test_tournament import write_config


def _public(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What every seat (and so a spectator) saw of a record: its lines without ``to``, less
    the header, the actions (with their notes) and the referee's ``dealt`` line."""
    return [
        line
        for line in lines[1:]
        if "to" not in line and line["type"] not in ("action", "dealt")
    ]


def _told(lines: list[dict[str, Any]]) -> list[str]:
    """What the transcript tells of a spectator's lines (the header first)."""
    teller = Transcript(spectator=True)
    teller.header = lines[0]
    told = [text for line in lines[1:] for text in teller.feed(line)]
    return told + teller.close()


def test_a_live_table_reads_as_its_records_public_lines_and_prints_as_it_plays() -> None:
    """A spectator joins before the first move of a two-hand match; what it reads, turned
    into record lines as they come, is exactly the public lines of the table's record (the
    hands only at each hand's end), and the printed transcript ends with the match's result."""
    out, late = io.StringIO(), io.StringIO()
    seen: list[dict[str, Any]] = []
    record: list[dict[str, Any]] = []
    ends: list[Any] = []

    async def spectate(running: Running) -> None:
        table = running.tables[0]
        channel, call = open_watch(running.server.address, table.name, SPECTATOR_TOKEN)
        live = LiveRecord(table.name)
        printing, printed_call = open_watch(running.server.address, table.name, SPECTATOR_TOKEN)

        def follow() -> None:
            seen.append(dict(live.header()))
            for response in call:
                kind = response.WhichOneof("response")
                if kind == "event":
                    seen.extend(live.lines(event_from_message(response.event)))
                elif kind == "match_over":
                    ends.append(outcome_from_message(response.match_over)[0])

        def print_it() -> None:
            ends.append(watch_table(printed_call, table.name, out))

        threads = [threading.Thread(target=follow), threading.Thread(target=print_it)]
        for thread in threads:
            thread.start()
        await until(lambda: len(table.spectators) == 2)
        assert running.start is not None
        running.start.set()
        await running.server.wait(table)
        record.extend(table_record(table))
        for thread in threads:
            await anyio.to_thread.run_sync(thread.join)
        channel.close()
        printing.close()
        # a spectator of the finished table: the whole match, and its end, at once
        channel, call = open_watch(running.server.address, table.name, SPECTATOR_TOKEN)
        ends.append(await anyio.to_thread.run_sync(watch_table, call, table.name, late))
        channel.close()

    results, _ = run_tables(
        [config(max_hands=2)], in_loop=spectate, hold=True, spectator_token=SPECTATOR_TOKEN
    )
    assert results[0].outcome.reason == "played to the end"
    assert seen[0] == {"type": "header", "format": "chaodipi-record/1", "table": results[0].table}
    assert seen[1:] == _public(record)
    assert sum(line["type"] == "play" for line in seen) > 40
    assert all(end is not None and end.hands == 2 for end in ends)
    assert ends[1].reason == "played to the end"
    assert ends[1].progress == tuple(record[0]["result"]["progress"])
    printed = out.getvalue().splitlines()
    assert printed[1:-1] == _told(seen)
    assert "played to the end" in printed[-1]
    assert late.getvalue() == out.getvalue()


def test_watch_on_the_command_line_follows_a_table_with_the_token_from_a_file(
    tmp_path: Path, capsys: Any
) -> None:
    """`arena watch ADDRESS TABLE --token-file PATH` follows a table to its end (exit code 0),
    the token read from the file; a wrong token, an unknown table, no token or a token on the
    command line are each one line on stderr and exit code 2."""
    token_file = tmp_path / "spectator"
    token_file.write_text(SPECTATOR_TOKEN + "\n", encoding="utf-8")
    wrong_file = tmp_path / "wrong"
    wrong_file.write_text("a guess", encoding="utf-8")
    for secret in (token_file, wrong_file):
        secret.chmod(0o600)  # as the arena writes it (others could read it: a warning)
    codes: dict[str, Any] = {}

    async def spectate(running: Running) -> None:
        table = running.tables[0]
        address = running.server.address

        def run(name: str, *argv: str) -> None:
            try:
                codes[name] = main(["watch", *argv])
            except SystemExit as exit_:
                codes[name] = exit_.code

        for name, argv in {
            "wrong token": [address, table.name, "--token-file", str(wrong_file)],
            "no table": [address, "t-none", "--token-file", str(token_file)],
            "on the command line": [address, table.name, "--token", SPECTATOR_TOKEN],
            "no token": [address, table.name],
        }.items():
            await anyio.to_thread.run_sync(run, name, *argv)
            codes[name + " said"] = capsys.readouterr()
        thread = threading.Thread(
            target=run,
            args=("watched", address, table.name, "--token-file", str(token_file), "--width", "72"),
        )
        thread.start()
        await until(lambda: len(table.spectators) == 1)
        assert running.start is not None
        running.start.set()
        await anyio.to_thread.run_sync(thread.join)

    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("ARENA_SPECTATOR_TOKEN", raising=False)
        results, _ = run_tables(
            [config(max_hands=1)], in_loop=spectate, hold=True, spectator_token=SPECTATOR_TOKEN
        )
    out, err = capsys.readouterr()
    assert codes["watched"] == 0, err
    assert f"watching table {results[0].table}" in err
    assert "played to the end" in out.splitlines()[-1]
    assert max(cell_len(line) for line in out.splitlines()[:-1]) <= 72
    assert SPECTATOR_TOKEN not in out + err
    for name, says in {
        "wrong token": "refused the spectator token",
        "no table": "t-none",
        "on the command line": "--token: a token on the command line",
        "no token": "no spectator token",
    }.items():
        assert codes[name] == 2, name
        printed, err = codes[name + " said"]
        assert printed == "", (name, printed)  # nothing on stdout: no title, no transcript
        said = [line for line in err.splitlines() if not line.startswith("{")]  # not the server's
        assert len(said) == 1 and says in said[0], (name, said)
        assert SPECTATOR_TOKEN not in err


def test_the_token_comes_from_the_file_before_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_text("from-the-file\n", encoding="utf-8")
    assert read_spectator_token(path, {"ARENA_SPECTATOR_TOKEN": "env"}) == "from-the-file"
    assert read_spectator_token(None, {"ARENA_SPECTATOR_TOKEN": "env"}) == "env"
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(UsageError, match="is empty"):
        read_spectator_token(tmp_path / "empty", {"ARENA_SPECTATOR_TOKEN": "env"})


GATED_BOT = f"{sys.executable} {Path(__file__).parent / 'bots' / 'gated_bot.py'}"


def test_arena_run_says_how_to_watch_each_table_and_that_command_watches_it(
    tmp_path: Path,
) -> None:
    """`arena run --spectator-token` prints, as each game's table opens, the `arena watch`
    command for it. Run as printed while the bots wait (they make no move until the test says
    so), each watcher says as it attaches that the table is a tournament's, whose events come
    once every game of its deal has ended, and follows its table to the end under the bots'
    names by seat: it gets everything once both games of the deal are over, the public lines
    of that game's stored record."""
    gate = tmp_path / "go"
    bot = f"{GATED_BOT} --gate {gate}"
    config = write_config(
        tmp_path / "t.toml",
        deals=1,
        concurrency=2,
        decision_ms=120_000,
        bots={"alpha": bot, "beta": bot + " --name beta"},
    )
    command = [sys.executable, "-m", "chaodipi.arena"]
    run = subprocess.Popen(
        [*command, "run", str(config), "--spectator-token"], stderr=subprocess.PIPE, text=True
    )
    assert run.stderr is not None
    hints: list[str] = []
    for line in run.stderr:
        if " arena watch " in line:
            hints.append(line)
        if len(hints) == 2:
            break
    watchers = []
    for hint in hints:
        argv = shlex.split(hint.split(": ", 2)[2].split(" (its events come")[0])
        assert argv[:2] == ["arena", "watch"] and argv[4] == "--token-file", hint
        watcher = subprocess.Popen(
            [*command, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert watcher.stderr is not None
        attached = watcher.stderr.readline()  # it is in, told its deal is still played
        assert attached.startswith(f"arena watch: watching table {argv[3]} at "), attached
        assert attached.rstrip().endswith(
            "this table is a tournament's: its events are shown once every game of its deal "
            "has ended"
        ), attached
        watchers.append((argv[3], watcher))
    gate.touch()
    _, rest = run.communicate(timeout=300)
    assert run.returncode == 0, rest[-3000:]
    db = ResultsDB(tmp_path / "results.sqlite", read_only=True)
    records = {}
    for key in db.recorded():
        blob = db.record(key)
        assert blob is not None
        lines = unpack(blob)
        records[lines[0]["table"]] = lines
    db.close()
    assert sorted(records) == sorted(table for table, _ in watchers)
    token = (tmp_path / "results-logs" / "spectator-token").read_text(encoding="utf-8").strip()
    for table, watcher in watchers:
        out, err = watcher.communicate(timeout=120)
        assert watcher.returncode == 0, err
        public = _public(records[table])
        names = [bot["name"] for bot in records[table][0]["bots"]]  # by seat
        header = {"type": "header", "format": "chaodipi-record/1", "table": table}
        header["bots"] = [{"name": name} for name in names]
        printed = out.splitlines()
        assert printed[0].startswith(f"table {table}, live")
        seats = " · ".join(f"{seat} {name} (team {seat % 2})" for seat, name in enumerate(names))
        assert printed[1] == f"seats: {seats}" and set(names) == {"alpha", "beta"}
        assert printed[2:-1] == _told([header, *public])
        assert "played to the end" in printed[-1]
        flat = " ".join(" ".join(printed).split())
        for line in records[table]:  # every trick, and every hand once it is over
            if line["type"] == "trick":
                assert f"→ {line['seat']} +{line['points']} (defenders " in flat
            if line["type"] == "hand_over":
                assert all(" ".join(spaced(cards).split()) in flat for cards in line["dealt"])
        assert token not in out + err


def test_watch_checks_a_tls_servers_certificate_against_tls_ca(tmp_path: Path, capsys: Any) -> None:
    """With --tls-ca the watcher speaks TLS and follows the table to its end."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    chain = b"".join(blob.bytes() for blob in cert.cert_chain_pems)
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(ca.cert_pem.bytes())
    token_file = tmp_path / "spectator"
    token_file.write_text(SPECTATOR_TOKEN, encoding="utf-8")
    token_file.chmod(0o600)
    codes: list[Any] = []

    async def spectate(running: Running) -> None:
        table = running.tables[0]
        argv = ["watch", running.server.address, table.name, "--token-file", str(token_file)]
        thread = threading.Thread(target=lambda: codes.append(main([*argv, "--tls-ca", str(ca_file)])))
        thread.start()
        await until(lambda: len(table.spectators) == 1)
        assert running.start is not None
        running.start.set()
        await anyio.to_thread.run_sync(thread.join)

    def tls_bot(address: str, ticket: str, seat: int, recording: Any) -> Any:
        return run_bot(
            random_decide(random.Random(seat)),
            address=address,
            ticket=ticket,
            root_certificate=ca.cert_pem.bytes(),
            exit_on_error=False,
        )

    results, _ = run_tables(
        [config(max_hands=1)],
        [[tls_bot] * 4],
        in_loop=spectate,
        hold=True,
        spectator_token=SPECTATOR_TOKEN,
        plaintext=False,
        tls_cert=chain,
        tls_key=cert.private_key_pem.bytes(),
    )
    assert results[0].outcome.reason == "played to the end"
    assert codes == [0], capsys.readouterr().err
    assert "played to the end" in capsys.readouterr().out.splitlines()[-1]


def test_a_spectator_is_told_the_kangqi_hand_has_no_level() -> None:
    """000 扛旗 「扛旗打无主」: the 扛旗 hand has no level (docs/rules.md). Position: the kangqi
    preset, team 0 past A (progress 13 : 7), seat 0 to deal. Verdict: a spectator's live
    record, made from the public events as they cross the wire, begins the hand with no
    level, as the table's record does, and `arena watch` prints "level none (扛旗)"."""
    match = Match(PRESETS["kangqi"], seed=4, progress=[13, 7], dealer=0, max_hands=1)
    rng = random.Random(4)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    live = LiveRecord("t1")
    seen = [
        line
        for event in match.log
        if event.public
        for line in live.lines(event_from_message(event_message(event)))
    ]
    assert seen[0] == {"type": "hand", "seq": 1, "hand": 0, "level": None, "dealer": 0,
                       "progress": [13, 7]}  # fmt: skip
    record = list(record_lines(match))
    assert [line for line in record if line["type"] == "hand"] == [seen[0]]
    assert replay_record(record).records == match.records  # from where the hand began
    teller = Transcript(spectator=True)
    teller.feed(live.header())
    printed = [text for line in seen for text in teller.feed(line)]
    assert [row for row in printed if row.startswith("── hand")] == [
        "── hand 1 · level none (扛旗) · dealer seat 0 · progress 13 : 7 ──"
    ]


def test_the_last_line_names_the_reward_as_the_viewer_does() -> None:
    """The number the winner earns is its reward (docs/architecture.md's glossary), in
    ``arena watch``'s last line as in the viewer's "won (reward 3)"."""
    outcome = Outcome(Ending.FORFEIT, "seat 0 struck out", 0, 4, (5, 2), 1, 3)
    assert ending_text(outcome) == (
        "match over: team 0 (seats 0 and 2) won (reward 3) on a forfeit after 4 hands: "
        "seat 0 struck out; progress 5 : 2"
    )
    assert ending_text(outcome, ("ann", "bo", "ann", "bo")).startswith(
        "match over: team 0 (ann) won (reward 3)"
    )
