"""Every game of ``arena run`` is recorded (chaodipi.records, docs/game-record.md): real bot
processes, a real table server, the records read back from the results database, checked
against the schema and re-played through the engine, in every preset."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament.config import load_config, schedule
from chaodipi.arena.tournament.driver import run_tournament
from chaodipi.engine.presets import PRESETS
from chaodipi.records import replay_record, unpack
from tests.schema_support import record_validator
from tests.test_tournament import BOT, write_config

HEURISTIC = BOT.replace("random_bot", "heuristic_bot")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_game_of_a_run_is_recorded_and_replays_exactly(tmp_path: Path, preset: str) -> None:
    config = load_config(
        write_config(
            tmp_path / "t.toml",
            preset=preset,
            hands=2,
            deals=1,
            concurrency=2,
            decision_ms=5000,
            bots={"rand": BOT, "heur": HEURISTIC},
        )
    )
    outcome = anyio.run(lambda: run_tournament(config), backend="asyncio")
    assert outcome.played == 2 and not outcome.problems
    validator = record_validator()
    db = ResultsDB(config.database, read_only=True)
    try:
        rows = {row.key: row for row in db.rows()}
        assert db.recorded() == set(schedule(config)) == set(rows)
        for key, row in rows.items():
            blob = db.record(key)
            assert blob is not None
            lines = unpack(blob)
            for line in lines:
                validator.validate(line)
            header = lines[0]
            seats = [b["name"] for b in header["bots"]]
            first = key.bot_b if key.swapped else key.bot_a
            assert seats[0] == seats[2] == first and seats[1] == seats[3] != first
            assert (header["preset"], header["deal"]) == (preset, key.deal)
            assert header["clock"]["decision_ms"] == 5000
            match = replay_record(lines)
            assert len(match.records) == row.hands == header["result"]["hands"]
            asked = [x for x in lines if x["type"] == "action" and x["asked"]]
            assert asked and all(x["ms"] >= 0 and x["strikes"] == 0 for x in asked)
    finally:
        db.close()
