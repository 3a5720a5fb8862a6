"""Every event kind is read one way, exhaustively: a ``match`` on the closed union
``Payload`` (chaodipi.engine.events) ends in ``assert_never``, so that mypy fails wherever a kind
is not handled, and an object that is no payload raises instead of passing in silence. The
engine also states each hand's level, in the public event that begins the hand."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, cast, get_args

import pytest

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import WireError, event_from_message, event_message
from chaodipi.engine.bidding import Bid, BidKind, BidRecord
from chaodipi.engine.cards import Rank, Suit, parse_cards
from chaodipi.engine.events import (
    EVERYONE,
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Event,
    EventKind,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Payload,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.follow import follow
from chaodipi.engine.knowledge import Tally, infer
from chaodipi.engine.match import Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.scoring import HandResult
from chaodipi.engine.view import observe

ROOT = Path(__file__).resolve().parent.parent
CARDS = tuple(parse_cards("♠3 ♥5"))
BID = Bid(BidKind.SINGLE, tuple(parse_cards("♥2")), Suit.HEARTS)
RESULT = HandResult(
    dealer=0,
    trick_points=35,
    kitty_points=0,
    kitty_multiplier=2,
    throw_penalty=0,
    fry_penalty=0,
    red_five=0,
    heaven_earth=None,
    last_winner=0,
    last_play=CARDS,
    floor_at_zero=True,
)
SAMPLES: tuple[Payload, ...] = (
    HandBegun(Rank.FIVE, 1, (3, 7)),
    HandBegun(None, 0, (13, 7)),
    HandBegun(Rank.TWO, None, (0, 0)),
    Dealt(2, CARDS),
    Declared(1, BID),
    Declared(1, None),
    Fried(3, BID),
    Passed(0, Phase.FRY),
    DealerFixed(1),
    KittyTaken(1, CARDS),
    TookKitty(1),
    BuriedCards(1, CARDS),
    Buried(1),
    Redealt(2),
    KittyTurned(CARDS, None),
    BidsRevealed((BidRecord(1, BID, Phase.DECLARE, True),)),
    TrumpFixed(None, None, 0),
    Played(2, CARDS, tuple(parse_cards("♠3 ♠4 ♥5")), -10),
    TrickWon(3, 15),
    HandOver(35, CARDS, ((), (), (), ()), (1, 0), 2, "note", RESULT),
)
"""At least one payload of each kind."""


def test_every_kind_has_one_payload_class_and_one_field_on_the_wire() -> None:
    """Payload is the closed union of one class per EventKind, and the contract's Event has
    one payload field per kind: each sample goes over the wire and comes back as it was."""
    classes = get_args(Payload)
    assert {type(p) for p in SAMPLES} == set(classes)
    assert sorted(c.kind.value for c in classes) == sorted(k.value for k in EventKind)
    fields = pb.Event.DESCRIPTOR.oneofs_by_name["payload"].fields
    assert len(fields) == len(classes)
    used = set()
    for payload in SAMPLES:
        message = event_message(Event(7, 1, EVERYONE, payload))
        used.add(message.WhichOneof("payload"))
        assert event_from_message(message).payload == payload
    assert used == {f.name for f in fields}


def _switch(name: str, left_out: type | None) -> str:
    """A function that matches every payload class but ``left_out``, then ``assert_never``."""
    arms = "".join(
        f"        case events.{c.__name__}():\n            return {i}\n"
        for i, c in enumerate(get_args(Payload))
        if c is not left_out
    )
    return (
        f"def {name}(payload: events.Payload) -> int:\n    match payload:\n{arms}"
        "        case _:\n            assert_never(payload)\n"
    )


def test_mypy_reports_a_kind_a_match_leaves_out(tmp_path: Path) -> None:
    """The check the engine's switches rely on: a ``match`` on Payload that handles every kind
    passes mypy; one that leaves out a kind (HandBegun, the last one added) fails it, naming
    the kind."""
    snippet = tmp_path / "switches.py"
    snippet.write_text(
        "from typing import assert_never\n\nfrom chaodipi.engine import events\n\n\n"
        + _switch("every_kind", None)
        + "\n\n"
        + _switch("one_left_out", HandBegun)
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(snippet),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, done.stdout + done.stderr
    line = int(errors[0].split(":")[1])
    assert 'Argument 1 to "assert_never" has incompatible type "HandBegun"' in errors[0]
    assert line > snippet.read_text().splitlines().index(
        "def one_left_out(payload: events.Payload) -> int:"
    )


class NotAPayload:
    """What a newer engine's kind looks like to a reader that does not know it."""

    kind = EventKind.DEAL
    seat = 0


