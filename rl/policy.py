"""A trained Q(s, a) model as numpy arrays: its file (:func:`save_model`, :func:`load_model`)
and its player (:class:`QPolicy`), with numpy alone (no torch: a bot plays a model without the
training dependency).

The model is an MLP over one candidate at a time: its input is the seat's observation
(:class:`~chaodipi.rl.encoding.ViewEncoder`, :data:`OBSERVATION_SIZE` floats) followed by the
candidate's features (:func:`~chaodipi.rl.candidates.features_of`, :data:`FEATURES`), then
``Linear`` layers with a ReLU between two, the last giving one number, Q. Its file is an
``.npz`` archive:

========  ===============================================================================
entry     what
========  ===============================================================================
``W0``…   each layer's weight, shaped ``(out, in)`` as torch's ``nn.Linear.weight``
``b0``…   each layer's bias, ``(out,)``; float16 or float32 (played in float32)
``meta``  a JSON object: ``format`` (:data:`FORMAT`), ``version`` (:data:`VERSION`),
          ``observation_size``, ``features``, ``hidden`` (the hidden layers' widths),
          ``limit`` (candidates scored a decision) and ``preset``; optionally ``teacher``
          (the bot whose choices the model improves on, a name :func:`~chaodipi.rl.resolve_bot`
          takes) and ``threshold`` (how much higher a candidate's Q must be than the
          teacher's choice's to be played instead, ≥ 0; see :class:`QPolicy`); anything
          else the trainer gives (its command, seed, minutes, hands) is kept as it is
========  ===============================================================================

>>> import random, tempfile
>>> from pathlib import Path
>>> from chaodipi.engine import Match, PRESETS, observe
>>> gen = np.random.default_rng(0)
>>> sizes = [OBSERVATION_SIZE + FEATURES, 16, 1]
>>> weights = [(gen.normal(size=(o, i)) / i**0.5, np.zeros(o)) for i, o in zip(sizes, sizes[1:])]
>>> path = Path(tempfile.mkdtemp()) / "tiny.npz"
>>> save_model(path, weights, {"preset": "classic", "limit": 32, "seed": 7})
>>> model = load_model(path)
>>> model.hidden, model.limit, model.meta["seed"]
((16,), 32, 7)
>>> match = Match(PRESETS["classic"], seed=1)
>>> policy = QPolicy(model, random.Random(0))
>>> policy.decide(observe(match, match.to_play)) in match.legal_actions()
True
"""

from __future__ import annotations

import itertools
import json
import math
import random
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from chaodipi.engine import Action, SeatView
from chaodipi.rl.bots import Decide
from chaodipi.rl.candidates import FEATURES, candidates
from chaodipi.rl.encoding import OBSERVATION_SIZE, ViewEncoder

__all__ = [
    "DEFAULT_THRESHOLD", "FORMAT", "MAX_MODEL_BYTES", "VERSION", "PresetError", "QModel",
    "QPolicy", "inflated_bytes", "load_model", "model_bytes", "save_model",
]

FORMAT: Final = "chaodipi-q-mlp"
"""The ``format`` a model file's ``meta`` names."""
VERSION: Final = 1
"""The version of that format this module reads and writes."""
DTYPES: Final = (np.float16, np.float32)
"""The dtypes a model file's arrays may have."""
REQUIRED: Final = ("format", "version", "observation_size", "features", "hidden", "limit",
                   "preset")
"""The keys every model file's ``meta`` has."""
MAX_MODEL_BYTES: Final = 256 << 20
"""The most a model's arrays may hold, inflated (the shipped model's, in float16, 1.3 MB; the
default widths' in float32, 2.5 MB): a file whose directory, or an array's header, says more
is refused before anything is read into memory."""
DEFAULT_THRESHOLD: Final = 0.3
"""A teacher's choice is kept unless a candidate's Q is higher by more than this (in the
model's unit: levels a hand, :func:`~chaodipi.rl.selfplay.hand_target`): the trainer's default
and what a model with a teacher but no ``threshold`` is played with."""

Array = npt.NDArray[np.float32]


class PresetError(ValueError):
    """A model asked to play a game of a preset it was not trained on: ``str()`` is one line
    naming both presets."""

