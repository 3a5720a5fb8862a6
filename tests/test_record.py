"""The game record (chaodipi.records, docs/game-record.md): every line schema-checked, whole
matches of every preset re-played exactly, and a changed line caught."""

from __future__ import annotations

import copy
import json
import random
from typing import Any, Literal

import pytest

from chaodipi import records
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.errors import ReplayError
from chaodipi.engine.match import Ending, Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import (
    FORCED,
    RECORD_FORMAT,
    Turn,
    dump_lines,
    load_lines,
    record_lines,
    record_schema,
    replay_record,
)
from tests.schema_support import record_validator


def _played(name: str, seed: int, max_hands: int | None = None, limit: int = 100_000) -> Match:
    match = Match(PRESETS[name], seed=seed, max_hands=max_hands)
    rng = random.Random(seed)
    for _ in range(limit):
        if match.over:
            break
        match.apply(match.to_play, match.legal_actions().sample(rng))
    return match


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_whole_match_of_every_preset_replays_exactly(name: str) -> None:
    match = _played(name, seed=5)
    assert match.over
    turns = [
        Turn(ms=i % 7, strikes=0, note="n" if i % 3 else "") for i in range(len(match.actions))
    ]
    lines = list(record_lines(match, turns, bots=("a", "b", "a", "b"), date="2026-12-01"))
    validator = record_validator()
    for line in lines:
        validator.validate(line)
    text = dump_lines(lines)
    again = replay_record(load_lines(text))
    assert again.records == match.records
    assert (again.winner, again.reward, again.progress) == (
        match.winner,
        match.reward,
        match.progress,
    )
    assert lines[0]["result"]["hands"] == len(match.records) > 0
    assert sum(1 for line in lines if line["type"] == "action") == len(match.actions)
    assert sum(1 for line in lines if line["type"] == "hand_over") == len(match.records)


def test_every_event_and_its_facts_are_in_the_record() -> None:
    match = _played("anchao", seed=3, max_hands=2)
    lines = list(record_lines(match))
    events = [line for line in lines if line["type"] not in ("header", "dealt", "action")]
    assert len(events) == len(match.log)  # a hand line is its hand's first event, hand_begun
    assert [line["seq"] for line in events] == list(range(1, len(match.log) + 1))
    assert [line["hand"] for line in events if line["type"] == "hand"] == [0, 1]
    for hand in (0, 1):
        dealt = next(line for line in lines if line["type"] == "dealt" and line["hand"] == hand)
        over = next(line for line in lines if line["type"] == "hand_over" and line["hand"] == hand)
        # the hands as dealt, and the kitty as dealt: 8 cards, the rest of the shoe
        assert dealt["hands"] == over["dealt"]
        assert len(parse_cards(dealt["kitty"])) == 8
        assert sum(len(parse_cards(h)) for h in dealt["hands"]) == 100
        tricks = [line for line in lines if line["type"] == "trick" and line["hand"] == hand]
        assert [t["trick"] for t in tricks] == list(range(1, len(tricks) + 1))
        assert tricks[-1]["seat"] == match.records[hand].result.last_winner
    hidden = [line for line in lines if line["type"] == "declare" and line["bid"] is None]
    assert hidden and all(len(line["to"]) == 3 for line in hidden)  # the others' copy, 暗炒


def test_a_failed_throw_is_recorded_with_what_was_attempted() -> None:
    for seed in range(40):
        lines = list(record_lines(_played("classic", seed=seed, max_hands=1)))
        throws = [line for line in lines if line["type"] == "play" and "attempted" in line]
        if throws:
            throw = throws[0]
            assert len(parse_cards(throw["attempted"])) > len(parse_cards(throw["cards"]))
            assert throw["penalty"] != 0
            return
    pytest.fail("no failed throw in 40 random hands")


def test_turns_are_recorded_per_action() -> None:
    match = _played("hefei", seed=2, max_hands=1)
    turns = [FORCED] * len(match.actions)
    turns[0] = Turn(ms=12, struck=True, strikes=1, refused=2, note="eval +3")
    lines = list(record_lines(match, turns))
    actions = [line for line in lines if line["type"] == "action"]
    assert actions[0] | {"action": "?"} == {
        "type": "action",
        "hand": 0,
        "seat": actions[0]["seat"],
        "action": "?",
        "asked": True,
        "ms": 12,
        "timeout": True,
        "strikes": 1,
        "refused": 2,
        "fallback": False,
        "note": "eval +3",
    }
    assert actions[1]["asked"] is False and "ms" not in actions[1]
    with pytest.raises(ValueError, match="turns for"):
        list(record_lines(match, turns[:-1]))