def test_an_unknown_kind_is_never_passed_in_silence() -> None:
    """Each reader of events raises on a payload it does not know, rather than skip it."""
    match = Match(PRESETS["classic"], seed=1)
    view = observe(match, 0)
    stranger = Event(match.log.cursor + 1, 0, EVERYONE, cast(Any, NotAPayload()))
    with pytest.raises(AssertionError):
        follow(view, [stranger], cursor=stranger.seq)
    with pytest.raises(AssertionError):
        Tally(match.preset.card).see(stranger.payload)
    with pytest.raises(AssertionError):
        infer(replace(view, events=(*view.events, stranger)))
    with pytest.raises(AssertionError):
        event_message(stranger)
    with pytest.raises(WireError, match="has no payload this SDK knows"):
        event_from_message(pb.Event(seq=5, hand=0, audience=15))


def test_the_kangqi_hand_begins_with_no_level_a_hand_with_its_own() -> None:
    """000 扛旗 「扛旗打无主」: the 扛旗 hand has no level rank, and every seat and spectator is told
    so as it begins (docs/rules.md); any other hand begins with its level, the dealer's team's.

    Positions: the kangqi preset with team 0 past A (progress 13) and seat 0 to deal: the 扛旗
    hand; the classic preset at the same progress: level 2 of the next circuit; the classic
    preset with team 1 at 3 and seat 1 to deal: level 5; a match's first hand: level 2, its
    dealer not known yet. Verdict: each hand's first event, public, says that level, on the
    wire too (RANK_UNSPECIFIED for none)."""
    cases = [
        (Match(PRESETS["kangqi"], seed=0, progress=[13, 7], dealer=0), None, 0),
        (Match(PRESETS["classic"], seed=0, progress=[13, 7], dealer=0), Rank.TWO, 0),
        (Match(PRESETS["classic"], seed=0, progress=[5, 3], dealer=1), Rank.FIVE, 1),
        (Match(PRESETS["classic"], seed=0), Rank.TWO, None),
    ]
    for match, level, dealer in cases:
        first = match.log.all_since(0)[0]
        assert first.public and first.hand == 0
        assert first.payload == HandBegun(level, dealer, tuple(match.progress))  # type: ignore[arg-type]
        message = event_message(first)
        assert message.hand_begun.level == (0 if level is None else level + 1)
        assert message.hand_begun.HasField("dealer") is (dealer is not None)
        assert event_from_message(message) == first
    kangqi = cases[0][0]
    assert kangqi.hand.level is None and kangqi.hand.kangqi_hand


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_hand_begins_with_the_level_its_record_says(preset: str) -> None:
    """Over random matches: every hand's first event is a public HandBegun saying the level,
    the dealer and the progress the finished hand's record says."""
    rng = random.Random(preset)
    match = Match(PRESETS[preset], seed=preset, max_hands=6)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    begun = [e for e in match.log if isinstance(e.payload, HandBegun)]
    assert [e.hand for e in begun] == list(range(len(match.records)))
    for event, record in zip(begun, match.records, strict=True):
        assert event.public
        assert event.seq == next(e.seq for e in match.log if e.hand == record.number)
        assert isinstance(event.payload, HandBegun)
        assert event.payload.level == record.level
        assert event.payload.progress == record.progress_before
        # the first hand's dealer is decided by declaring; later ones are known as they begin
        assert event.payload.dealer == (None if record.number == 0 else record.dealer)


