"""Where ``decide`` runs, and the deadline guard: inline on the event loop, or in a worker thread.

A decision costs least when ``decide`` is called right on the SDK's event loop (no thread
hand-off, no wake-up), but a ``decide`` that runs there long holds up every stream of the
process, and nothing can answer for it before the deadline. So :class:`Placement` decides,
once for the whole process:

* ``decide_in_thread=None`` (the default): every ``decide`` starts in a worker thread, timed;
  after :data:`PROBE` in a row that each took at most :data:`FAST_S`, the next ones run inline.
  One inline ``decide`` slower than that sends the following ones back to the thread, and
  twice as many fast ones in a row are then wanted before the next go inline (at most
  :data:`MOST_PROBE`). A quick bot (the random sample bot) plays inline; one that is slow now
  and then (the heuristic bot: a quarter of its decides take over 5 ms) or always (Monte
  Carlo) ends up in the thread, guarded.
* ``decide_in_thread=True``: always in the worker thread, always guarded. For a ``decide``
  that is usually quick but may block (on a lock, a file, the network) past its deadline.
* ``decide_in_thread=False``: always inline, never guarded.

:class:`Thinker` is one seat's worker thread and its guard: when ``decide`` has not answered
``budget_s`` after the Decision came, :meth:`Thinker.within` gives ``None`` (the seat then
sends a safe legal action, marked ``Answer.fallback``) and the late answer is dropped, never
sent.

>>> placement = Placement(None)
>>> placement.inline()
False
>>> for _ in range(PROBE):
...     placement.timed(0.0001)
>>> placement.inline()
True
>>> placement.timed(1.0)   # one slow decide: back to the guarded thread
>>> placement.inline(), placement.wanted
(False, 16)
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable

from chaodipi.bot.answer import Answer
from chaodipi.engine import Action, SeatView

__all__ = ["FAST_S", "MOST_PROBE", "PROBE", "Placement", "Thinker"]

Decide = Callable[[SeatView], Action | Answer]
"""What a bot writes: the seat's view (``view.legal`` set) in, a legal action out (or an
:class:`chaodipi.bot.answer.Answer`: the action with the bot's note)."""

PROBE = 8
"""Fast decides in a row (timed in the worker thread) before ``decide`` runs inline."""

MOST_PROBE = 1024
"""The most fast decides in a row wanted after slow ones inline (doubling from :data:`PROBE`)."""

FAST_S = 0.005
"""The longest a ``decide`` may take (wall clock) to count as fast: 5 ms, well inside any
deadline, and short enough that the process's other seats do not notice the wait."""


class Placement:
    """Whether the next ``decide`` runs inline or in the worker thread (see the module's
    docstring); one per process, shared by its seats (all on the one event loop's thread)."""

    def __init__(self, in_thread: bool | None) -> None:
        self.forced = in_thread
        self.fast_in_a_row = 0
        self.wanted = PROBE
        """Fast decides in a row wanted before ``decide`` runs inline."""

    def inline(self) -> bool:
        if self.forced is not None:
            return not self.forced
        return self.fast_in_a_row >= self.wanted

    def timed(self, seconds: float) -> None:
        """A ``decide`` took ``seconds`` (or never answered in time: ``inf``)."""
        if seconds <= FAST_S:
            self.fast_in_a_row += 1
            return
        if self.inline():  # slow where nothing guards it: be slower to trust it again
            self.wanted = min(2 * self.wanted, MOST_PROBE)
        self.fast_in_a_row = 0


_Answer = tuple[Action | Answer | BaseException, float]
_Job = tuple[Decide, SeatView, asyncio.AbstractEventLoop, "asyncio.Future[_Answer]"]


class Thinker:
    """One seat's worker thread for ``decide``, kept from one decision to the next (starting a
    thread per decision costs as much CPU as the rest of the SDK's work). A ``decide`` still
    running past its deadline keeps its thread, which ends once it returns; the next decision
    gets a new one. The threads are daemons: a hung ``decide`` never holds the process up."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] | None = None

    async def within(
        self, decide: Decide, view: SeatView, budget_s: float
    ) -> tuple[Action | Answer, float] | None:
        """``decide(view)`` in the worker thread and how long it took, or ``None`` if it has
        not answered in ``budget_s`` seconds. An exception in ``decide`` is raised here."""
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_think, args=(self._jobs,), daemon=True, name="decide").start()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[_Answer] = loop.create_future()
        self._jobs.put((decide, view, loop, answer))
        try:
            action, seconds = await asyncio.wait_for(answer, budget_s)
        except TimeoutError:
            self.close()  # its thread ends after this late decide
            return None
        if isinstance(action, BaseException):
            raise action
        return action, seconds

    def close(self) -> None:
        if self._jobs is not None:
            self._jobs.put(None)
            self._jobs = None


def _think(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while (job := jobs.get()) is not None:
        decide, view, loop, answer = job
        started = time.perf_counter()
        try:
            result: Action | Answer | BaseException = decide(view)
        except BaseException as err:  # handed to the seat's task
            result = err
        try:
            loop.call_soon_threadsafe(_settle, answer, (result, time.perf_counter() - started))
        except RuntimeError:  # the loop is closed: the bot is done, nobody waits for this
            return


def _settle(answer: asyncio.Future[_Answer], result: _Answer) -> None:
    if not answer.done():  # not given up on at the deadline
        answer.set_result(result)
