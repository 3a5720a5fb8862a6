"""Reviewing a game: every decision of the chosen seats, walked through its record.

>>> import random
>>> from chaodipi.engine import PRESETS, Match
>>> from chaodipi.records import record_lines
>>> match, rng = Match(PRESETS["classic"], seed=4, max_hands=1), random.Random(4)
>>> while not match.over:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> review = review_game(list(record_lines(match)), seats=(2,), simulations=16, seed=1)
>>> {d.seat for d in review.decisions}, len(review.judged) > 10
({2}, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from chaodipi.engine import Deal, Match, Phase, observe, parse_action
from chaodipi.records import replay_steps
from chaodipi.review.judging import Judged, PhaseName, judge, phase_of

__all__ = ["DEFAULT_SIMULATIONS", "GameReview", "Reviewed", "review_game"]

DEFAULT_SIMULATIONS = 120
"""Playouts a decision is judged with by default (and as many for hindsight): the search
bot's budget."""


@dataclass(frozen=True, slots=True)
class Reviewed:
    """One decision of a game: the action's ``number`` in the game (from 1), its ``hand``
    (from 0), the ``seat`` and its ``bot``, the ``phase``, and the verdict (``None``: not
    judged, as declaring is not)."""

    number: int
    hand: int
    seat: int
    bot: str
    phase: PhaseName
    judged: Judged | None


@dataclass(frozen=True, slots=True)
class GameReview:
    """A game's review: the record's ``header``, the budget and seed it was judged with, and
    each decision of the seats reviewed, in the order played."""

    header: Mapping[str, Any]
    simulations: int
    seed: int
    decisions: tuple[Reviewed, ...]

    @property
    def judged(self) -> list[Judged]:
        """The verdicts of the decisions judged."""
        return [d.judged for d in self.decisions if d.judged is not None]


def review_game(
    lines: Sequence[Mapping[str, Any]],
    *,
    seats: Iterable[int] = range(4),
    hand: int | None = None,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = 1,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review every decision the ``seats`` took (in hand ``hand`` only, counting from 0, when
    given) in the record ``lines``: the same review for the same ``seed`` and ``simulations``
    whatever ``workers`` (processes) judge it. ``progress(done, total)`` is called as
    decisions are judged."""
    wanted = _decisions(lines, set(seats), hand)
    total = len(wanted)
    if progress is not None:
        progress(0, total)
    if workers <= 1 or total < 2:
        reviewed = _review(lines, wanted, simulations, seed, progress, total)
    else:
        chunks = [wanted[i :: workers * 4] for i in range(workers * 4) if wanted[i :: workers * 4]]
        reviewed = []
        with ProcessPoolExecutor(workers) as pool:
            futures = [pool.submit(_review, lines, c, simulations, seed, None, 0) for c in chunks]
            for future in futures:
                reviewed.extend(future.result())
                if progress is not None:
                    progress(len(reviewed), total)
        reviewed.sort(key=lambda r: r.number)
    return GameReview(lines[0], simulations, seed, tuple(reviewed))


def _decisions(lines: Sequence[Mapping[str, Any]], seats: set[int], hand: int | None) -> list[int]:
    """The numbers of the actions to review: asked of one of ``seats`` (a forced move is no
    decision), in ``hand`` when given."""
    actions = [line for line in lines if line.get("type") == "action"]
    return [
        number
        for number, line in enumerate(actions, start=1)
        if line["seat"] in seats and line.get("asked", True) and hand in (None, line["hand"])
    ]


def _review(
    lines: Sequence[Mapping[str, Any]],
    numbers: Sequence[int],
    simulations: int,
    seed: int,
    progress: Callable[[int, int], None] | None,
    total: int,
) -> list[Reviewed]:
    """The decisions ``numbers`` of the record, judged (one re-play of the record)."""
    wanted = set(numbers)
    bots = [bot["name"] for bot in lines[0].get("bots", ())] or ["", "", "", ""]
    reviewed: list[Reviewed] = []
    for number, (match, line) in enumerate(replay_steps(lines), start=1):
        if number not in wanted:
            continue
        seat = int(line["seat"])
        view = observe(match, seat)
        chosen = parse_action(str(line["action"]), match.hand.level, match.preset.card)
        legal = view.legal
        verdict = None
        if legal is not None and legal.count() > 1:
            verdict = judge(view, chosen, _real_deal(match), simulations, f"{seed}/{number}")
        reviewed.append(
            Reviewed(number, match.number, seat, bots[seat], phase_of(view), verdict)
        )
        if progress is not None:
            progress(len(reviewed), total)
        if len(reviewed) == len(wanted):
            break
    return reviewed


def _real_deal(match: Match) -> Deal:
    """Where every card not yet played really is: for hindsight only, never for a verdict."""
    hand = match.hand
    kitty = () if hand.phase is Phase.BURY else tuple(hand.kitty)
    return Deal(tuple(tuple(hand.hand(seat)) for seat in range(4)), kitty)
