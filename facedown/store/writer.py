"""Group commit for SQLite: one writer thread runs the writes waiting at a moment together.

SQLite has one writer at a time and, with ``synchronous=FULL``, every commit waits for the disk.
Committing writes one by one caps a server at a few hundred a second and makes each caller wait
behind every other caller's disk flush.  Here the writes queued while a commit is in flight go
together into the next transaction and reach the disk with one flush; each caller still returns
only once the commit holding its write is durable.  The batch runs on a plain (sync) SQLite
connection in a thread of its own, so a batch costs one hand-off between the event loop and a
thread rather than one per statement.

A write is a function of the connection.  It may refuse with StoreError, but only before it has
changed anything (a constraint error leaves SQLite's transaction usable), so its neighbours
commit regardless.  Any other error rolls the whole batch back, and then each write is retried in
a transaction of its own, so only the write at fault fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.engine import Connection, Engine

from .base import StoreError
from .commits import CommitMarks

Write = Callable[[Connection], None]
Outcome = BaseException | None
_Queued = tuple[Write, "asyncio.Future[None]"]

MAX_BATCH = 256  # writes per transaction: bounds how long one commit holds the lock


class GroupCommit:
    """The single writer of one SQLite database (see the module docstring)."""

    def __init__(self, engine: Engine, marks: CommitMarks | None = None) -> None:
        self._engine = engine
        self._marks = marks  # counts each transaction (store/commits.py)
        self._queue: asyncio.Queue[_Queued | None] = asyncio.Queue()
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="facedown-sqlite-writer")
        self._task: asyncio.Task[None] | None = None
        # The writer thread's connection, kept from one batch to the next (a pool checkout and
        # its reset cost more than a small batch); dropped after a failed transaction.
        self._connection: Connection | None = None

    async def run(self, write: Write) -> None:
        """Run ``write`` in the next transaction; return once it is committed, or raise its error.

        A caller cancelled before its batch starts has its write dropped; one cancelled later
        cannot know whether the write was committed (as with any cancelled commit).
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((write, future))
        if self._task is None:
            self._task = asyncio.create_task(self._serve(), name="facedown-sqlite-writer")
        await future

    async def close(self) -> None:
        """Commit what is queued, then stop the writer and close its connection."""
        if self._task is not None:
            self._queue.put_nowait(None)
            await self._task
            self._task = None
        await asyncio.get_running_loop().run_in_executor(self._thread, self._drop)
        self._thread.shutdown(wait=True)
        self._engine.dispose()
        if self._marks is not None:
            self._marks.close()

    async def _serve(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < MAX_BATCH and not self._queue.empty():
                queued = self._queue.get_nowait()
                if queued is None:  # close() was called: finish this batch, then stop
                    self._queue.put_nowait(None)
                    break
                batch.append(queued)
            batch = [(write, future) for write, future in batch if not future.cancelled()]
            if not batch:
                continue
            writes = [write for write, _ in batch]
            outcomes = await loop.run_in_executor(self._thread, self._commit, writes)
            for (_, future), outcome in zip(batch, outcomes, strict=True):
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
            self._marks.committed(count)  # only once the commit has returned
        return outcomes
