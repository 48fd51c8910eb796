"""The fake clock timer tests run on, and the WebSocket's table of message handlers."""

from __future__ import annotations

import pytest

from facedown.server.base.clock import FakeClock
from facedown.server.edge.sockets import HANDLERS
from facedown.server.transport import protocol as P


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_fake_clock_runs_due_work_in_order_at_its_own_time() -> None:
    clock = FakeClock(100.0)
    ran: list[tuple[str, float]] = []

    def note(name: str, then: float | None = None) -> None:
        async def work() -> None:
            ran.append((name, clock.now()))
            if then is not None:  # work that arms more work, as a table's timer does
                clock.call_at(clock.now() + then, lambda: _append(ran, "armed", clock))

        clock.call_at(100.0 + float(name[-1]), work)

    note("at3")
    note("at1", then=0.5)
    note("at2")
    cancelled = clock.call_at(101.2, lambda: _append(ran, "cancelled", clock))
    cancelled.cancel()
    assert clock.pending() == [101.0, 102.0, 103.0]
    await clock.advance(1.0)
    assert ran == [("at1", 101.0)]
    assert clock.now() == 101.0
    await clock.advance(1.5)
    assert ran == [("at1", 101.0), ("armed", 101.5), ("at2", 102.0)]
    assert clock.now() == 102.5
    assert clock.pending() == [103.0]


async def _append(ran: list[tuple[str, float]], name: str, clock: FakeClock) -> None:
    ran.append((name, clock.now()))


@pytest.mark.anyio
async def test_work_that_keeps_rearming_at_once_is_stopped() -> None:
    clock = FakeClock()

    async def again() -> None:
        clock.call_at(clock.now(), again)

    clock.call_at(clock.now(), again)
    with pytest.raises(RuntimeError, match="fell due"):
        await clock.advance(0)


def test_every_client_message_type_has_a_handler() -> None:
    types = {model.model_fields["type"].annotation.__args__[0] for model in HANDLERS}
    assert types == set(P.CLIENT_TYPES)
