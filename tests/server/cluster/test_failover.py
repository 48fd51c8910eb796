"""A short run of the failover benchmark (benchmarks/failover.py): three processes on
PostgreSQL and Redis, a kill -9 and a SIGSTOP of a table owner while its tables are played.
Every table it owned moves to another process and acknowledges an action again, and nothing
acknowledged is lost or applied twice.  (How fast is the benchmark's to print, not this test's
to judge.)"""

from __future__ import annotations

import pytest

from benchmarks import failover

from ...store.conftest import PG_SERVER

pytestmark = pytest.mark.cluster


def test_a_kill_and_a_stall_lose_nothing_and_every_table_moves_on() -> None:
    args = failover.parse_args(
        [
            "--tables",
            "6",
            "--events",
            "2",
            "--stall",
            "10",
            "--warmup",
            "3",
            "--settle",
            "12",
            "--think",
            "0.3",
            "--postgres",
            f"postgresql+asyncpg://postgres@{PG_SERVER}/test",
        ]
    )
    try:
        outcome = failover.measure(args)
    except OSError as e:  # PostgreSQL or Redis not there: the cluster tier needs both
        pytest.skip(f"no PostgreSQL or Redis on this machine: {e}")
    assert outcome.acked > 0
    assert (outcome.lost, outcome.doubled) == (0, 0)
    assert [e.kind for e in outcome.events] == [failover.KILL, failover.STOP]
    for event in outcome.events:
        assert event.tables, "the signalled process owned no table"
        assert event.moved == len(event.tables), event
        assert event.unanswered == 0, event.stuck
