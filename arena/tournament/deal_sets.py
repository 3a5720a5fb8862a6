"""Deal sets as files: deals anyone may read and play again, format ``chaodipi-deals/1``.

A tournament normally deals from a secret :class:`chaodipi.arena.deals.DealKey`.
A deal set publishes its deals instead, for research: the preset, each deal's number and seed
(and the key the seeds come from, when there is one), and, so that people and other engines
can read them without ours, the cards of each deal's first hands in the game record's notation
(``docs/deal-sets.md`` says every field; ``deal-set.schema.json`` beside this module checks
one). Loading a set deals every listed hand with the engine and refuses a file whose cards
differ, naming the deal, so a set never plays other cards than it shows.

The shipped standard sets, 1,000 deals of each preset, are ``standard_deals/PRESET.json.gz``
beside this module (:func:`standard_set_path`); ``deals_file = "standard"`` picks the preset's.

>>> key = DealKey.from_hex("01" * 32)
>>> document = export_document("classic", key, first=1, count=2, hands=1)
>>> deal_set = parse_deal_set(document, "two.json", "0" * 64)
>>> deal_set.seed(2) == key.seed(2), deal_set.numbers()
(True, (1, 2))
>>> [len(parse_cards(cards)) for cards in deal_set.deals[0].hands[0].positions]
[25, 25, 25, 25]
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from chaodipi.arena.deals import KEY_BYTES, DealKey
from chaodipi.arena.errors import DealSetError
from chaodipi.arena.files import write_private
from chaodipi.engine import DECK, KITTY_SIZE, PRESETS, Auction, parse_cards
from chaodipi.records import cards_text

__all__ = [
    "DEALS_FORMAT",
    "MAX_DEAL_SET_BYTES",
    "MAX_NUMBER_DIGITS",
    "STANDARD",
    "Deal",
    "DealCards",
    "DealSet",
    "DealSetError",
    "check_covers",
    "deal_set_schema",
    "dealt_cards",
    "export_document",
    "load_deal_set",
    "parse_deal_set",
    "resolve_deal_set",
    "standard_set_path",
    "write_document",
]

DEALS_FORMAT = "chaodipi-deals/1"
"""The format's name and version: a reader refuses another."""

STANDARD = "standard"
"""The name that picks the preset's shipped set (``deals_file = "standard"``)."""

MAX_DEAL_SET_BYTES = 64 << 20
"""The most a set's file may hold, and its JSON once decompressed (a standard set of 1,000
deals is a third of a MiB): a larger one is refused unread, never decompressed whole."""

MAX_NUMBER_DIGITS = 40
"""The most digits a number of a set may have (deal numbers and counts are far shorter)."""

_PER_SEAT = (len(DECK) - KITTY_SIZE) // 4


@dataclass(frozen=True, slots=True)
class DealCards:
    """One hand's deal: the four hands in dealing order from the dealer (position 0 is the
    dealer's seat, seat 0 in a match's first hand), and the kitty, in the record's notation."""

    positions: tuple[str, str, str, str]
    kitty: str

    def as_dict(self) -> dict[str, Any]:
        return {"hands": list(self.positions), "kitty": self.kitty}


@dataclass(frozen=True, slots=True)
class Deal:
    number: int
    """The deal's number: a tournament's deal ``n`` plays the set's deal numbered ``n``."""
    seed: str
    """:class:`chaodipi.engine.match.Match`'s seed: it deals every hand of the match."""
    hands: tuple[DealCards, ...]
    """The cards of the match's first ``len(hands)`` hands."""


@dataclass(frozen=True, slots=True)
class DealSet:
    """A loaded, checked deal set; ``seed(n)`` deals it as a :class:`DealKey` would."""

    preset: str
    key: str | None
    deals: tuple[Deal, ...]
    name: str
    """The file's name (without its folder): what a run's stored config says was played."""
    sha256: str
    """The file's SHA-256, as stored: the identity of the set."""

    def numbers(self) -> tuple[int, ...]:
        return tuple(deal.number for deal in self.deals)

    def seed(self, deal: int) -> str:
        """Deal number ``deal``'s seed (a :class:`DealSource`'s)."""
        for candidate in self.deals:  # sets are small and seeds are asked once per game
            if candidate.number == deal:
                return candidate.seed
        raise KeyError(f"{self.name} has no deal {deal}")

    def identity(self) -> dict[str, str]:
        """What a run's stored config keeps of the set."""
        return {"name": self.name, "sha256": self.sha256, "preset": self.preset}


