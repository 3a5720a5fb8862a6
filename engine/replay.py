"""Replays: a match as JSON lines, and a replayer that checks every step.

The first line is a header (format, engine version, preset, seed, hand limit); then one line
per action (``{"seat": 2, "action": "play ♠9988"}``), one line per finished hand with its
score and the levels after it, and a last line with the result. Replaying re-applies every
action with full checking and compares each recorded outcome with the engine's.

>>> import io, random
>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> match = Match(PRESETS["hefei"], seed=11, max_hands=1)
>>> rng = random.Random(1)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> text = io.StringIO()
>>> write_replay(match, text)
>>> again = replay(io.StringIO(text.getvalue()))
>>> again.records == match.records and again.winner == match.winner
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from chaodipi.engine.actions import parse_action
from chaodipi.engine.errors import ReplayError
from chaodipi.engine.match import Match
from chaodipi.engine.presets import preset

__all__ = ["REPLAY_FORMAT", "ReplayError", "replay", "replay_lines", "write_replay"]

REPLAY_FORMAT = "chaodipi-replay/1"


def _engine_version() -> str:
    from chaodipi.engine import __version__

    return __version__


def replay_lines(match: Match) -> Iterator[dict[str, Any]]:
    """The JSON objects of a match's replay, in order."""
    yield {
        "format": REPLAY_FORMAT,
        "engine": _engine_version(),
        "preset": match.preset.name,
        "seed": match.seed,
        "max_hands": match.max_hands,
    }
    shadow = Match(match.preset, match.seed, match.max_hands)
    for seat, action in match.actions:
        yield {"seat": seat, "action": str(action)}
        hands_before = len(shadow.records)
        shadow.push(seat, action)
        if len(shadow.records) > hands_before:
            record = shadow.records[-1]
            yield {
                "hand": record.number,
                "defenders_points": record.total,
                "progress": list(record.progress_after),
                "next_dealer": record.next_dealer,
            }
    if match.over:
        yield {"over": True, "winner": match.winner, "reward": match.reward}


def write_replay(match: Match, out: IO[str]) -> None:
    """Write a match's replay as JSON lines."""
    for line in replay_lines(match):
        out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _rows(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ReplayError(f"line {number} is not JSON: {err}") from None
        if not isinstance(row, dict):
            raise ReplayError(f"line {number} is not a JSON object")
        yield number, row


def replay(lines: Iterable[str]) -> Match:
    """Re-play a replay with every action checked; raise :class:`ReplayError` on any mismatch."""
    rows = _rows(lines)
    try:
        _, header = next(rows)
    except StopIteration:
        raise ReplayError("empty replay") from None
    if header.get("format") != REPLAY_FORMAT:
        raise ReplayError(f"not a {REPLAY_FORMAT} file: header {header!r}")
    match = Match(preset(header["preset"]), header["seed"], header.get("max_hands"))
    for number, row in rows:
        if "action" in row:
            level = match.hand.level
            action = parse_action(row["action"], level, match.preset.card)
            try:
                match.apply(row["seat"], action)
            except ValueError as err:
                raise ReplayError(
                    f"line {number}: {row['action']!r} by seat {row['seat']}: {err}"
                ) from None
        elif "hand" in row:
            if not 0 <= row["hand"] < len(match.records):
                raise ReplayError(f"line {number}: hand {row['hand']} has not been played")
            record = match.records[row["hand"]]
            got = {
                "defenders_points": record.total,
                "progress": list(record.progress_after),
                "next_dealer": record.next_dealer,
            }
            want = {k: row[k] for k in got}
            if got != want:
                raise ReplayError(
                    f"line {number}: hand {row['hand']} scored {got}, recorded {want}"
                )
        elif row.get("over") and (match.winner, match.reward) != (row["winner"], row["reward"]):
            raise ReplayError(
                f"line {number}: match won by {match.winner} (reward {match.reward}), "
                f"recorded {row['winner']} ({row['reward']})"
            )
    return match
