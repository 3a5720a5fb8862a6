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

import signal
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from chaodipi.engine import DECK, Deal, Match, Phase, SeatView, observe, parse_action
from chaodipi.records import action_steps, replay_steps, step_link
from chaodipi.review.judging import Judged, PhaseName, judge, phase_of
from chaodipi.search import DEFAULT_SIMULATIONS as SEARCH_SIMULATIONS
from chaodipi.search import JUDGE_NAME, JUDGE_VERSION

__all__ = ["DEFAULT_SIMULATIONS", "GameReview", "Reviewed", "review_game"]

DEFAULT_SIMULATIONS = SEARCH_SIMULATIONS
"""Playouts a decision is judged with by default (and as many for hindsight): the search's
budget (:data:`chaodipi.search.DEFAULT_SIMULATIONS`)."""
CHUNKS = 4
"""Pieces of a game's decisions per worker: enough that the workers end together."""


@dataclass(frozen=True, slots=True)
class Reviewed:
    """One decision of a game: its ``hand`` (from 0, as the record numbers hands) and its
    ``step`` in that hand (from 1, as the viewer numbers steps: :attr:`link`), the ``seat``
    and its ``bot``, the ``phase``, and the verdict (``None``: not judged, with nothing to
    weigh the move against)."""

    hand: int
    step: int
    seat: int
    bot: str
    phase: PhaseName
    judged: Judged | None

    @property
    def link(self) -> str:
        """Where the game's page (``arena show --html``) shows it: ``#hand=1&step=26``."""
        return step_link(self.hand, self.step)


@dataclass(frozen=True, slots=True)
class GameReview:
    """A game's review: the record's ``header``, the budget and seed it was judged with, and
    each decision of the seats reviewed, in the order played; the ``judge`` that judged them
    and its ``judge_version`` (:data:`chaodipi.search.JUDGE_NAME`,
    :data:`~chaodipi.search.JUDGE_VERSION`)."""

    header: Mapping[str, Any]
    simulations: int
    seed: int
    decisions: tuple[Reviewed, ...]
    judge: str = JUDGE_NAME
    judge_version: str = JUDGE_VERSION

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
    each: Callable[[Reviewed], None] | None = None,
) -> GameReview:
    """Review every decision the ``seats`` took (in hand ``hand`` only, counting from 0, when
    given) in the record ``lines``: the same review for the same ``seed`` and ``simulations``
    whatever ``workers`` (processes) judge it. ``progress(done, total)`` is called as
    decisions are judged, and ``each(decision)`` with each one in the order played, as soon as
    it and those before it are judged. A forced move (one legal action) is no decision. A
    record that does not re-play up to the last decision reviewed is a
    :class:`chaodipi.engine.ReplayError`, before any decision after its fault is judged."""
    wanted = _decisions(lines, set(seats), hand)
    total = len(wanted)
    reviewed: list[Reviewed] = []
    if progress is not None:
        progress(0, total)

    def took(batch: list[Reviewed], done: int) -> None:
        reviewed.extend(batch)
        if each is not None:
            for decision in batch:
                each(decision)
        if progress is not None:
            progress(done, total)

    if workers <= 1 or total < 2:
        done = 0

        def one(decision: Reviewed | None) -> None:
            nonlocal done
            done += 1
            took([] if decision is None else [decision], done)

        _review(lines, wanted, simulations, seed, one)
    else:
        size = -(-total // (workers * CHUNKS))  # in order, so that each comes as it is judged
        chunks = [wanted[i : i + size] for i in range(0, total, size)]
        pool = ProcessPoolExecutor(workers)
        try:
            with _interrupts_held():
                futures = [pool.submit(_review, lines, c, simulations, seed) for c in chunks]
            done = 0
            for chunk, future in zip(chunks, futures, strict=True):
                done += len(chunk)
                took(future.result(), done)
        finally:  # a fault or Ctrl-C: what is not begun is not judged
            pool.shutdown(cancel_futures=True)
    return GameReview(lines[0], simulations, seed, tuple(reviewed))


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C (SIGINT) held back while the pool starts its workers, which inherit the hold:
    the pool is then whole when it comes (it can stop its workers), and only this process
    takes it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _decisions(lines: Sequence[Mapping[str, Any]], seats: set[int], hand: int | None) -> list[int]:
    """The numbers of the actions to review (from 1, counting every action of the record):
    asked of one of ``seats`` (a forced move is no decision), in ``hand`` when given."""
    actions = [line for line in lines if line.get("type") == "action"]
    return [
        number
        for number, line in enumerate(actions, start=1)
        if line["seat"] in seats and line.get("asked", True) and hand in (None, line["hand"])
    ]


@dataclass(frozen=True, slots=True)
class _Taken:
    """A decision seen in the re-play, judged once its action has re-played (so a record's
    fault is the re-play's one-line error, never a judgement of an action the seat could not
    take)."""

    number: int
    view: SeatView
    line: Mapping[str, Any]
    real: Deal


def _review(
    lines: Sequence[Mapping[str, Any]],
    numbers: Sequence[int],
    simulations: int,
    seed: int,
    each: Callable[[Reviewed | None], None] | None = None,
) -> list[Reviewed]:
    """The decisions ``numbers`` of the record, judged (one re-play of the record, as far as
    the last of them); ``each`` is called with each as it is judged (``None`` for a forced
    move, which is no decision: a record made before records said ``asked``)."""
    left = set(numbers)
    places = action_steps(lines)
    bots = [bot["name"] for bot in lines[0].get("bots", ())] or ["", "", "", ""]
    reviewed: list[Reviewed] = []
    taken: _Taken | None = None

    def judge_taken() -> None:
        assert taken is not None
        view, line = taken.view, taken.line
        hand, step = places[taken.number - 1]
        chosen = parse_action(str(line["action"]), view.level, view.preset.card)
        verdict = judge(view, chosen, taken.real, simulations, f"{seed}/{taken.number}")
        decision = Reviewed(hand, step, view.seat, bots[view.seat], phase_of(view), verdict)
        reviewed.append(decision)
        if each is not None:
            each(decision)

    for number, (match, line) in enumerate(replay_steps(lines), start=1):
        if taken is not None:  # its action re-played: it was the seat's to take
            judge_taken()
            taken = None
        if not left:
            break
        if number not in left:
            continue
        left.discard(number)
        view = observe(match, int(line["seat"]))
        if view.legal is None or view.legal.forced() is not None:
            if each is not None:
                each(None)
            continue
        taken = _Taken(number, view, line, _real_deal(match))
    if taken is not None:
        judge_taken()
    return reviewed


def _real_deal(match: Match) -> Deal:
    """Where every card not yet played really is (while the cards are dealt, those still to
    come too, as a set): for hindsight only, never for a verdict."""
    hand = match.hand
    kitty = () if hand.phase is Phase.BURY else tuple(hand.kitty)
    hands = tuple(tuple(hand.hand(seat)) for seat in range(4))
    if hand.phase is not Phase.DECLARE:
        return Deal(hands, kitty)
    undealt = Counter(DECK)
    for cards in (*hands, kitty):
        undealt.subtract(cards)
    return Deal(hands, kitty, tuple(sorted(undealt.elements())))