def dealt_cards(seed: str, hand: int) -> DealCards:
    """The cards the engine deals in hand ``hand`` (from 0) of a match with ``seed``, by
    position from the dealer, as a first shuffle deals them (a redeal, when nobody declares in
    the first hand, shuffles again: ``docs/deal-sets.md``).

    The engine shuffles hand ``k`` of a match from ``chaodipi/SEED/k``; dealing the whole shoe
    in the 扛旗 manner, card by card from position 0, gives each position's 25 cards first and
    the kitty last."""
    shoe = Auction(
        PRESETS["classic"],  # the shuffle does not depend on the rules
        f"chaodipi/{seed}/{hand}",
        None,
        0,
        record=lambda payload, audience: None,
        kangqi_hand=True,
    )
    order = [card for k in range(len(DECK)) for card in [shoe.dealt[k % 4][k // 4]]]
    positions = tuple(cards_text(order[p : 4 * _PER_SEAT : 4]) for p in range(4))
    return DealCards(positions, cards_text(order[4 * _PER_SEAT :]))  # type: ignore[arg-type]


def export_document(
    preset: str, key: DealKey, *, first: int, count: int, hands: int
) -> dict[str, Any]:
    """A deal set of ``count`` deals from ``first`` on, dealt by ``key`` (which the document
    publishes), listing the cards of each match's first ``hands`` hands."""
    if preset not in PRESETS:
        raise DealSetError(f"no preset {preset!r}; choose one of {', '.join(PRESETS)}")
    deals = []
    for number in range(first, first + count):
        seed = key.seed(number)
        listed = [dealt_cards(seed, hand).as_dict() for hand in range(hands)]
        deals.append({"number": number, "seed": seed, "deal": listed})
    return {
        "format": DEALS_FORMAT,
        "preset": preset,
        "key": key.hex(),
        "hands": hands,
        "notation": "chaodipi-record/1",
        "deals": deals,
    }


def write_document(document: Mapping[str, Any], path: Path) -> None:
    """Write a set as JSON, gzip-compressed when the name ends in ``.gz``, to a new file
    (:func:`chaodipi.arena.files.write_private`: ``FileExistsError`` if anything is there)."""
    data = (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)  # the same set gives the same bytes
    write_private(path, data)


def _field(data: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DealSetError(f"{where}: {name} must be a {kind.__name__}, not {value!r}")
    return value


def _parse_deal(item: Any, index: int, listed: int, key: DealKey | None, name: str) -> Deal:
    where = f"{name}: deal {index + 1} of the file"
    if not isinstance(item, dict):
        raise DealSetError(f"{where}: must be an object with number, seed and deal")
    number = _field(item, "number", int, where)
    where = f"{name}: deal {number}"
    seed = item.get("seed")
    if seed is None and key is not None:
        seed = key.seed(number)
    if not isinstance(seed, str) or not seed:
        raise DealSetError(f"{where}: seed must be a string (or the file must give its key)")
    if key is not None and seed != key.seed(number):
        raise DealSetError(f"{where}: its seed is not the file key's seed for deal {number}")
    cards = item.get("deal")
    if not isinstance(cards, list) or len(cards) != listed:
        raise DealSetError(f"{where}: deal must list the cards of {listed} hands")
    hands = []
    for hand, given in enumerate(cards):
        dealt = dealt_cards(seed, hand)
        if not isinstance(given, dict):
            raise DealSetError(f"{where}, hand {hand + 1}: must be an object with hands, kitty")
        positions, kitty = given.get("hands"), given.get("kitty")
        if (
            not isinstance(positions, list)
            or len(positions) != 4
            or not all(isinstance(p, str) for p in [*positions, kitty])
        ):
            raise DealSetError(f"{where}, hand {hand + 1}: hands must be 4 strings, kitty one")
        for what, text, engine in [
            *((f"position {p}", positions[p], dealt.positions[p]) for p in range(4)),
            ("kitty", kitty, dealt.kitty),
        ]:
            try:
                same = sorted(parse_cards(text)) == sorted(parse_cards(engine))
            except ValueError as err:
                raise DealSetError(f"{where}, hand {hand + 1}, {what}: {err}") from None
            if not same:
                raise DealSetError(
                    f"{where}, hand {hand + 1}, {what}: the file lists {text!r} but its seed "
                    f"deals {engine!r}; the file does not match the engine's deal"
                )
        hands.append(dealt)
    return Deal(number, seed, tuple(hands))


def parse_deal_set(document: Any, name: str, sha256: str) -> DealSet:
    """Check a parsed set: its format, preset, key, and every listed card against the
    engine's deal (:class:`DealSetError` names what is wrong)."""
    if not isinstance(document, dict):
        raise DealSetError(f"{name}: not a deal set (a JSON object with format {DEALS_FORMAT!r})")
    if document.get("format") != DEALS_FORMAT:
        raise DealSetError(
            f"{name}: format is {document.get('format')!r}; this arena reads {DEALS_FORMAT!r}"
        )
    preset = document.get("preset")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise DealSetError(f"{name}: no preset {preset!r}; choose one of {', '.join(PRESETS)}")
    key = None
    if document.get("key") is not None:
        text = document["key"]
        if not isinstance(text, str) or len(text) != 2 * KEY_BYTES:
            raise DealSetError(f"{name}: key must be {2 * KEY_BYTES} hex digits")
        try:
            key = DealKey.from_hex(text)
        except ValueError as err:
            raise DealSetError(f"{name}: key: {err}") from None
    listed = _field(document, "hands", int, name)
    if listed < 0:
        raise DealSetError(f"{name}: hands must be at least 0, not {listed}")
    items = document.get("deals")
    if not isinstance(items, list) or not items:
        raise DealSetError(f"{name}: deals must be a non-empty list")
    deals = tuple(_parse_deal(item, i, listed, key, name) for i, item in enumerate(items))
    numbers = [deal.number for deal in deals]
    if len(set(numbers)) != len(numbers):
        twice = next(n for n in numbers if numbers.count(n) > 1)
        raise DealSetError(f"{name}: deal {twice} is listed twice")
    return DealSet(preset, None if key is None else key.hex(), deals, name, sha256)


def deal_set_schema() -> dict[str, Any]:
    """The JSON Schema of a set (``deal-set.schema.json``, shipped beside this module)."""
    folder = resources.files("chaodipi.arena.tournament")
    schema: dict[str, Any] = json.loads(folder.joinpath("deal-set.schema.json").read_text("utf-8"))
    return schema


def standard_set_path(preset: str) -> Path:
    """Where the shipped standard set of ``preset`` is (a file of the installed package)."""
    folder = resources.files("chaodipi.arena.tournament") / "standard_deals"
    return Path(str(folder / f"{preset}.json.gz"))


def _read_bounded(path: Path) -> tuple[bytes, bytes]:
    """The file's bytes and its JSON text (decompressed when it is gzip), each read a block at
    a time up to :data:`MAX_DEAL_SET_BYTES`: a larger one is refused before it is all read."""
    too_large = f"{path.name}: not a deal set: larger than {MAX_DEAL_SET_BYTES >> 20} MiB"
    try:
        with path.open("rb") as file:
            data = file.read(MAX_DEAL_SET_BYTES + 1)
    except OSError as err:
        raise DealSetError(f"cannot read the deal set {path}: {err.strerror}") from None
    if len(data) > MAX_DEAL_SET_BYTES:
        raise DealSetError(f"{too_large} (the file)")
    if data[:2] != b"\x1f\x8b":
        return data, data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            text = stream.read(MAX_DEAL_SET_BYTES + 1)
    except (OSError, EOFError, zlib.error) as err:
        raise DealSetError(f"{path.name}: not a deal set, not gzip ({err})") from None
    if len(text) > MAX_DEAL_SET_BYTES:
        raise DealSetError(f"{too_large} once decompressed")
    return data, text


def _number(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {digits} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


@cache
def _load(path: Path, size: int, mtime: int) -> DealSet:
    data, text = _read_bounded(path)
    sha256 = hashlib.sha256(data).hexdigest()
    try:
        document = json.loads(text, parse_int=_number)
    except RecursionError:
        raise DealSetError(f"{path.name}: not a deal set: its JSON is nested too deep") from None
    except (UnicodeDecodeError, ValueError) as err:  # JSONDecodeError is a ValueError
        raise DealSetError(f"{path.name}: not a deal set, not JSON ({err})") from None
    return parse_deal_set(document, path.name, sha256)


def load_deal_set(path: Path) -> DealSet:
    """Read and check the set in ``path`` (JSON, or gzip-compressed JSON); a file read once
    and unchanged since is not checked again."""
    try:
        stat = path.stat()
    except OSError as err:
        raise DealSetError(f"cannot read the deal set {path}: {err.strerror}") from None
    return _load(path.absolute(), stat.st_size, stat.st_mtime_ns)


def resolve_deal_set(given: str | Path, preset: str) -> Path:
    """The file ``given`` names: ``"standard"`` is the preset's shipped set."""
    if str(given) == STANDARD:
        return standard_set_path(preset)
    return Path(given)


def check_covers(deal_set: DealSet, preset: str, numbers: Sequence[int]) -> None:
    """Refuse a set of another preset, or one without every deal number a run plays."""
    if deal_set.preset != preset:
        raise DealSetError(
            f"{deal_set.name}: a set of preset {deal_set.preset!r}, the run plays {preset!r}"
        )
    have = set(deal_set.numbers())
    missing = [n for n in numbers if n not in have]
    if missing:
        low, high = min(have), max(have)
        raise DealSetError(
            f"{deal_set.name}: has no deal {missing[0]} (it holds {len(have)} deals, numbers "
            f"{low} to {high}): set first_deal and deals within them"
        )
