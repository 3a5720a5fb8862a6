"""A trained model's file and its player (chaodipi.rl.policy): what save_model writes
load_model reads back and scores as torch's ``nn.Linear`` layers would; a broken or mismatched
file is refused with one line naming what is wrong; QPolicy plays the candidate of highest Q,
legally, in every preset, and with a teacher keeps the teacher's choice unless a candidate's Q
is higher by more than the threshold."""

from __future__ import annotations

import io
import itertools
import json
import random
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.rl_support import need_rl

need_rl()

import numpy as np  # noqa: E402

from chaodipi.engine import PRESETS, Match, observe  # noqa: E402
from chaodipi.rl import (  # noqa: E402
    FEATURES,
    OBSERVATION_SIZE,
    QPolicy,
    ViewEncoder,
    candidates,
    load_model,
    save_model,
)

INPUT = OBSERVATION_SIZE + FEATURES
META = {"preset": "classic", "limit": 16, "seed": 3, "command": "python3 -m chaodipi.rl.train"}


def random_weights(hidden: tuple[int, ...], seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    gen = np.random.default_rng(seed)
    sizes = [INPUT, *hidden, 1]
    return [(gen.normal(size=(o, i)) / i**0.5, gen.normal(size=o) * 0.1)
            for i, o in itertools.pairwise(sizes)]


def forward(weights: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The MLP in float64, the plain way: Linear, ReLU, ..., Linear."""
    for i, (w, b) in enumerate(weights):
        x = x @ w.T.astype(np.float64) + b
        if i < len(weights) - 1:
            x = np.maximum(x, 0)
    return x[:, 0]


def inputs(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(seed)
    return gen.random((n, OBSERVATION_SIZE)).astype(np.float32), gen.integers(
        0, 3, (n, FEATURES)).astype(np.int8)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_saved_model_loads_back_and_scores_as_the_mlp(tmp_path: Path, dtype: Any) -> None:
    weights = random_weights((32, 8))
    save_model(tmp_path / "m.npz", weights, META, dtype=dtype)
    model = load_model(tmp_path / "m.npz")
    assert model.hidden == (32, 8) and model.limit == 16
    assert model.meta["seed"] == 3 and model.meta["command"] == META["command"]
    assert model.meta["observation_size"] == OBSERVATION_SIZE and model.meta["hidden"] == [32, 8]
    stored = [(w.astype(dtype), b.astype(dtype)) for w, b in weights]
    states, rows = inputs(20)
    expected = forward(stored, np.concatenate([states, rows], axis=1).astype(np.float64))
    assert model.q(states, rows) == pytest.approx(expected, rel=1e-4, abs=1e-4)
    # one observation shared by every candidate gives each row's Q as the full rows do
    shared = np.repeat(states[:1], 20, axis=0)
    assert model.q(states[0], rows) == pytest.approx(model.q(shared, rows), rel=1e-5, abs=1e-5)


def test_the_weights_are_torchs_linear_weights(tmp_path: Path) -> None:
    """``W`` is ``nn.Linear.weight`` (out, in): the trainer saves its layers as they are."""
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Linear(INPUT, 24), torch.nn.ReLU(),
                              torch.nn.Linear(24, 1))
    layers = [net[0], net[2]]
    weights = [(layer.weight.detach().numpy(), layer.bias.detach().numpy()) for layer in layers]
    save_model(tmp_path / "t.npz", weights, META)
    states, rows = inputs(10)
    with torch.no_grad():
        ours = net(torch.from_numpy(np.concatenate([states, rows.astype(np.float32)], 1)))
    assert load_model(tmp_path / "t.npz").q(states, rows) == pytest.approx(
        ours.squeeze(1).numpy(), rel=1e-5, abs=1e-5)


def write(path: Path, arrays: dict[str, Any], meta: dict[str, Any] | str | None) -> Path:
    if meta is not None:
        arrays = {**arrays, "meta": np.array(meta if isinstance(meta, str) else json.dumps(meta))}
    np.savez(path, **arrays)
    return path


def good() -> tuple[dict[str, Any], dict[str, Any]]:
    """A valid model file's arrays and meta, one hidden layer of 4."""
    arrays: dict[str, Any] = {"W0": np.zeros((4, INPUT), np.float32), "b0": np.zeros(4, np.float32),
                              "W1": np.zeros((1, 4), np.float32), "b1": np.zeros(1, np.float32)}
    meta = {"format": "chaodipi-q-mlp", "version": 1, "observation_size": OBSERVATION_SIZE,
            "features": FEATURES, "hidden": [4], "limit": 8, "preset": "classic"}
    return arrays, meta


def broken(change: str) -> tuple[dict[str, Any], dict[str, Any] | str | None]:
    arrays, meta = good()
    match change:
        case "observation size":
            return arrays, {**meta, "observation_size": OBSERVATION_SIZE - 1}
        case "features":
            return arrays, {**meta, "features": FEATURES + 1}
        case "format":
            return arrays, {**meta, "format": "douzero"}
        case "version":
            return arrays, {**meta, "version": 2}
        case "no limit":
            return arrays, {k: v for k, v in meta.items() if k != "limit"}
        case "no meta":
            return arrays, None
        case "meta not JSON":
            return arrays, "{hidden: 4"
        case "no W1":
            return {k: v for k, v in arrays.items() if k != "W1"}, meta
        case "W0 shape":
            return {**arrays, "W0": np.zeros((4, INPUT - 1), np.float32)}, meta
        case "b1 shape":
            return {**arrays, "b1": np.zeros(2, np.float32)}, meta
        case "hidden":
            return arrays, {**meta, "hidden": [5]}
        case "dtype":
            return {**arrays, "W1": np.zeros((1, 4), np.float64)}, meta
        case "nan":
            return {**arrays, "b0": np.full(4, np.nan, np.float32)}, meta
        case "extra":
            return {**arrays, "W9": np.zeros(1, np.float32)}, meta
        case "threshold alone":
            return arrays, {**meta, "threshold": 0.3}
        case "threshold negative":
            return arrays, {**meta, "teacher": "random", "threshold": -0.1}
        case "teacher not a name":
            return arrays, {**meta, "teacher": 3}
    raise AssertionError(change)


REFUSED = {
    "observation size": f"trained with observation_size {OBSERVATION_SIZE - 1}, this encoding's is {OBSERVATION_SIZE}",
    "features": f"trained with features {FEATURES + 1}, this encoding's is {FEATURES}",
    "format": "format 'douzero', not 'chaodipi-q-mlp'",
    "version": "format version 2; this reads 1",
    "no limit": "meta has no 'limit'",
    "no meta": "no 'meta' entry",
    "meta not JSON": "meta is not JSON",
    "no W1": "no 'W1' entry",
    "W0 shape": f"W0 is shaped (4, {INPUT - 1}), not (out, {INPUT})",
    "b1 shape": "b1 is shaped (2,), not (1,)",
    "hidden": "the layers' widths [4] are not hidden [5]",
    "dtype": "W1 is float64, not float16 or float32",
    "nan": "layer 0 holds a NaN or an infinity",
    "extra": "an entry 'W9' this format does not have",
    "threshold alone": "a threshold without a teacher (it is the teacher's)",
    "threshold negative": "threshold -0.1 is not a number ≥ 0",
    "teacher not a name": "teacher 3 is not a bot's name",
}


def test_a_good_file_loads(tmp_path: Path) -> None:
    arrays, meta = good()
    assert load_model(write(tmp_path / "m.npz", arrays, meta)).hidden == (4,)


@pytest.mark.parametrize("change", sorted(REFUSED))
def test_a_broken_model_file_is_refused_in_one_line(tmp_path: Path, change: str) -> None:
    path = write(tmp_path / "m.npz", *broken(change))
    with pytest.raises(ValueError) as raised:
        load_model(path)
    said = str(raised.value)
    assert said.startswith(f"{path}: ") and "\n" not in said, said
    assert REFUSED[change] in said, said


def test_what_is_not_a_model_file_is_refused_in_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not an archive\n", encoding="utf-8")
    one = tmp_path / "one.npy"
    np.save(one, np.zeros(3))
    for path, said in ((text, "not a model file (an .npz archive)"),
                       (one, "not a model file (an .npz archive): one array"),
                       (tmp_path / "absent.npz", "no such file")):
        with pytest.raises(ValueError) as raised:
            load_model(path)
        assert str(raised.value).startswith(f"{path}: {said}"), raised.value
        assert "\n" not in str(raised.value)


def _zip_of(path: Path, entries: dict[str, bytes]) -> Path:
    """An .npz archive of these raw ``.npy`` entries, written as they are (no zip64)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(f"{name}.npy", data)
    return path


def _npy(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def _entries() -> dict[str, bytes]:
    arrays, meta = good()
    return {name: _npy(a) for name, a in {**arrays, "meta": np.array(json.dumps(meta))}.items()}


def _claiming(shape: tuple[int, ...]) -> bytes:
    """A float32 ``.npy`` whose header claims ``shape``, and holds 16 bytes."""
    out = io.BytesIO()
    header = {"descr": "<f4", "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue() + bytes(16)


def _inflating(path: Path, name: str, size: int) -> Path:
    """An archive whose directory says that entry ``name`` inflates to ``size`` bytes."""
    _zip_of(path, _entries())
    data = bytearray(path.read_bytes())
    at = data.index(b"PK\x01\x02")
    while not data[at + 46:].startswith(f"{name}.npy".encode()):
        at = data.index(b"PK\x01\x02", at + 4)
    struct.pack_into("<I", data, at + 24, size)  # the central directory's uncompressed size
    path.write_bytes(bytes(data))
    assert zipfile.ZipFile(path).getinfo(f"{name}.npy").file_size == size
    return path


def test_a_model_file_larger_than_a_model_may_be_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    """An array whose header claims 4 TiB (numpy would allocate it first: a MemoryError),
    and an entry the archive's directory says inflates to 3 GiB: each one line naming the
    file, before any array is read."""
    claimed = _zip_of(tmp_path / "claims.npz", {**_entries(), "W0": _claiming((1 << 40,))})
    inflating = _inflating(tmp_path / "inflates.npz", "W0", 3 << 30)
    for path, said in ((claimed, "its arrays say they hold 4,194,304 MiB"),
                       (inflating, "its entries inflate to 3,072 MiB")):
        with pytest.raises(ValueError) as raised:
            load_model(path)
        line = str(raised.value)
        assert line.startswith(f"{path}: {said}, larger than a model file may be (256 MiB)")
        assert "\n" not in line, line
    assert load_model(_zip_of(tmp_path / "sound.npz", _entries())).hidden == (4,)


def test_save_model_refuses_what_load_model_would(tmp_path: Path) -> None:
    weights = random_weights((8,))
    with pytest.raises(ValueError, match="save_model: W1 is shaped \\(2, 8\\), not \\(1, 8\\)"):
        save_model(tmp_path / "m.npz", [weights[0], (np.zeros((2, 8)), np.zeros(2))], META)
    with pytest.raises(ValueError, match="save_model: meta has no 'limit'"):
        save_model(tmp_path / "m.npz", weights, {"preset": "classic"})
    with pytest.raises(ValueError, match="save_model: meta is not JSON"):
        save_model(tmp_path / "m.npz", weights, {**META, "when": object()})
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_policy_plays_the_candidate_of_highest_q_legally(tmp_path: Path, preset: str) -> None:
    save_model(tmp_path / "m.npz", random_weights((16,), seed=5), META)
    model = load_model(tmp_path / "m.npz")
    policy = QPolicy(model, random.Random(9))
    drawn = random.Random(9)  # the same draws of candidates, in step with the policy's
    encoders = [ViewEncoder(seat) for seat in range(4)]
    match = Match(PRESETS[preset], seed=4, max_hands=1)
    scored = 0
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        action = policy.decide(view)
        actions, features = candidates(view.legal, drawn, model.limit)
        state = encoders[view.seat].encode(view)
        if len(actions) > 1:
            assert action == actions[int(np.argmax(model.q(state, features)))]
            scored += 1
        else:
            assert action == actions[0]
        assert action in view.legal
        match.apply(view.seat, action)
    assert scored > 10


def hand_with_teacher(model: Any, policy: Any, teacher: Any) -> list[tuple[Any, Any, float]]:
    """One hand the teacher plays at every seat (so the positions are the same whatever the
    policy does); at each decision, the policy's action, the action the rule gives (the
    candidate of highest Q if its Q is higher than the teacher's choice's by more than the
    threshold, else the teacher's choice), and that difference of Q (0 with one candidate).
    The candidates are drawn as the policy draws them (the same seed, in step)."""
    drawn = random.Random(9)
    encoders = [ViewEncoder(seat) for seat in range(4)]
    match = Match(PRESETS["classic"], seed=4, max_hands=1)
    seen = []
    while not match.over:
        view = observe(match, match.to_play)
        assert view.legal is not None
        action = policy.decide(view)
        choice = teacher(view)
        actions, features = candidates(view.legal, drawn, model.limit, include=choice)
        gap, rule = 0.0, choice
        if len(actions) > 1:
            q = model.q(encoders[view.seat].encode(view), features)
            best = int(np.argmax(q))
            gap = float(q[best] - q[actions.index(choice)])
            rule = actions[best] if gap > policy.threshold else choice
        seen.append((action, rule, gap))
        match.apply(view.seat, choice)
    return seen


def test_with_a_teacher_the_policy_leaves_its_choice_only_past_the_threshold(
    tmp_path: Path,
) -> None:
    """The policy plays the candidate of highest Q exactly where its Q is higher than the
    teacher's choice's by more than the threshold; elsewhere the teacher's choice."""
    from chaodipi.search import heuristic_move as heuristic

    save_model(tmp_path / "m.npz", random_weights((16,), seed=5), META)
    model = load_model(tmp_path / "m.npz")
    probe = QPolicy(model, random.Random(9), teacher=heuristic, threshold=1e9)
    gaps = sorted(gap for _, _, gap in hand_with_teacher(model, probe, heuristic) if gap > 0)
    assert len(gaps) >= 4, gaps
    threshold = gaps[len(gaps) // 2]  # the larger half of the differences pass it
    policy = QPolicy(model, random.Random(9), teacher=heuristic, threshold=threshold)
    seen = hand_with_teacher(model, policy, heuristic)
    assert [action for action, _, _ in seen] == [rule for _, rule, _ in seen]
    assert policy.deviations == sum(gap > threshold for _, _, gap in seen)
    assert 0 < policy.deviations < len(gaps)


def test_a_threshold_past_every_gap_plays_the_teacher_and_a_negative_one_is_refused(
    tmp_path: Path,
) -> None:
    from chaodipi.search import heuristic_move as heuristic

    save_model(tmp_path / "m.npz", random_weights((16,), seed=5), META)
    model = load_model(tmp_path / "m.npz")
    policy = QPolicy(model, random.Random(9), teacher=heuristic, threshold=1e9)
    match = Match(PRESETS["classic"], seed=4, max_hands=1)
    while not match.over:
        view = observe(match, match.to_play)
        action = policy.decide(view)
        assert action == heuristic(view)
        match.apply(view.seat, action)
    assert policy.deviations == 0
    with pytest.raises(ValueError, match="threshold -1: give a number ≥ 0"):
        QPolicy(model, random.Random(9), teacher=heuristic, threshold=-1)


def test_a_models_teacher_and_threshold_are_read_from_its_meta(tmp_path: Path) -> None:
    save_model(tmp_path / "plain.npz", random_weights((4,)), META)
    plain = load_model(tmp_path / "plain.npz")
    assert (plain.teacher, plain.threshold) == (None, 0.3)
    meta = {**META, "teacher": "chaodipi.sample_bots.heuristic_bot", "threshold": 0.5}
    save_model(tmp_path / "taught.npz", random_weights((4,)), meta)
    taught = load_model(tmp_path / "taught.npz")
    assert (taught.teacher, taught.threshold) == ("chaodipi.sample_bots.heuristic_bot", 0.5)
