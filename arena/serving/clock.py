"""The running event loop's clock as a plain function, found once.

``anyio.current_time()`` finds the running backend on each call; a table
reads its clock four times a decision, so it finds the clock once, as its match starts
(:func:`loop_clock`), and calls that. It is the very clock anyio reads: the asyncio loop's
``time``, or trio's ``current_time`` (under ``trio.testing.MockClock``, the mock clock).

>>> import asyncio, anyio, trio, trio.testing
>>> async def the_loops_own() -> bool:
...     return loop_clock() == asyncio.get_running_loop().time
>>> anyio.run(the_loops_own)
True
>>> async def five_seconds_on() -> float:
...     await trio.sleep(5)
...     return loop_clock()()
>>> trio.run(five_seconds_on, clock=trio.testing.MockClock(autojump_threshold=0))
5.0
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["loop_clock"]


def loop_clock() -> Callable[[], float]:
    """The running loop's clock (what ``anyio.current_time()`` reads); call it in a task of
    an asyncio loop, or of trio's (which sets no asyncio loop running)."""
    try:
        return asyncio.get_running_loop().time
    except RuntimeError:
        import trio  # the tables run on trio only in tests, where trio is installed

        trio.current_time()  # outside trio too: RuntimeError, "must be called from async context"
        return trio.current_time
