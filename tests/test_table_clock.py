"""A table's clocks, driven without gRPC under trio's MockClock."""

from __future__ import annotations

import trio
import trio.testing

from arena.table import Table, TableConfig
from engine.presets import PRESETS
from tests.table_support import ListPort


def test_after_a_reconnect_the_welcome_and_the_decision_say_what_is_left_of_the_clock() -> None:
    """A seat away for 5 s of an open decision (1 s per decision, 30 s bank): on its return
    the Welcome's bank and the re-sent Decision's deadline and bank are what is left now
    (0 s of the decision's own time, 26 s of bank), not the full allowances."""

    async def main() -> None:
        table = Table(
            "t", TableConfig(PRESETS["classic"], seed=5, decision_ms=1000, bank_ms=30_000)
        )
        connections = [ListPort() for _ in range(4)]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            for seat, connection in enumerate(connections):
                table.attach(seat, connection, f"bot{seat}")
            # the first seat asked to decide (the others' turns were forced)
            async with trio.open_nursery() as first:
                asked: list[int] = []

                async def wait(seat: int) -> None:
                    await connections[seat].wait_for("decision")
                    asked.append(seat)
                    first.cancel_scope.cancel()

                for seat in range(4):
                    first.start_soon(wait, seat)
            seat = asked[0]
            sent = connections[seat].of("decision")[0]
            assert (sent.deadline_ms, sent.bank_ms) == (1000, 30_000)
            table.detach(seat, connections[seat])
            await trio.sleep(5.0)
            back = ListPort()
            table.attach(seat, back, "back")
            welcome = back.of("welcome")[0]
            again = await back.wait_for("decision")
            assert welcome.resumed is True and welcome.bank_ms == 26_000
            assert again.decision_id == sent.decision_id
            assert (again.deadline_ms, again.bank_ms) == (0, 26_000)
            table.stop("the test is over")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
