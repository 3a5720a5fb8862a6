"""Re-playing a record: its actions played through the engine again, every line it makes
compared with the record's.

>>> import random
>>> from chaodipi.engine import PRESETS, Match
>>> from chaodipi.records.making import record_lines
>>> match = Match(PRESETS["hefei"], seed=11, max_hands=1)
>>> rng = random.Random(1)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> again = replay_record(list(record_lines(match)))
>>> again.records == match.records
True
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

from chaodipi.engine import Ending, Match, ReplayError, parse_action, preset
from chaodipi.records.lines import RECORD_FORMAT, Line
from chaodipi.records.making import LineMaker, news, preset_options

__all__ = ["replay_record"]

LATER_FIELDS = ("defenders",)
"""Fields the format gained after its first records (each optional): a record made before
them is re-played as it was made."""


def replay_record(lines: Sequence[Mapping[str, Any]]) -> Match:
    """Play a record's actions through the engine again, each checked, and compare every line
    the engine makes with the record's; :class:`ReplayError` at the first difference. Returns
    the match as the record leaves it."""
    steps = replay_steps(lines)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            final: Match = done.value
            return final


def replay_steps(
    lines: Sequence[Mapping[str, Any]],
) -> Generator[tuple[Match, Mapping[str, Any]], None, Match]:
    """Re-play a record as :func:`replay_record` does, yielding before each action the match
    as it stands then (one object, moved on once the consumer asks for the next step) and the
    action's line; returns the match as the record leaves it.

    >>> import random
    >>> from chaodipi.engine import PRESETS, Match
    >>> from chaodipi.records.making import record_lines
    >>> match, rng = Match(PRESETS["classic"], seed=2, max_hands=1), random.Random(2)
    >>> while not match.over:
    ...     match.apply(match.to_play, match.legal_actions().sample(rng))
    >>> steps = [(m.to_play, line["seat"]) for m, line in replay_steps(list(record_lines(match)))]
    >>> len(steps) == len(match.actions) and all(a == b for a, b in steps)
    True
    """
    if not lines or lines[0].get("format") != RECORD_FORMAT:
        raise ReplayError(f"not a {RECORD_FORMAT} record")
    header = lines[0]
    try:
        rules = preset(header["preset"])
    except ValueError as err:
        raise ReplayError(str(err)) from None
    if header.get("options") != preset_options(rules):
        raise ReplayError(
            f"the record was played under other rules than this engine's preset {rules.name!r}"
        )
    first = lines[1] if len(lines) > 1 else {}
    begun = first if first.get("type") == "hand" else {}  # where the first hand began
    match = Match(
        rules,
        header["seed"],
        header.get("max_hands"),
        progress=list(begun.get("progress", (0, 0))),
        dealer=begun.get("dealer"),
    )
    maker = LineMaker()
    position = 1
    for made in news(match, maker, 0):
        position = _expect(lines, position, made)
    while position < len(lines):
        line = lines[position]
        if line.get("type") != "action":
            raise ReplayError(f"line {position + 1}: the engine makes no {line.get('type')!r} here")
        if match.over:
            raise ReplayError(f"line {position + 1}: an action after the match's end")
        hand, cursor = match.number, match.log.cursor
        yield match, line
        try:
            action = parse_action(str(line["action"]), match.hand.level, rules.card)
            match.apply(int(line["seat"]), action)
        except (KeyError, ValueError) as err:
            raise ReplayError(f"line {position + 1}: {line.get('action')!r}: {err}") from None
        if line.get("hand") != hand:
            raise ReplayError(
                f"line {position + 1}: an action of hand {hand}, not {line.get('hand')}"
            )
        position += 1
        for made in news(match, maker, cursor):
            position = _expect(lines, position, made)
    _check_result(header, match)
    return match


def _expect(lines: Sequence[Mapping[str, Any]], position: int, made: Line) -> int:
    if position >= len(lines):
        raise ReplayError(f"the record ends where the engine has a {made['type']!r} line")
    got = lines[position]
    if got != made and got != _without_later(made, got):
        raise ReplayError(f"line {position + 1}: recorded {got}, the engine makes {made}")
    return position + 1


def _check_result(header: Mapping[str, Any], match: Match) -> None:
    result = header.get("result", {})
    if result.get("hands") != len(match.records):
        raise ReplayError(
            f"the header says {result.get('hands')} hands, the record plays {len(match.records)}"
        )
    if (
        result.get("ending") == Ending.PLAYED_OUT.value
        and match.over
        and (result.get("winner") != match.winner or result.get("progress") != list(match.progress))
    ):
        raise ReplayError(
            f"the header says team {result.get('winner')} won at {result.get('progress')}; "
            f"replayed, team {match.winner} wins at {list(match.progress)}"
        )


def _without_later(made: Line, got: Mapping[str, Any]) -> dict[str, Any]:
    """``made`` without the :data:`LATER_FIELDS` that ``got`` (a line made before them) lacks."""
    return {k: v for k, v in made.items() if k in got or k not in LATER_FIELDS}
