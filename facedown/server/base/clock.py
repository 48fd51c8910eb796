"""The time a table runs on: the wall clock in a server, a clock that tests move by hand.

A :class:`Clock` tells the time (unix seconds: deadlines are sent to clients as such) and runs
work at a given time.  :class:`SystemClock` does it with the event loop; :class:`FakeClock` runs
due work only when a test calls :meth:`FakeClock.advance`, so a timer test takes no real time
and sees the same order of events on every run.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

Work = Callable[[], Coroutine[Any, Any, None]]


class Alarm(Protocol):
    def cancel(self) -> None:
        """Do not run the work (no effect once it has started)."""


class Clock(Protocol):
    def now(self) -> float:
        """The time, in unix seconds."""

    def call_at(self, when: float, work: Work) -> Alarm:
        """Run ``work()`` at ``when`` (at once when that has passed)."""


class SystemClock:
    """The wall clock; work runs as a task of the running event loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()  # started work, held until it is done

    def now(self) -> float:
        return time.time()

    def call_at(self, when: float, work: Work) -> Alarm:
        loop = asyncio.get_running_loop()
        return loop.call_later(max(0.0, when - self.now()), self._start, work)

    def _start(self, work: Work) -> None:
        task = asyncio.get_running_loop().create_task(work())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


@dataclass(order=True)
class _Due:
    when: float
    order: int
    work: Work = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock for tests: time stands still until :meth:`advance` moves it."""

    LIMIT = 100_000  # work run by one advance: more means something re-arms itself forever

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._due: list[_Due] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, work: Work) -> Alarm:
        due = _Due(when, next(self._order), work)
        heapq.heappush(self._due, due)
        return due

    def pending(self) -> list[float]:
        """When the armed work is due, earliest first."""
        return sorted(d.when for d in self._due if not d.cancelled)

    async def advance(self, seconds: float = 0.0) -> None:
        """Move time on by ``seconds``: run each piece of work that falls due on the way, in
        order, at its own time, to its end (the work it arms runs too when due by then)."""
        end = self._now + seconds
        for _ in range(self.LIMIT):
            while self._due and self._due[0].cancelled:
                heapq.heappop(self._due)
            if not self._due or self._due[0].when > end:
                break
            due = heapq.heappop(self._due)
            self._now = max(self._now, due.when)
            await due.work()
        else:
            raise RuntimeError(f"more than {self.LIMIT} timers fell due in one advance")
        self._now = max(self._now, end)
