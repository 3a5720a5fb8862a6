"""The bot's note (Answer.note, docs/game-record.md): kept in the game record beside its action,
never sent to any seat or spectator; a note over 256 bytes is refused, not cut."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import trio
import trio.testing

from chaodipi.arena.cli.main import main
from chaodipi.arena.files import write_record
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.serving.record import table_record
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.bot import Answer, run_bot
from chaodipi.engine.actions import Pass
from chaodipi.engine.view import SeatView
from chaodipi.records import pack, read_file, replay_record, transcript

from . import server_support
from .table_support import ListPort, Player, config, kind_of, legal_of, seat_bots

MARK = "ZQXnote"


def _note(seat: int, decision_id: int) -> str:
    return f"{MARK} seat {seat} decision {decision_id}: +0.3 ♠A"


async def noting_bot(player: Player) -> None:
    """Answers each Decision at once with a random legal move and a note naming it."""
    async for message in player.connect():
        if kind_of(message) == "decision":
            decision = message.decision
            action = legal_of(decision).sample(player.rng)
            note = _note(player.seat, decision.decision_id)
            player.send(convert.answer(decision.decision_id, action, note))


def _play(bots: list, *, watch: bool = False) -> tuple[Table, list[Player], ListPort]:  # type: ignore[type-arg]
    spectator = ListPort(peer="spectator")

    async def main() -> tuple[Table, list[Player]]:
        table = Table("t", config("anchao", max_hands=1, seed=4))
        if watch:
            table.watch(spectator)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            players = seat_bots(nursery, table, bots)
            await table.finished.wait()
            nursery.cancel_scope.cancel()
        return table, players

    table, players = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return table, players, spectator


def test_a_note_is_recorded_with_its_action_and_never_sent_to_anyone() -> None:
    table, players, spectator = _play([noting_bot] * 4, watch=True)
    assert table.result is not None and table.result.outcome.reason == "played to the end"
    lines = table_record(table)
    asked = [line for line in lines if line["type"] == "action" and line["asked"]]
    assert asked and all(line["note"].startswith(f"{MARK} seat {line['seat']} ") for line in asked)
    assert len({line["note"] for line in asked}) == len(asked)  # each its own decision's
    # what was sent: every message to every seat, and to the spectator
    mark = MARK.encode()
    for player in players:
        assert player.sent and not any(mark in m.SerializeToString() for m in player.sent)
    assert spectator.sent and not any(mark in m.SerializeToString() for m in spectator.sent)


def test_the_control_a_note_in_a_message_would_be_caught() -> None:
    """The check above could fail: a message holding a note is seen by it."""
    message = convert.answer(1, Pass(), _note(0, 1))
    assert MARK.encode() in message.SerializeToString()


def test_a_note_over_256_bytes_is_refused_and_the_decision_stays_open() -> None:
    first = {"done": False}

    async def long_noter(player: Player) -> None:
        async for message in player.connect():
            if kind_of(message) != "decision":
                continue
            decision = message.decision
            action = convert.action_message(legal_of(decision).default())
            if not first["done"]:
                first["done"] = True
                too_long = pb.Answer(
                    decision_id=decision.decision_id, action=action, note="é" * 129
                )
                player.send(pb.PlayRequest(answer=too_long))
                refused = await player.port.wait_for("refused")
                assert refused.code == pb.REFUSAL_CODE_MALFORMED
                assert refused.reason == (
                    "the answer's note is 258 bytes of UTF-8; at most 256 are allowed"
                )
            player.send(
                pb.PlayRequest(
                    answer=pb.Answer(decision_id=decision.decision_id, action=action, note="ok")
                )
            )

    table, _, _ = _play([long_noter] + [noting_bot] * 3)
    assert table.result is not None and table.result.outcome.reason == "played to the end"
    assert table.seats[0].stats.strikes == 0
    lines = table_record(table)
    mine = [
        line for line in lines if line["type"] == "action" and line["seat"] == 0 and line["asked"]
    ]
    assert mine[0]["refused"] == 1 and mine[0]["note"] == "ok"
    assert all(line["refused"] == 0 for line in mine[1:])


def test_the_sdk_sends_the_note_decide_returns() -> None:
    """``decide`` returning ``Answer(action, note=…)`` (chaodipi.bot): over gRPC, the note reaches
    the record; an action alone has none."""

    def bot(address: str, ticket: str, seat: int, recording: server_support.Recording) -> object:
        rng = random.Random(seat)

        def decide(view: SeatView) -> object:
            assert view.legal is not None
            action = view.legal.sample(rng)
            return Answer(action, note=f"sdk {seat}") if seat % 2 == 0 else action

        return run_bot(
            decide,
            address=address,
            ticket=ticket,
            name=f"n{seat}",  # type: ignore[arg-type]
            on_message=recording.messages.append,
            exit_on_error=False,
        )

    tables: list[Table] = []
    results, _ = server_support.run_tables(
        [server_support.config(max_hands=1, seed=2)],
        [[bot] * 4],
        during=lambda server, started: tables.extend(started),
    )
    assert results[0].outcome.reason == "played to the end"
    asked = [line for line in table_record(tables[0]) if line["type"] == "action" and line["asked"]]
    assert {line["seat"] for line in asked} == {0, 1, 2, 3}
    for line in asked:
        assert line.get("note") == (f"sdk {line['seat']}" if line["seat"] % 2 == 0 else None)


def test_the_sdk_refuses_a_long_note_where_decide_makes_it() -> None:
    with pytest.raises(ValueError, match="300 bytes of UTF-8; at most 256"):
        Answer(Pass(), note="x" * 300)


LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character ``str.splitlines`` breaks a line at; in a JSON string only ``\\n`` and ``\\r``
are escaped, the others are written as they are."""


