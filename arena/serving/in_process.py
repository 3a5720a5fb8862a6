"""A seat whose bot is a Python callable the table calls itself: an in-process bot.

The table (:class:`chaodipi.arena.serving.table.Table`) asks an :class:`InProcessSeat` for the
open decision's answer instead of sending a Decision down a stream: :meth:`InProcessSeat.ask`
hands the bot's ``decide`` the seat's view (``observe(match, seat)`` at its first decision,
then carried forward by the seat's events, :func:`chaodipi.engine.follow`, as the SDK carries
it) with ``view.legal`` set, and says what came back (:data:`Asked`). Nothing is converted to
the contract's messages and nothing crosses a socket; the table judges the answer by the same
rules as a stream's: the clock, the bank, strikes, legality, fallbacks (docs/architecture.md,
"In-process bots").

What ``decide`` may do, and what each is:

* return an action (or an :class:`chaodipi.bot.Answer` with a note): :class:`Chosen`; the table
  plays it, or refuses it as illegal (counted) and plays the safe action as a fallback, as the
  SDK answers a refusal;
* return what is no action: :class:`NoAction`, a fallback, as the SDK sends one;
* raise: :class:`Raised`, the bot is gone (as a process that exited), written to its stderr
  with the traceback;
* run on until its seat would have struck out: the seat's :class:`Guard` (in a worker process,
  an alarm) raises :class:`Overdue` inside it, and it is :class:`Hung`.

While ``decide`` runs, ``sys.stdout`` and ``sys.stderr`` are the bot's own (:class:`Streams`):
its stderr file, and nowhere for stdout, as a command bot's process has.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TextIO

from chaodipi.bot import Answer
from chaodipi.engine import (
    Action,
    Bury,
    Declare,
    Fry,
    LegalActions,
    Match,
    Pass,
    Play,
    SeatView,
    follow,
    observe,
)

__all__ = [
    "NO_GUARD",
    "Asked",
    "Chosen",
    "Decide",
    "Guard",
    "Hung",
    "InProcessSeat",
    "NoAction",
    "Overdue",
    "Raised",
    "Streams",
]

Decide = Callable[[SeatView], Action | Answer]
"""A bot's ``decide``: the seat's view (``view.legal`` set) in, an action (or an Answer) out."""

ACTIONS = (Pass, Declare, Fry, Bury, Play)


class Overdue(BaseException):
    """Raised inside a ``decide`` still running when its seat would have struck out (a
    :class:`Guard`'s doing); a ``BaseException``, so that ``except Exception`` in a bot does
    not swallow it."""


class Guard(Protocol):
    """What stops a ``decide`` that runs too long: :meth:`arm` before it is called,
    :meth:`disarm` once it is back."""

    def arm(self, seconds: float) -> None:
        """Raise :class:`Overdue` inside the ``decide`` about to run, ``seconds`` from now."""
        ...

    def disarm(self) -> None: ...


class _NoGuard:
    """No guard: a ``decide`` that never returns holds its table for ever (the tests, which
    drive the clock themselves)."""

    def arm(self, seconds: float) -> None:
        pass

    def disarm(self) -> None:
        pass


NO_GUARD: Guard = _NoGuard()


@dataclass(frozen=True, slots=True)
class Streams:
    """A bot's ``sys.stdout`` and ``sys.stderr`` while its code runs."""

    stdout: TextIO
    stderr: TextIO


@dataclass(frozen=True, slots=True)
class Chosen:
    """``decide`` answered an action, with its note."""

    action: Action
    note: str = ""


@dataclass(frozen=True, slots=True)
class NoAction:
    """``decide`` answered what is no action (a fallback is played for it)."""

    why: str


@dataclass(frozen=True, slots=True)
class Raised:
    """``decide`` raised: the bot is gone, as a process that exited."""

    error: BaseException


@dataclass(frozen=True, slots=True)
class Hung:
    """``decide`` was still running when its seat would have struck out, and was stopped."""


Asked = Chosen | NoAction | Raised | Hung


class InProcessSeat:
    """One seat's in-process bot in one game: its ``decide``, its view carried from decision
    to decision, its streams and guard, and what it did that the game must know (``on_gone``:
    told when ``decide`` raised, as a process's exit is told; ``hung``)."""

    def __init__(
        self,
        decide: Decide,
        name: str,
        *,
        streams: Streams | None = None,
        guard: Guard = NO_GUARD,
        on_gone: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.decide = decide
        self.name = name
        self.streams = streams
        self.guard = guard
        self.on_gone = on_gone
        self.view: SeatView | None = None
        self.hung = False
        """Its ``decide`` was stopped for running until its seat would have struck out."""
        self.label = name
        """The seat in its stderr lines (``seat 2``, once asked)."""
        self._fallback_said = False

    def ask(self, match: Match, seat: int, legal: LegalActions, hang_s: float) -> Asked:
        """Call ``decide`` with the seat's view now (``legal`` is the open decision's); it is
        stopped (:class:`Hung`) if still running ``hang_s`` seconds from now."""
        view = self.view
        if view is None:
            view = observe(match, seat)
            self.label = f"seat {seat}"
        else:
            news = match.events_since(view.cursor, seat)
            view = follow(view, news, cursor=match.log.cursor, legal=legal)
        self.view = view
        streams = self.streams
        if streams is not None:
            saved = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = streams.stdout, streams.stderr
        guard = self.guard
        try:
            guard.arm(hang_s)
            answer = self.decide(view)
            guard.disarm()
        except Overdue:
            guard.disarm()
            self.hung = True
            return Hung()
        except (Exception, SystemExit) as err:
            guard.disarm()
            traceback.print_exception(err, file=sys.stderr)
            sys.stderr.flush()
            return Raised(err)
        finally:
            if streams is not None:
                sys.stdout, sys.stderr = saved
        if isinstance(answer, Answer):
            return Chosen(answer.action, answer.note)
        if not isinstance(answer, ACTIONS):
            return self.fell_back(
                f"decide() returned {answer!r}, which is not an action", "return one of view.legal"
            )
        return Chosen(answer)

    def refused(self, reason: str) -> None:
        """The table refused its answer (``reason``): a fallback is played for it."""
        self.fell_back(f"the arena refused decide's answer ({reason})", "answer one of view.legal")

    def fell_back(self, why: str, fix: str) -> NoAction:
        """A fallback is played for it: said on its stderr, once a game, as the SDK says it."""
        if not self._fallback_said and self.streams is not None:
            print(
                f"{self.label}: {why}; legal.default() was played for you (counted as a "
                f"fallback in the report; said once a game): {fix}",
                file=self.streams.stderr,
                flush=True,
            )
        self._fallback_said = True
        return NoAction(why)

    def gone(self, error: BaseException) -> None:
        """Its ``decide`` raised: tell the game (which forfeits it, as a crashed process)."""
        if self.on_gone is not None:
            self.on_gone(error)
