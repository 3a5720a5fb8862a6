"""The Deep Monte-Carlo trainer (chaodipi.rl.dmc): a tiny run with one actor writes a
checkpoint that loads and plays a whole hand of legal moves from seat views."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.rl_support import need_rl

need_rl()
torch = pytest.importorskip("torch")

from chaodipi.engine.match import HandRecord, Match  # noqa: E402
from chaodipi.engine.presets import PRESETS  # noqa: E402
from chaodipi.engine.view import observe  # noqa: E402
from chaodipi.rl import dmc  # noqa: E402


def test_a_tiny_run_writes_a_checkpoint_that_loads_and_plays_legal_moves(
    tmp_path: Path,
) -> None:
    code = dmc.main(["--minutes", "0.1", "--out", str(tmp_path), "--actors", "1",
                     "--batch", "64", "--eval-deals", "1", "--report-seconds", "1"])
    assert code == 0
    entries = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert "eval" in entries[-2] and set(entries[-2]["eval"]) == {
        "score_vs_random", "margin_vs_random", "score_vs_heuristic", "margin_vs_heuristic"}
    net, saved = dmc.load(tmp_path / "model.pt")
    assert saved["preset"] == "classic" and saved["progress"]["hands"] == entries[-1]["done"]["hands"]

    policy = dmc.DmcPolicy(net, random.Random(0))
    match = Match(PRESETS["classic"], seed=7, max_hands=1)
    moves = 0
    while not match.over:
        seat = match.to_play
        view = observe(match, seat)
        action = policy.decide(view)
        assert view.legal is not None and action in view.legal
        match.apply(seat, action)
        moves += 1
    assert moves > 100 and len(match.records) == 1


def test_a_hand_target_is_zero_sum_between_the_teams() -> None:
    policy = dmc.DmcPolicy(dmc.QNet((8,)), random.Random(0), epsilon=1.0)
    states, rows, targets = dmc.play_hand(policy, "classic", 3)
    assert len(states) == len(rows) == len(targets) > 0
    record = _one_hand()
    assert dmc.hand_target(record, 0) == -dmc.hand_target(record, 1)
    assert dmc.hand_target(record, 0) == dmc.hand_target(record, 2)


def _one_hand() -> HandRecord:
    rng = random.Random(5)
    match = Match(PRESETS["classic"], seed=5, max_hands=1)
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        match.apply(match.to_play, view.legal.sample(rng))
    return match.records[-1]