@pytest.mark.parametrize("name", ["classic", "hefei"])
def test_a_record_made_without_a_table_says_who_was_asked_as_the_table_says(name: str) -> None:
    """A match a table played (random bots over its ports), recorded by the table, and the
    same match recorded in the engine alone (no turns): every action line says ``asked``, the
    same on both; the table's forced moves are there, and the engine-alone lines say nothing
    of a clock."""
    from chaodipi.arena.serving.record import table_record
    from tests.table_support import config, play_table

    tables: list[Any] = []

    async def keep(table: Any, players: Any) -> None:
        tables.append(table)

    result, _ = play_table(config(name, seed=4), during=keep)
    assert result.outcome.reason == "played to the end"
    table = tables[0]
    by_table = [line for line in table_record(table) if line["type"] == "action"]
    alone = [line for line in record_lines(table.match) if line["type"] == "action"]
    assert [line["asked"] for line in alone] == [line["asked"] for line in by_table]
    assert not all(line["asked"] for line in alone) and any(line["asked"] for line in alone)
    assert all(set(line) == {"type", "hand", "seat", "action", "asked"} for line in alone)


def test_an_answer_the_bot_s_kit_chose_is_recorded_as_a_fallback() -> None:
    """The action line of a decision answered by the bot's kit (``Answer.fallback``) says
    ``"fallback": true``, valid by the schema; a forced action has no such field."""
    match = _played("classic", seed=3, max_hands=1)
    turns = [FORCED] * len(match.actions)
    turns[0] = Turn(ms=850, fallback=True)
    lines = list(record_lines(match, turns, bots=("slow", "b", "slow", "b")))
    validator = record_validator()
    for line in lines:
        validator.validate(line)
    actions = [line for line in lines if line["type"] == "action"]
    assert actions[0]["fallback"] is True and "fallback" not in actions[1]


def test_the_header_says_who_played_and_how_it_ended() -> None:
    match = _played("kangqi", seed=4, max_hands=1, limit=30)
    outcome = match.cut_short(Ending.FORFEIT, "seat 1 timed out 3 times", 1)
    assert outcome.winner == 0
    header = next(
        record_lines(
            match,
            bots=("x", "y", "x", "y"),
            outcome=outcome,
            date="d",
            about={"game": "x-y-d0-a", "deal": 0},
        )
    )
    assert header["format"] == RECORD_FORMAT
    assert header["bots"][1] == {"seat": 1, "team": 1, "name": "y"}
    assert header["result"]["ending"] == "forfeit" and header["result"]["forfeited_by"] == 1
    assert (header["game"], header["deal"], header["seed"]) == ("x-y-d0-a", 0, 4)
    record_validator().validate(header)
    # a record of a match cut short re-plays as far as it went
    again = replay_record(list(record_lines(match, outcome=outcome)))
    assert again.actions == match.actions


def _tampered(lines: list[dict[str, Any]], kind: str, key: str, value: Any) -> list[dict[str, Any]]:
    changed = copy.deepcopy(lines)
    line = next(line for line in changed if line["type"] == kind)
    line[key] = value
    return changed


@pytest.mark.parametrize(
    ("kind", "key", "value", "message"),
    [
        ("trick", "points", 999, "the engine makes"),
        ("dealt", "kitty", "", "the engine makes"),
        ("action", "action", "play BJ BJ BJ", "line"),
        ("header", "seed", 12345, "line"),
        ("header", "preset", "nowhere", "no preset"),
    ],
)
def test_a_changed_line_does_not_replay(kind: str, key: str, value: Any, message: str) -> None:
    lines = list(record_lines(_played("mingchao", seed=6, max_hands=1)))
    with pytest.raises(ReplayError, match=message):
        replay_record(_tampered(lines, kind, key, value))


def test_changed_rules_and_a_changed_result_do_not_replay() -> None:
    lines = list(record_lines(_played("classic", seed=8, max_hands=1)))
    options = copy.deepcopy(lines[0]["options"])
    options["score"]["take_over"] = 1
    with pytest.raises(ReplayError, match="other rules"):
        replay_record(_tampered(lines, "header", "options", options))
    result = dict(lines[0]["result"], hands=7)
    with pytest.raises(ReplayError, match="7 hands"):
        replay_record(_tampered(lines, "header", "result", result))


