"""A table's inbox (chaodipi.arena.serving.mailbox) on both of anyio's backends: trio under
MockClock, where the tables are tested, and asyncio, where they run. An answer that arrives
as its deadline passes is never lost; a full box refuses at once; order is kept."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
import trio.testing

from chaodipi.arena.serving.mailbox import Mailbox

BACKENDS = ["trio", "asyncio"]


def run(backend: str, main: Callable[[], Awaitable[Any]]) -> Any:
    options = {"clock": trio.testing.MockClock(autojump_threshold=0)} if backend == "trio" else {}
    return anyio.run(main, backend=backend, backend_options=options)


@pytest.mark.parametrize("backend", BACKENDS)
def test_items_come_out_in_order_and_a_full_box_refuses_at_once(backend: str) -> None:
    async def main() -> list[str]:
        box: Mailbox[str] = Mailbox(2)
        box.send_nowait("a")
        box.send_nowait("b")
        with pytest.raises(anyio.WouldBlock):
            box.send_nowait("c")
        assert len(box) == 2
        taken = [await box.receive(), box.receive_nowait()]
        with pytest.raises(anyio.WouldBlock):
            box.receive_nowait()
        return taken

    assert run(backend, main) == ["a", "b"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reader_waits_for_the_next_item_and_a_deadline_ends_the_wait(backend: str) -> None:
    """A reader with nothing in the box waits; the deadline ends the wait with nothing taken
    (on trio a 1,000 s one MockClock jumps to; asyncio has no mock clock, so there one that
    has already passed, which no wall time decides); the next item wakes the next reader."""

    async def main() -> tuple[bool, str]:
        box: Mailbox[str] = Mailbox(4)
        with anyio.move_on_after(1000 if backend == "trio" else 0) as waited:
            await box.receive()
        got: list[str] = []
        async with anyio.create_task_group() as tasks:

            async def read() -> None:
                got.append(await box.receive())

            tasks.start_soon(read)
            await anyio.sleep(0)
            box.send_nowait("answer")
        return waited.cancelled_caught, got[0]

    assert run(backend, main) == (True, "answer")


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_item_sent_as_the_deadline_passes_is_never_lost(backend: str) -> None:
    """The deadline and the answer in the same instant: the reader's scope is cancelled
    while the item is put in. Whether that read takes it or not, it is either returned or
    still in the box for the table's next look (which refuses it as late), never dropped."""

    async def main() -> list[str]:
        box: Mailbox[str] = Mailbox(4)
        taken: list[str] = []
        async with anyio.create_task_group() as tasks:

            async def read(*, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
                with anyio.CancelScope() as scope:
                    task_status.started(scope)
                    taken.append(await box.receive())

            deadline: anyio.CancelScope = await tasks.start(read)
            await anyio.sleep(0)  # the reader waits on the empty box (or is about to)
            box.send_nowait("answer")
            deadline.cancel()
        while True:
            try:
                taken.append(box.receive_nowait())
            except anyio.WouldBlock:
                return taken

    assert run(backend, main) == ["answer"]
