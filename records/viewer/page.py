"""A game record as one HTML page that needs nothing else: no network, no server.

The page (``page.html``) holds its style (``viewer.css``), its script (:data:`SCRIPTS`, small
hand-written JavaScript files inlined in order into one function, no build step) and the record
itself, as JSON in a ``<script type="application/json">`` element; the script reads the record
and lets a person step through it (docs/game-record.md, "Looking at a game"). Beside the record
goes one thing the engine knows and the record does not say: how a player arranges a hand once
trump is fixed (which cards are trumps, in which order: the red five, the level cards, the
jokers), per hand, so the page shows each hand exactly as :func:`chaodipi.engine.view.observe`
arranges it; which cards are trumps in each hand, and the words saying so (:func:`trumps`); and
each place a team's progress may reach, named as the engine names it (:func:`level_names`). And
every line in words (:func:`page_words`: :mod:`chaodipi.records.words`, the words ``arena show``
prints), so the script says nothing in words of its own about a line. The script re-derives no
rule: the rest it reads from the record. A page may also hold the game's
review (``arena show --html --review``: :func:`chaodipi.review.review_json`'s JSON, embedded
as the record is), shown beside each step and as a graph of each hand.

>>> page = render_html([{"type": "header", "format": "chaodipi-record/1", "note": "</script>"}],
...                    review={"decisions": [{"bot": "</script><!--"}]})
>>> page.startswith("<!DOCTYPE html>"), '"</script>' in page, page.count('"\\\\u003c/script>')
(True, False, 2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, assert_never, cast

from chaodipi.engine import CARDS, Rank, Suit, Trump, level_name, preset
from chaodipi.records.lines import Header, Line
from chaodipi.records.making import outcome_of
from chaodipi.records.words import (
    Namer,
    hand_over_words,
    said,
    seat_names,
    sentence,
    team_name,
    turn_words,
)

__all__ = ["arrangements", "level_names", "page_words", "render_html", "trumps", "write_html"]

_PLACEHOLDER = re.compile(
    r"/\*(STYLE|SCRIPT|RECORD|WORDS|ARRANGEMENTS|TRUMPS|LEVELS|START|REVIEW)\*/"
)


SCRIPTS = ("cards.js", "steps.js", "review.js", "table.js", "graphs.js", "playback.js")
"""The viewer's script, a file per idea, in the order the page runs them, in one scope (each
file's top-level code runs in turn; the drawing begins once all are read): the cards; the
record read into steps and lines put in words; the review beside a step; drawing the table,
the status and the hand's steps and tricks; the hand's graphs; moving through the steps (the
hash, playing, the keys) and where the page opens."""


def _asset(name: str) -> str:
    return resources.files("chaodipi.records.viewer").joinpath(name).read_text(encoding="utf-8")


def _embedded_json(value: object) -> str:
    """JSON that cannot end the ``<script>`` holding it: every ``<`` is written ``\\u003c``
    (the same string to a JSON reader), so no text in it (a bot's note, say) can close the
    element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def _trumps_of(lines: Sequence[Mapping[str, Any]]) -> dict[int, Trump]:
    """Each hand's trump, as the engine sees it, for each hand whose card play began; empty
    when the header's preset is not one this engine knows."""
    try:
        rules = preset(str(lines[0].get("preset"))).card
    except ValueError:
        return {}
    found: dict[int, Trump] = {}
    for line in lines:
        if line.get("type") != "trump":
            continue
        level = None if line.get("level") is None else Rank.parse(str(line["level"]))
        suit = None if line.get("suit") is None else Suit.parse(str(line["suit"]))
        found[int(line["hand"])] = Trump(level, suit, rules)
    return found


def arrangements(lines: Sequence[Mapping[str, Any]]) -> dict[int, list[int]]:
    """For each hand whose card play began: each card code's place in a hand arranged as the
    engine arranges it (by effective suit, trumps last, low to high). Empty when the header's
    preset is not one this engine knows (the page then keeps the cards in code order).

    >>> from chaodipi.engine.cards import parse_cards
    >>> lines = [{"type": "header", "preset": "classic"},
    ...          {"type": "trump", "hand": 0, "level": "2", "suit": "♠", "dealer": 0}]
    >>> place = arrangements(lines)[0]
    >>> [str(c) for c in sorted(parse_cards("BJ ♠A ♥5 ♥2 ♠2 ♣3"), key=place.__getitem__)]
    ['♣3', '♠A', '♥2', '♠2', 'BJ', '♥5']
    """
    places: dict[int, list[int]] = {}
    for hand, trump in _trumps_of(lines).items():
        arranged = trump.sort(list(CARDS))
        place = [0] * len(CARDS)
        for index, card in enumerate(arranged):
            place[card] = index
        places[hand] = place
    return places


def trumps(lines: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """For each hand whose card play began: its trump cards (``cards``, their codes, as the
    engine decides them) and the words naming them (``says``), the preset's extra trumps (the
    ♥5) included. Empty when the header's preset is not one this engine knows.

    >>> said = trumps([{"type": "header", "preset": "classic"},
    ...                {"type": "trump", "hand": 0, "level": "2", "suit": "♦", "dealer": 0}])[0]
    >>> said["says"], len(said["cards"])
    ('♥5, the jokers, every 2 (the level) and every ♦ (the trump suit)', 19)
    """
    said: dict[int, dict[str, Any]] = {}
    for hand, trump in _trumps_of(lines).items():
        names = []
        if trump.rules.red_five:
            names.append("♥5")  # the red five, above the big joker
        names.append("the jokers")
        if trump.level is not None:
            names.append(f"every {trump.level} (the level)")
        if trump.suit is not None:
            names.append(f"every {trump.suit} (the trump suit)")
        says = ", ".join(names[:-1]) + " and " + names[-1]
        cards = [int(card) for card in CARDS if trump.is_trump(card)]
        said[hand] = {"cards": cards, "says": says}
    return said


def level_names(lines: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each place a team's progress reaches in the record (its index; past the last circuit's
    A at least), as the engine names it under the header's preset; empty when the preset is
    not one this engine knows.

    >>> names = level_names([{"type": "header", "preset": "classic"}])
    >>> names[0], names[12], names[13]
    ('2', 'A', '扛旗')
    """
    try:
        circuits = preset(str(lines[0].get("preset"))).match.circuits
    except ValueError:
        return []
    reached = [p for line in lines for p in line.get("progress", ()) if isinstance(p, int)]
    top = max([circuits * 13, *reached])
    return [level_name(progress, circuits) for progress in range(top + 1)]


def page_words(lines: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the page says, in :mod:`chaodipi.records.words`' words: each seat's name
    (``seats``) and, for each line of the record (``lines``, by its index), an object: the
    header's ``says`` (how the game ended); an action's ``turn`` (how it was taken: the time,
    a strike, refusals, a fallback, or ``forced``); a seat's line's ``does`` (its sentence
    after the seat's name, which the page puts before it as
    :func:`~chaodipi.records.words.sentence` does), any other line's ``says`` (its
    sentence); a scored hand's ``head``, ``sum`` and ``next`` too (the parts of its sentence
    the page shows apart).
    A line of a kind the record's schema does not have is an ``AssertionError`` naming it (a
    record is checked against the schema before it is shown: :func:`chaodipi.records.check_lines`).

    >>> header = {"type": "header", "bots": [{"seat": s, "team": s % 2, "name": "ab"[s % 2]}
    ...                                      for s in range(4)]}
    >>> words = page_words([header, {"type": "buried", "seq": 9, "hand": 0, "seat": 2}])
    >>> words["seats"][2], words["lines"][1]
    ('seat 2 (a)', {'does': 'buries 8 cards'})
    """
    names = seat_names(cast(Header, lines[0]) if lines else None)

    def name(seat: int) -> str:
        return f"seat {seat} ({names[seat]})" if names[seat] else f"seat {seat}"

    return {"seats": [name(s) for s in range(4)], "lines": [_said(line, name) for line in lines]}


def _said(row: Mapping[str, Any], name: Namer) -> dict[str, str]:
    line = cast(Line, row)
    match line["type"]:
        case "header":
            if "result" not in line:  # a record's header always has one; a test's may not
                return {}
            names = seat_names(line)
            ended = outcome_of(line["result"]).said(lambda team: team_name(team, names))
            return {"says": ended}
        case "action":
            return {"turn": turn_words(line)}
        case "hand_over":
            head, score, next_dealer = hand_over_words(line, name)
            return {"says": sentence(line, name), "head": head, "sum": score, "next": next_dealer}
        case (
            "hand" | "dealt" | "deal" | "declare" | "fry" | "pass" | "dealer" | "kitty"
            | "took_kitty" | "bury" | "buried" | "redeal" | "kitty_turned" | "reveal" | "trump"
            | "play" | "trick"
        ):  # fmt: skip
            seat, what = said(line, name)
            return {"says": what} if seat is None else {"does": what}
        case other:
            assert_never(other)


def render_html(
    lines: Sequence[Mapping[str, Any]],
    *,
    seat: int | None = None,
    hand: int | None = None,
    review: Mapping[str, Any] | None = None,
) -> str:
    """The page showing the record ``lines`` (its header first, as
    :func:`chaodipi.records.load_lines` returns them). It opens at the start of hand
    ``hand`` (numbered from 1, as printed; default the first) in what ``seat`` saw (default:
    all hands). The page holds the whole record whatever it opens with: a reader may switch
    to any seat's view, or all hands. With ``review`` (the game's review as
    :func:`chaodipi.review.review_json` writes it) the page shows each decision's verdict
    beside its step and the value of the position through each hand."""
    start = {"view": "all" if seat is None else seat, "hand": 0 if hand is None else hand - 1}
    parts = {
        "START": _embedded_json(start),
        "STYLE": _asset("viewer.css"),
        "SCRIPT": "\n".join(_asset(name) for name in SCRIPTS),
        "RECORD": _embedded_json(list(lines)),
        "WORDS": _embedded_json(page_words(lines)),
        "ARRANGEMENTS": _embedded_json(arrangements(lines)),
        "TRUMPS": _embedded_json(trumps(lines)),
        "LEVELS": _embedded_json(level_names(lines)),
        "REVIEW": _embedded_json(None if review is None else dict(review)),
    }
    # one pass: what is put in (a note saying /*SCRIPT*/, say) is never read again
    return _PLACEHOLDER.sub(lambda found: parts[found.group(1)], _asset("page.html"))


def write_html(
    lines: Sequence[Mapping[str, Any]],
    path: Path,
    *,
    seat: int | None = None,
    hand: int | None = None,
    review: Mapping[str, Any] | None = None,
) -> None:
    """Write the page of the record ``lines`` to ``path`` (made or replaced); ``seat``,
    ``hand`` and ``review`` as for :func:`render_html`."""
    path.write_text(render_html(lines, seat=seat, hand=hand, review=review), encoding="utf-8")
