"""Group commit for SQLite: one writer thread runs the writes waiting at a moment together.

SQLite has one writer at a time and, with ``synchronous=FULL``, every commit waits for the disk.
Committing writes one by one caps a server at a few hundred a second and makes each caller wait
behind every other caller's disk flush.  Here the writes queued while a commit is in flight go
together into the next transaction and reach the disk with one flush; each caller still returns
only once the commit holding its write is durable.  The batch runs on a plain (sync) SQLite
connection in a thread of its own, so a batch costs one hand-off between the event loop and a
thread rather than one per statement.

Under load the writes are also paced: while writes are in flight (handed over and not yet
answered on the loop), or the last hand-off held more than one, the event loop hands the writes
to the thread only at the next mark, ``PACE`` seconds (10 ms) after the last hand-off; so a busy
server makes about 100 commits, and disk flushes, a second, not one for every write or two.  A
flush costs the kernel far more than the statements of a few writes (on a virtual machine,
about a twentieth of a busy server's CPU at 200 flushes a second), and every hand-off wakes the
thread and then the loop again.  The price is latency: under load a write waits 5 ms for its
hand-off on average, 10 ms at most.  Otherwise (nothing in flight, and the last hand-off a single
write: a quiet server, or one caller writing again and again) a write is handed over at once,
and pacing costs it nothing.  A paced write waits at most ``PACE`` for its hand-off, even when
the thread is idle, and still returns only once its commit is durable.

A write is a function of the connection.  It may refuse with StoreError, but only before it has
changed anything (a constraint error leaves SQLite's transaction usable), so its neighbours
commit regardless.  Any other error rolls the whole batch back, and then each write is retried in
a transaction of its own, so only the write at fault fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable

from sqlalchemy.engine import Connection, Engine

from .commits import CommitMarks
from .records import StoreError

Write = Callable[[Connection], None]
Outcome = BaseException | None
_Queued = tuple[Write, "asyncio.Future[None]"]

log = logging.getLogger(__name__)

MAX_BATCH = 256  # writes per transaction: bounds how long one commit holds the lock
PACE = 0.010  # seconds between two hand-offs to the writer thread, under load


class GroupCommit:
    """The single writer of one SQLite database (see the module docstring).

    The writer thread takes the hand-offs (lists of writes) from a plain queue itself and hands
    each batch's outcomes back to the event loop in one call: a write costs the loop a future and
    a list append, a hand-off one put, not a task switch, an executor job and a future chained to
    it."""

    def __init__(
        self, engine: Engine, marks: CommitMarks | None = None, *, pace: float = PACE
    ) -> None:
        self._engine = engine
        self._marks = marks  # counts each transaction (store/commits.py)
        # Hand-offs: each a list of writes, in order; None asks the thread to stop.
        self._queue: queue.SimpleQueue[list[_Queued] | None] = queue.SimpleQueue()
        # On the loop: the writes not yet handed over, and the pacing (see the module docstring).
        self._pace = pace
        self._pending: list[_Queued] = []
        self._timer: asyncio.TimerHandle | None = None
        self._handed_at = float("-inf")  # the loop's time of the last hand-off
        self._handed = 0  # how many writes it held
        self._in_flight = 0  # writes handed over and not yet answered
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Future[None] | None = None
        # The writer thread's connection, kept from one batch to the next (a pool checkout and
        # its reset cost more than a small batch); dropped after a failed transaction.
        self._connection: Connection | None = None

    async def run(self, write: Write) -> None:
        """Run ``write`` in the next transaction; return once it is committed, or raise its error.

        A caller cancelled before its batch starts has its write dropped; one cancelled later
        cannot know whether the write was committed (as with any cancelled commit).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        if self._thread is None:
            self._start(loop)
        self._pending.append((write, future))
        if self._timer is None:
            due = self._handed_at + self._pace
            if (self._in_flight == 0 and self._handed <= 1) or due <= loop.time():
                self._hand_over()
            else:  # under load: the writes until the next pace mark go together
                self._timer = loop.call_at(due, self._hand_over)
        await future

    def _hand_over(self) -> None:
        """On the loop: give the pending writes to the writer thread, as one hand-off."""
        self._timer = None
        batch, self._pending = self._pending, []
        if not batch:
            return
        if self._loop is None:  # never: _start sets it before anything is pending
            raise RuntimeError("a hand-off before the writer started")
        self._handed_at = self._loop.time()
        self._handed = len(batch)
        self._in_flight += len(batch)
        self._queue.put(batch)

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._stopped = loop.create_future()
        self._thread = threading.Thread(
            target=self._serve, name="facedown-sqlite-writer", daemon=True
        )
        self._thread.start()

    async def close(self) -> None:
        """Commit what is queued, then stop the writer and close its connection."""
        if self._thread is not None and self._stopped is not None:
            if self._timer is not None:
                self._timer.cancel()
            self._hand_over()  # what waits for the next pace mark is committed first
            self._queue.put(None)
            await self._stopped
            self._thread.join()
            self._thread = None
        self._engine.dispose()
        if self._marks is not None:
            self._marks.close()

    def _serve(self) -> None:
        """The writer thread: batch after batch until close() queues its None."""
        try:
            stop = False
            while not stop:
                first = self._queue.get()
                if first is None:
                    return
                taken = list(first)
                while len(taken) < MAX_BATCH:  # hand-offs queued meanwhile join this one
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:  # close() was called: finish these writes, then stop
                        stop = True
                        break
                    taken.extend(more)
                for start in range(0, len(taken), MAX_BATCH):
                    chunk = taken[start : start + MAX_BATCH]
                    # A benign race: a caller cancelled from now on cannot know (see run()).
                    kept = [(write, future) for write, future in chunk if not future.cancelled()]
                    outcomes = self._commit([write for write, _ in kept]) if kept else []
                    self._hand_back(self._settle, len(chunk), kept, outcomes)
        finally:
            self._drop()
            if self._stopped is not None:
                self._hand_back(_finished, self._stopped)

    def _hand_back(self, callback: Callable[..., None], *args: object) -> None:
        """Run ``callback(*args)`` on the event loop (not at all once the loop is closed)."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(callback, *args)

    def _settle(self, taken: int, kept: list[_Queued], outcomes: list[Outcome]) -> None:
        """On the event loop: each caller of a committed batch gets its outcome (``taken``:
        the writes the thread took for it, cancelled ones included)."""
        self._in_flight -= taken
        for (_, future), outcome in zip(kept, outcomes, strict=True):
            if future.done():
                continue
            if outcome is None:
                future.set_result(None)
            else:
                future.set_exception(outcome)

    def _commit(self, writes: list[Write]) -> list[Outcome]:
        """In the writer thread: one transaction for all, or one each if that fails."""
        try:
            return self._transaction(writes)
        except Exception as error:
            if len(writes) == 1:
                return [error]
        return [self._alone(write) for write in writes]

    def _alone(self, write: Write) -> Outcome:
        try:
            [outcome] = self._transaction([write])
        except Exception as error:
            return error
        return outcome

    def _drop(self) -> None:
        """In the writer thread: close its connection (a new one is opened when needed)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _transaction(self, writes: list[Write]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        count = None
        if self._connection is None:
            self._connection = self._engine.connect()
        connection = self._connection
        try:
            with connection.begin():
                for write in writes:
                    try:
                        write(connection)
                    except StoreError as refused:
                        outcomes.append(refused)
                    else:
                        outcomes.append(None)
                if self._marks is not None:
                    count = self._marks.count(connection)
        except BaseException:
            self._drop()  # rolled back; whatever went wrong, the next batch starts afresh
            raise
        if self._marks is not None:
            try:
                self._marks.committed(count)  # only once the commit has returned
            except OSError as error:
                # The writes are committed: failing them now would have them retried, and
                # written twice.  A count file left behind raises no alarm (commits.py).
                log.warning("could not record commit %s in %s: %s", count, self._marks.path, error)
        return outcomes


def _finished(stopped: asyncio.Future[None]) -> None:
    if not stopped.done():
        stopped.set_result(None)
