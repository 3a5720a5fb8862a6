"""The contract: generated code matches proto/, and the adapter reads and writes actions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.protocol import ProtocolError, action_from_message, action_to_message
from arena.v1 import arena_pb2 as pb
from engine.actions import Declare, Fry, Pass, Play, parse_action
from engine.cards import Rank
from engine.hand import Phase
from engine.rules import CardRules

ROOT = Path(__file__).resolve().parent.parent


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    """CI fails when proto/arena/v1/arena.proto changed but `python3 proto/generate.py` was not
    run: regenerate into a scratch folder and compare with what is committed."""
    subprocess.run(
        [sys.executable, str(ROOT / "proto" / "generate.py"), "--out", str(tmp_path)], check=True
    )
    for name in ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py"):
        fresh = (tmp_path / "arena" / "v1" / name).read_text(encoding="utf-8")
        committed = (ROOT / "arena" / "v1" / name).read_text(encoding="utf-8")
        assert fresh == committed, f"arena/v1/{name} is stale: run python3 proto/generate.py"


def test_protocol_package_is_versioned() -> None:
    assert pb.DESCRIPTOR.package == "chaodipi.arena.v1"


@pytest.mark.parametrize(
    ("text", "phase", "level"),
    [
        ("pass", Phase.DECLARE, Rank.SEVEN),
        ("declare ♠7", Phase.DECLARE, Rank.SEVEN),
        ("fry ♥55=NT", Phase.FRY, Rank.SEVEN),
        ("play ♠9988 BJ", Phase.PLAY, Rank.TWO),
        ("bury ♠3 ♠4 ♠5 ♠6 ♠7 ♠8 ♠9 ♠10", Phase.BURY, Rank.TWO),
    ],
)
def test_actions_round_trip(text: str, phase: Phase, level: Rank) -> None:
    action = parse_action(text, level)
    message = action_to_message(action, 7)
    assert message.decision_id == 7
    again = action_from_message(message, phase, level, CardRules())
    assert str(again) == str(action)
    assert isinstance(again, Pass | Declare | Fry | Play) or text.startswith("bury")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.Action(decision_id=1), "none of pass, bid, cards"),
        (pb.Action(decision_id=1, bid="♠8"), "not a bid at level 7"),
        (pb.Action(decision_id=1, cards=pb.Cards(cards=["♠99"])), "one card per entry"),
        (pb.Action(decision_id=1, cards=pb.Cards(cards=["X9"])), "does not start with a suit"),
    ],
)
def test_malformed_actions_say_what_is_wrong(message: pb.Action, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        action_from_message(message, Phase.PLAY, Rank.SEVEN, CardRules())