Layer = tuple[npt.NDArray[Any], npt.NDArray[Any]]
"""One ``Linear`` layer: its weight ``(out, in)`` and its bias ``(out,)``."""


def _check_layers(layers: Sequence[Layer], where: str) -> tuple[int, ...]:
    """The hidden widths of ``layers``, or a ValueError naming the first thing wrong."""
    if not layers:
        raise ValueError(f"{where}: no layers")
    width = OBSERVATION_SIZE + FEATURES
    for i, (weight, bias) in enumerate(layers):
        last = i == len(layers) - 1
        for name, array in ((f"W{i}", weight), (f"b{i}", bias)):
            if array.dtype.type not in DTYPES:
                raise ValueError(f"{where}: {name} is {array.dtype}, not float16 or float32")
        if weight.ndim != 2 or weight.shape[1] != width or (last and weight.shape[0] != 1):
            out = "1" if last else "out"
            raise ValueError(
                f"{where}: W{i} is shaped {weight.shape}, not ({out}, {width})"
            )
        if bias.shape != (weight.shape[0],):
            raise ValueError(f"{where}: b{i} is shaped {bias.shape}, not ({weight.shape[0]},)")
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise ValueError(f"{where}: layer {i} holds a NaN or an infinity")
        width = weight.shape[0]
    return tuple(int(weight.shape[0]) for weight, _ in layers[:-1])


def save_model(
    path: Path | str,
    weights: Sequence[Layer],
    meta: Mapping[str, Any],
    dtype: type[np.float16] | type[np.float32] = np.float32,
) -> None:
    """Write a model file: ``weights`` as ``(W, b)`` per layer, first to last, ``W`` shaped
    ``(out, in)`` (torch's ``layer.weight.detach().numpy()``), stored as ``dtype``; ``meta``
    has at least ``preset`` and ``limit`` and is JSON. ``format``, ``version``,
    ``observation_size``, ``features`` and ``hidden`` are written from this encoding and the
    weights. A ValueError names anything wrong, before anything is written."""
    layers = [(np.asarray(w).astype(dtype), np.asarray(b).astype(dtype)) for w, b in weights]
    hidden = _check_layers(layers, "save_model")
    for key in ("preset", "limit"):
        if key not in meta:
            raise ValueError(f"save_model: meta has no {key!r}")
    whole = {**meta, "format": FORMAT, "version": VERSION, "observation_size": OBSERVATION_SIZE,
             "features": FEATURES, "hidden": list(hidden)}
    _check_meta(whole, "save_model")
    try:
        text = json.dumps(whole, ensure_ascii=False, sort_keys=True)
    except TypeError as error:
        raise ValueError(f"save_model: meta is not JSON: {error}") from None
    arrays = {f"{kind}{i}": array for i, layer in enumerate(layers)
              for kind, array in zip("Wb", layer, strict=True)}
    target = Path(path)
    with target.open("wb") as file:
        np.savez_compressed(file, allow_pickle=False, meta=np.array(text), **arrays)


def _check_meta(meta: Mapping[str, Any], where: str) -> None:
    missing = [key for key in REQUIRED if key not in meta]
    if missing:
        raise ValueError(f"{where}: meta has no {missing[0]!r}")
    if meta["format"] != FORMAT:
        raise ValueError(f"{where}: format {meta['format']!r}, not {FORMAT!r}")
    if meta["version"] != VERSION:
        raise ValueError(f"{where}: format version {meta['version']!r}; this reads {VERSION}")
    for key, ours in (("observation_size", OBSERVATION_SIZE), ("features", FEATURES)):
        if meta[key] != ours:
            raise ValueError(
                f"{where}: trained with {key} {meta[key]!r}, this encoding's is {ours}"
                " (train it again with this version)"
            )
    limit = meta["limit"]
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"{where}: limit {limit!r} is not a positive integer")
    hidden = meta["hidden"]
    if not isinstance(hidden, list) or not all(
        isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in hidden
    ):
        raise ValueError(f"{where}: hidden {hidden!r} is not a list of positive widths")
    teacher = meta.get("teacher")
    if teacher is not None and (not isinstance(teacher, str) or not teacher):
        raise ValueError(f"{where}: teacher {teacher!r} is not a bot's name")
    if "threshold" in meta:
        threshold = meta["threshold"]
        if teacher is None:
            raise ValueError(f"{where}: a threshold without a teacher (it is the teacher's)")
        if (not isinstance(threshold, int | float) or isinstance(threshold, bool)
                or not math.isfinite(threshold) or threshold < 0):
            raise ValueError(f"{where}: threshold {threshold!r} is not a number ≥ 0")