def test_every_line_break_in_a_note_or_a_name_keeps_the_record_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record is read by ``\\n`` alone: a note or a bot's name holding any character that
    ``str.splitlines`` takes for a line break (U+2028, U+0085, …) is kept as it is, and the
    record is read back, replayed, shown and made into a page, from the database and from its
    file."""

    async def breaking_bot(player: Player) -> None:
        async for message in player.connect(name=f"b{LINE_BREAKS}{player.seat}"):
            if kind_of(message) == "decision":
                decision = message.decision
                action = legal_of(decision).sample(player.rng)
                note = f"{LINE_BREAKS[decision.decision_id % len(LINE_BREAKS)]}x{LINE_BREAKS}"
                player.send(convert.answer(decision.decision_id, action, note))

    table, _, _ = _play([breaking_bot] * 4)
    lines = table_record(table)
    notes = {line.get("note") for line in lines if line["type"] == "action" and line["asked"]}
    assert {f"{c}x{LINE_BREAKS}" for c in LINE_BREAKS} <= notes
    assert lines[0]["bots"][0]["name"] == f"b{LINE_BREAKS}0"

    database = tmp_path / "results.sqlite"
    db = ResultsDB(database)
    key = GameKey("a", "b", 1, False)
    db.add(GameRow(key, 1.0, 1, 1, 0, 1, 80, 0, 0, 0, 0, 0, 0, 0, 0, None, "played", "", 1.0))
    db.add_record(key, pack(lines))
    db.release_deal(1)
    db.close()
    path = tmp_path / "game.jsonl"
    write_record(path, lines)
    for source in ([str(database), "1"], [str(path)]):
        assert main(["show", *source]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out == "\n".join(transcript(lines)) + "\n"
        page = tmp_path / "game.html"
        assert main(["show", *source, "--html", str(page)]) == 0, capsys.readouterr().err
        assert "\u2028x" in page.read_text(encoding="utf-8")
    assert read_file(path) == lines
    assert replay_record(read_file(path)).actions == table.match.actions