def test_bad_text_gets_a_clear_error() -> None:
    with pytest.raises(ReplayError, match="line 2 is not JSON"):
        load_lines('{"type": "header", "format": "chaodipi-record/1"}\n{oops\n')
    with pytest.raises(ReplayError, match="starts with its header"):
        load_lines('{"type": "hand"}\n')
    with pytest.raises(ReplayError, match="not a chaodipi-record/1 record"):
        load_lines(json.dumps({"type": "header", "format": "chaodipi-replay/1"}))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_record_from_the_log_is_the_record_played_again(name: str) -> None:
    """With each action's log cursor noted (as a table notes it), the record is made from the
    match's own log; it must be the one made by playing the match again."""
    match = Match(PRESETS[name], seed=9, max_hands=3)
    rng = random.Random(9)
    turns = []
    while not match.over:
        cursor = match.log.cursor
        match.apply(match.to_play, match.legal_actions().sample(rng))
        turns.append(Turn(ms=len(turns), cursor=cursor))
    fast = list(record_lines(match, turns))
    again = list(record_lines(match, [Turn(ms=d.ms) for d in turns]))
    assert fast == again and len(fast) > len(match.log)


def _schema_keys(definition: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The required and the optional keys of a schema object."""
    required = set(definition.get("required", []))
    return required, set(definition["properties"]) - required


def _typed_keys(cls: Any) -> tuple[set[str], set[str]]:
    return set(cls.__required_keys__), set(cls.__optional_keys__)


def test_each_kind_of_line_has_a_typed_class_with_the_schemas_keys() -> None:
    """Every line kind of the JSON Schema has its TypedDict in chaodipi.records.lines, and
    every TypedDict its kind in the schema, with the same required and optional keys; so do
    the objects inside lines (the header's bots, result, clock and options, a reveal's bids, a
    hand's score)."""
    schema = record_schema()
    kinds = {}
    for branch in schema["oneOf"]:
        definition = schema["$defs"][branch["$ref"].rsplit("/", 1)[1]]
        kinds[definition["properties"]["type"]["const"]] = definition
    assert set(kinds) == set(records.LINE_KINDS)
    for kind, definition in kinds.items():
        cls = records.LINE_KINDS[kind]
        assert _typed_keys(cls) == _schema_keys(definition), kind
        assert cls.__annotations__["type"] == Literal[kind], kind
    defs = schema["$defs"]
    inner = {
        records.BotName: defs["header"]["properties"]["bots"]["items"],
        records.Result: defs["header"]["properties"]["result"],
        records.ClockLine: defs["header"]["properties"]["clock"],
        records.Options: defs["header"]["properties"]["options"],
        records.BidShown: defs["reveal_event"]["properties"]["bids"]["items"],
        records.Score: defs["hand_over_event"]["properties"]["score"],
    }
    for cls, definition in inner.items():
        assert _typed_keys(cls) == _schema_keys(definition), cls.__name__


def test_each_trick_says_the_defenders_points_so_far() -> None:
    """The trick line states the defenders' points in the hand so far (tricks they won and
    failed throws' penalties), so no reader adds them up itself: at a hand's last trick they
    are the hand's trick points and throw penalties."""
    for seed in range(4):
        match = _played("hefei", seed=seed, max_hands=1)
        lines = list(record_lines(match))
        over = next(line for line in lines if line["type"] == "hand_over")
        assert over["type"] == "hand_over"
        score = over["score"]
        tricks = [line for line in lines if line["type"] == "trick"]
        last = tricks[-1]
        assert last["type"] == "trick"
        assert last["defenders"] == score["trick_points"] + score["throw_penalty"]


def test_a_record_made_before_the_defenders_points_replays() -> None:
    """``defenders`` is optional: a record without it (made before the format had it) is
    valid and re-plays; a wrong value is caught."""
    match = _played("classic", seed=4, max_hands=1)
    lines: list[Any] = [dict(line) for line in record_lines(match)]
    validator = record_validator()
    for line in lines:
        line.pop("defenders", None)
        validator.validate(line)
    assert replay_record(lines).records == match.records
    trick = next(line for line in lines if line["type"] == "trick")
    trick["defenders"] = 999
    with pytest.raises(ReplayError, match="the engine makes"):
        replay_record(lines)