@dataclass(frozen=True)
class QModel:
    """A model read by :func:`load_model`: ``q`` scores candidates, in float32."""

    layers: tuple[tuple[Array, Array], ...]
    """Each layer's weight transposed, ``(in, out)``, and bias, float32."""
    meta: dict[str, Any]
    """The file's ``meta`` (training command, seed, minutes... as the trainer wrote them)."""

    @classmethod
    def of_layers(cls, layers: Sequence[Layer], meta: Mapping[str, Any]) -> QModel:
        """The model of ``(W, b)`` per layer as a file holds them (``W`` shaped ``(out, in)``,
        torch's ``nn.Linear.weight``), played in float32."""
        played = tuple(
            (np.ascontiguousarray(np.asarray(w, np.float32).T), np.asarray(b, np.float32))
            for w, b in layers
        )
        return cls(played, dict(meta))

    @property
    def hidden(self) -> tuple[int, ...]:
        """The hidden layers' widths."""
        return tuple(int(weight.shape[1]) for weight, _ in self.layers[:-1])

    @property
    def preset(self) -> str:
        """The preset it was trained on: the only one it plays (:meth:`check_preset`)."""
        return str(self.meta["preset"])

    def check_preset(self, preset: str) -> None:
        """Raise :class:`PresetError` unless ``preset`` is the one it was trained on."""
        if preset != self.preset:
            raise PresetError(
                f"the model was trained on the {self.preset} preset and plays no other: this "
                f"game is {preset} (train one on it: python3 -m chaodipi.rl.train --preset "
                f"{preset})"
            )

    @property
    def limit(self) -> int:
        """Candidates it was trained to score a decision (:func:`candidates`' ``limit``)."""
        return int(self.meta["limit"])

    @property
    def teacher(self) -> str | None:
        """The bot whose choices it improves on, by name (None: it plays greedily alone)."""
        teacher = self.meta.get("teacher")
        return None if teacher is None else str(teacher)

    @property
    def threshold(self) -> float:
        """How much higher than the teacher's choice a candidate's Q must be to be played."""
        return float(self.meta.get("threshold", DEFAULT_THRESHOLD))

    def q(self, states: npt.NDArray[Any], features: npt.NDArray[Any]) -> Array:
        """Q of each row: ``states`` ``(n, OBSERVATION_SIZE)``, or one observation
        ``(OBSERVATION_SIZE,)`` shared by every row, and ``features`` ``(n, FEATURES)``."""
        first, bias = self.layers[0]
        rows = features.astype(np.float32) @ first[OBSERVATION_SIZE:]
        x = rows + states.astype(np.float32) @ first[:OBSERVATION_SIZE] + bias
        for weight, bias in self.layers[1:]:
            x = np.maximum(x, 0, out=x) @ weight + bias
        return x[:, 0]


def inflated_bytes(archive: zipfile.ZipFile) -> int:
    """What a zip archive's entries inflate to, as its directory says: what reading them may
    take (Python's reader, and torch's, stop there)."""
    return sum(info.file_size for info in archive.infolist())


def model_bytes(hidden: Sequence[int]) -> int:
    """What a model of these hidden widths holds in float32, its weights and biases."""
    widths = [OBSERVATION_SIZE + FEATURES, *hidden, 1]
    return 4 * sum((width + 1) * out for width, out in itertools.pairwise(widths))


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB"


def _check_size(archive: zipfile.ZipFile, where: str) -> None:
    """Refuse an archive whose entries, or whose arrays by their headers, hold more than
    :data:`MAX_MODEL_BYTES`, before any is read."""
    size = inflated_bytes(archive)
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{where}: its entries inflate to {_mib(size)}, larger than a model "
                         f"file may be ({_mib(MAX_MODEL_BYTES)})")
    declared = 0
    for info in archive.infolist():
        try:
            with archive.open(info) as entry:
                version = np.lib.format.read_magic(entry)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(entry)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(entry)
                else:
                    raise ValueError(f"npy format version {version}")
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise ValueError(f"{where}: entry {info.filename!r} is not an array: {error}") from None
        declared += math.prod(shape) * dtype.itemsize
        if declared > MAX_MODEL_BYTES:
            raise ValueError(f"{where}: its arrays say they hold {_mib(declared)}, larger than "
                             f"a model file may be ({_mib(MAX_MODEL_BYTES)})")