# -- the viewer's script: every switch on a record line's kind -----------------------------------

VIEWER = ROOT / "records" / "viewer"
SWITCH_ON_KIND = re.compile(r"switch \((\w+)\.type\) \{")


def _schema_kinds() -> set[str]:
    """Every kind of line the record's JSON Schema allows (its ``oneOf``, each ``type``'s
    ``const``)."""
    schema = json.loads((ROOT / "records" / "record.schema.json").read_text(encoding="utf-8"))
    kinds = set()
    for branch in schema["oneOf"]:
        definition = schema["$defs"][branch["$ref"].rsplit("/", 1)[1]]
        kinds.add(definition["properties"]["type"]["const"])
    return kinds


def _body(source: str, start: int) -> str:
    """The text between the brace at ``start`` and the one that closes it (strings and
    comments, which may hold braces and quotes, skipped)."""
    depth, index, quote = 0, start, ""
    while True:
        char = source[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif source.startswith("//", index):
            index = source.index("\n", index)
        elif source.startswith("/*", index):
            index = source.index("*/", index) + 1
        elif char in "\"'`":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return source[start + 1 : index]
        index += 1


def viewer_switches(folder: Path = VIEWER) -> list[tuple[str, set[str], str]]:
    """Each ``switch (x.type)`` of the script files in ``folder``: where it is, the kinds its
    ``case`` labels name, and its ``default:``'s first statement ('' when it has none)."""
    found = []
    for script in sorted(folder.glob("*.js")):
        source = script.read_text(encoding="utf-8")
        for switch in SWITCH_ON_KIND.finditer(source):
            body = _body(source, switch.end() - 1)
            line = source.count("\n", 0, switch.start()) + 1
            cases = set(re.findall(r"\bcase \"(\w+)\":", body))
            default = re.search(r"\bdefault:(.*)", body, re.S)
            first = "" if default is None else re.sub(r"//[^\n]*", "", default[1]).strip()
            found.append((f"{script.name}:{line}", cases, first.split(";")[0]))
    return found


def test_every_switch_of_the_viewer_on_a_line_kind_handles_every_kind_of_the_schema() -> None:
    """The viewer's script reads record lines with switches on their kind: each names every
    kind the record's schema has (so adding a kind to ``record.schema.json`` fails this until
    each switch handles it), and its ``default:`` throws, naming the kind, rather than pass a
    line it does not know in silence."""
    kinds = _schema_kinds()
    assert len(kinds) == 20 and {"header", "action", "buried", "hand_over"} <= kinds
    switches = viewer_switches()
    assert switches, "the viewer reads a line's kind somewhere"
    for where, cases, default in switches:
        assert cases == kinds, (where, "missing:", kinds - cases, "unknown:", cases - kinds)
        assert default.startswith("throw new Error(") and "line.type" in default, (where, default)


def test_the_check_of_the_viewer_s_switches_sees_a_kind_left_out(tmp_path: Path) -> None:
    """What the test above relies on: a switch that leaves a kind out, or passes in silence,
    is found."""
    source = (
        'switch (line.type) {\n  case "hand": break; // the hand\'s "}"\n  default: break;\n}\n'
        'switch (line.type) {\n  case "trick": return "{"; /* } */\n'
        '  default: throw new Error("unknown: " + line.type);\n}\n'
    )
    (tmp_path / "probe.js").write_text(source, encoding="utf-8")
    assert viewer_switches(tmp_path) == [
        ("probe.js:1", {"hand"}, "break"),
        ("probe.js:5", {"trick"}, 'throw new Error("unknown: " + line.type)'),
    ]
