"""Ctrl-C and SIGTERM, handled one way by every command that plays or serves.

:func:`stop_on_signals` runs as a task beside the work: at the first SIGINT or SIGTERM it calls
``stop()``, which cancels the work (the tournament driver: the games in flight are dropped,
exit code 130) or ends it early (``arena serve``: every table stops and still reports its
result). Then the signals are Python's again: a second Ctrl-C while the work winds down is a
``KeyboardInterrupt``, the way to force a stuck process out.

Only the main thread can receive signals: anywhere else this waits and does nothing (a run in
a worker thread is stopped by its caller). Code run inside a Ray task must not use it: Ray owns
SIGTERM in its workers.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

import anyio
import anyio.abc

__all__ = ["STOP_SIGNALS", "stop_on_signals"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def stop_on_signals(
    stop: Callable[[], None], *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """Call ``stop()`` at the first SIGINT or SIGTERM. Start it with ``await
    nursery.start(stop_on_signals, stop)``: the signals are this task's from then on, until
    one comes or the nursery cancels it.

    >>> async def main() -> None:
    ...     async with anyio.create_task_group() as nursery:
    ...         def stop() -> None:
    ...             print("stopping")
    ...             nursery.cancel_scope.cancel()
    ...         await nursery.start(stop_on_signals, stop)
    ...         signal.raise_signal(signal.SIGTERM)
    ...         await anyio.sleep_forever()
    >>> anyio.run(main)
    stopping
    """
    if threading.current_thread() is not threading.main_thread():
        task_status.started()
        await anyio.sleep_forever()
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        task_status.started()
        async for _ in signals:
            break
    stop()