def load_model(path: Path | str) -> QModel:
    """Read and check a model file; a ValueError names what is wrong with it (one larger than
    :data:`MAX_MODEL_BYTES` too, before it is read)."""
    where = str(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ValueError(f"{where}: not a model file (an .npz archive): {error}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{where}: not a model file (an .npz archive): one array")
    with archive:
        assert archive.zip is not None  # open until the block ends
        _check_size(archive.zip, where)
        try:
            entries = {name: archive[name] for name in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise ValueError(f"{where}: an entry cannot be read: {error}") from None
    if "meta" not in entries:
        raise ValueError(f"{where}: no 'meta' entry (not a model file of this format)")
    try:
        meta = json.loads(str(entries.pop("meta")))
    except ValueError as error:
        raise ValueError(f"{where}: meta is not JSON: {error}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: meta is not a JSON object")
    _check_meta(meta, where)
    count = len(meta["hidden"]) + 1
    names = [f"{kind}{i}" for i in range(count) for kind in "Wb"]
    missing = [name for name in names if name not in entries]
    if missing:
        raise ValueError(f"{where}: no {missing[0]!r} entry (hidden {meta['hidden']})")
    unknown = sorted(set(entries) - set(names))
    if unknown:
        raise ValueError(f"{where}: an entry {unknown[0]!r} this format does not have")
    layers = [(entries[f"W{i}"], entries[f"b{i}"]) for i in range(count)]
    hidden = _check_layers(layers, where)
    if list(hidden) != meta["hidden"]:
        raise ValueError(f"{where}: the layers' widths {list(hidden)} are not hidden "
                         f"{meta['hidden']}")
    return QModel.of_layers(layers, meta)


class QPolicy:
    """Plays a :class:`QModel` from seat views, among ``candidates(view.legal, rng, limit)``
    (the model's ``limit`` unless given); a decision with one candidate plays it unscored.

    Alone, it plays the candidate of highest Q. With a ``teacher`` (a ``decide(view)`` bot),
    it plays the teacher's choice unless a candidate's Q is higher than that choice's by more
    than ``threshold``: one step of policy improvement over the teacher, taken only where the
    model is sure (a model trained on the teacher's hands estimates the value of the teacher's
    play; its errors are small beside a large difference and can be as large as a small one).

    It plays the model's preset only: a view of another raises :class:`PresetError`. It keeps
    an encoder per seat, so use one per game (``run_bot(new_game=...)``); the model may be
    shared. ``deviations`` counts the decisions where it did not play the teacher's choice."""

    def __init__(
        self,
        model: QModel,
        rng: random.Random,
        limit: int | None = None,
        *,
        teacher: Decide | None = None,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        if not (math.isfinite(threshold) and threshold >= 0):
            raise ValueError(f"threshold {threshold!r}: give a number ≥ 0")
        self.model, self.rng = model, rng
        self.limit = model.limit if limit is None else limit
        self.teacher, self.threshold = teacher, threshold
        self.encoders = [ViewEncoder(seat) for seat in range(4)]
        self.deviations = 0

    def decide(self, view: SeatView) -> Action:
        """The action to play from ``view`` (a view with its legal actions)."""
        if view.legal is None:
            raise ValueError(f"seat {view.seat} has nothing to decide: its view has no legal set")
        self.model.check_preset(view.preset.name)
        choice = None if self.teacher is None else self.teacher(view)
        actions, features = candidates(view.legal, self.rng, self.limit, include=choice)
        if len(actions) == 1:
            return actions[0]
        q = self.model.q(self.encoders[view.seat].encode(view), features)
        best = int(np.argmax(q))
        if choice is None:
            return actions[best]
        kept = actions.index(choice)
        if best == kept or q[best] - q[kept] <= self.threshold:
            return choice
        self.deviations += 1
        return actions[best]
