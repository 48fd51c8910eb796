"""Which process owns each table: alone, or by a lease in the shared database (a cluster).

One process on its own database (the default: SQLite in the data folder) owns every table; its
writes carry no lease (:class:`SoleOwner`).  In a cluster every table has a lease in the store
(:class:`LeaseOwnership`): taken by a conditional write, renewed by the process that holds it
every third of ``seconds``, and fenced, so a write of a process whose lease was taken over is
refused in its own transaction (``LeaseLost``), however long that process was stalled.

A process also stops *serving* a table (reads included) once it could not renew its lease in
time: ``holds`` is judged on this process's monotonic clock from the moment each renewal was
asked, so it errs towards letting go early, never late.

A process that owns clearly more tables than its share of the cluster hands a few over now and
then (:class:`Rebalance`, :func:`surplus`; the lobby does it): it lets their leases go at once
(:meth:`Ownership.release`), and the others' looks for tables nobody owns take them.

Work that must run once per cluster (ranked matchmaking, turn-based deadlines, a sweep) takes a
lease by name: :meth:`Ownership.run_once`.  Exactly one process runs it at a time, another
takes it over within about ``seconds`` of that process's death, and the work receives the
lease to fence its own writes with (None on a single process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ...store import Lease, LeaseBusy, Store, StoreError, table_lease

log = logging.getLogger(__name__)

ONCE_LEASE = "once:"  # the lease of a once-per-cluster job is named ONCE_LEASE + its name
LEASE_SECONDS = 5.0  # how long a lease lasts without renewal (the takeover time after a crash)
BUSY_RETRY = 0.1  # seconds before a claim tries again a lease whose row a stalled write locks

OnceWork = Callable[[Lease | None], Coroutine[Any, Any, None]]
Lost = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming a table: held here (with its lease, None on a single process), or
    held by ``owner`` (None: nobody could be found, try again)."""

    held: bool
    lease: Lease | None = None
    owner: str | None = None


class Once:
    """A once-per-cluster job under way; :meth:`stop` ends it (and lets its lease go)."""

    def __init__(self, task: asyncio.Task[None]) -> None:
        self.task = task

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


class Ownership(Protocol):
    node: str
    clustered: bool

    async def claim(self, table_id: str) -> Claim:
        """Take the table's lease for this process (or learn who holds it)."""

    def holds(self, table_id: str) -> bool:
        """This process holds the table's lease now (judged on its own clock, early)."""

    async def confirm(self, table_id: str) -> bool:
        """True when this process still holds the lease, renewing it if need be."""

    def forget(self, table_id: str) -> None:
        """Stop renewing the table's lease (the table was dropped here)."""

    async def release(self, table_id: str) -> None:
        """Stop renewing the table's lease and let it go now: another process may take it at
        once (the table was handed over; StoreError when the store did not take it, and the
        lease then runs out by itself)."""

    def start(self, lost: Lost) -> None:
        """Renew what is held; ``lost(table_id)`` is awaited for each lease that could not be."""

    async def close(self) -> None:
        """Stop renewing and let every lease go at once (a graceful stop hands tables over)."""

    def run_once(self, name: str, work: OnceWork) -> Once:
        """Run ``work(lease)`` in exactly one process of the cluster at a time (see module)."""


class SoleOwner:
    """One process: it owns every table, and its writes need no fence."""

    node = "sole"
    clustered = False

    async def claim(self, table_id: str) -> Claim:
        return Claim(True)

    def holds(self, table_id: str) -> bool:
        return True

    async def confirm(self, table_id: str) -> bool:
        return True

    def forget(self, table_id: str) -> None:
        return None

    async def release(self, table_id: str) -> None:
        return None

    def start(self, lost: Lost) -> None:
        return None

    async def close(self) -> None:
        return None

    def run_once(self, name: str, work: OnceWork) -> Once:
        return Once(asyncio.get_running_loop().create_task(work(None)))


class LeaseOwnership:
    """Table leases in the shared store (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        node: str,
        seconds: float = LEASE_SECONDS,
        alive: Callable[[str], bool] | None = None,
        on_takeover: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.node = node
        self.clustered = True
        self.seconds = seconds
        # Whether another process lives (cluster heartbeats): a dead owner's lease is waited
        # out by whoever needs the table, rather than refused.
        self.alive = alive or (lambda _node: True)
        self._held: dict[str, Lease] = {}
        self._until: dict[str, float] = {}  # table id -> monotonic time the lease surely lasts
        self._task: asyncio.Task[None] | None = None
        self._lost: Lost | None = None
        self._on_takeover = on_takeover or (lambda: None)  # a lease taken from another process

    @property
    def margin(self) -> float:
        """Let go this long before the lease could expire (a renewal in flight, a slow loop)."""
        return self.seconds / 5

    def lease(self, table_id: str) -> Lease | None:
        return self._held.get(table_id)

    def held(self) -> list[str]:
        return list(self._held)

    async def claim(self, table_id: str) -> Claim:
        name = table_lease(table_id)
        deadline = time.monotonic() + self.seconds + 2 * self.margin
        while True:
            asked = time.monotonic()
            busy = False
            try:
                lease = await self.store.take_lease(name, self.node, self.seconds)
            except LeaseBusy:
                # A write under way holds the lease's row: a stalled owner's open transaction,
                # which the database ends within seconds.  Never wait on it: look again soon.
                lease, busy = None, True
            if lease is not None:
                if table_id not in self._held and lease.fence > 1:
                    self._on_takeover()
                self._held[table_id] = lease
                self._until[table_id] = asked + self.seconds
                return Claim(True, lease)
            found = await self.store.get_lease(name)
            if found is None or not found[1]:
                if time.monotonic() >= deadline:
                    return Claim(False)  # the row stayed locked: the caller tries again later
                if busy:
                    await asyncio.sleep(BUSY_RETRY)
                continue  # it expired between the two statements (or was busy): take it now
            owner = found[0].owner
            if self.alive(owner) or time.monotonic() >= deadline:
                return Claim(False, owner=owner)
            # Its owner is gone but its lease runs on: wait it out, then take the table.
            await asyncio.sleep(min(0.25, max(0.0, found[0].expires_at - time.time())) + 0.05)

    def holds(self, table_id: str) -> bool:
        until = self._until.get(table_id)
        return until is not None and time.monotonic() < until - self.margin

    async def confirm(self, table_id: str) -> bool:
        if self.holds(table_id):
            return True
        held = self._held.get(table_id)
        if held is None:
            return False
        asked = time.monotonic()
        try:
            lease = await self.store.take_lease(held.name, self.node, self.seconds)
        except StoreError:
            return False
        if lease is None or lease.fence != held.fence:
            return False  # taken over meanwhile (a retake of our own keeps the fence)
        self._until[table_id] = asked + self.seconds
        return True

    def forget(self, table_id: str) -> None:
        self._held.pop(table_id, None)
        self._until.pop(table_id, None)

    async def release(self, table_id: str) -> None:
        held = self._held.get(table_id)
        self.forget(table_id)
        if held is not None:
            await self.store.release_leases(self.node, [held.name])

    def start(self, lost: Lost) -> None:
        self._lost = lost
        self._task = asyncio.get_running_loop().create_task(self._renew_loop())

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self.seconds / 3)
            await self.renew()

    async def renew(self) -> None:
        """Renew every lease held; the tables whose lease is gone (or could not be renewed in
        time) are given up."""
        if not self._held:
            return
        asked = time.monotonic()
        names = {table_lease(t): t for t in self._held}
        try:
            renewed = await self.store.renew_leases(self.node, list(names), self.seconds)
        except StoreError as e:
            log.warning("cluster: leases could not be renewed: %s", e)
            renewed = None
        gone: list[str] = []
        for name, table_id in names.items():
            if renewed is not None and name in renewed:
                self._until[table_id] = asked + self.seconds
            elif renewed is not None or not self.holds(table_id):
                gone.append(table_id)
        for table_id in gone:
            log.warning("cluster: the lease of table %s is lost: this process lets it go", table_id)
            self.forget(table_id)
            if self._lost is not None:
                await self._lost(table_id)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        names = [table_lease(t) for t in self._held]
        self._held.clear()
        self._until.clear()
        with contextlib.suppress(StoreError):
            await self.store.release_leases(self.node, names)

    # ------------------------------------------------------------------ once per cluster
    def run_once(self, name: str, work: OnceWork) -> Once:
        return Once(asyncio.get_running_loop().create_task(self._once(ONCE_LEASE + name, work)))

    async def _once(self, name: str, work: OnceWork) -> None:
        while True:
            asked = time.monotonic()
            try:
                lease = await self.store.take_lease(name, self.node, self.seconds)
            except StoreError as e:
                log.warning("cluster: lease %s could not be taken: %s", name, e)
                lease = None
            if lease is None:
                await asyncio.sleep(self.seconds / 3)
                continue
            running = asyncio.get_running_loop().create_task(work(lease))
            try:
                await self._keep(name, lease, asked, running)
            finally:
                if not running.done():
                    running.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await running
                with contextlib.suppress(StoreError):
                    await self.store.release_leases(self.node, [name])
            if running.done() and not running.cancelled() and running.exception() is None:
                return  # the work finished by itself

    async def _keep(
        self, name: str, lease: Lease, asked: float, running: asyncio.Task[None]
    ) -> None:
        """Renew ``lease`` while ``running`` runs; return when it ends or the lease is lost."""
        until = asked + self.seconds
        while not running.done():
            await asyncio.wait({running}, timeout=self.seconds / 3)
            if running.done():
                return
            asked = time.monotonic()
            try:
                if name in await self.store.renew_leases(self.node, [name], self.seconds):
                    until = asked + self.seconds
                    continue
                log.warning("cluster: lease %s was taken over: its work stops here", name)
                return
            except StoreError as e:
                log.warning("cluster: lease %s could not be renewed: %s", name, e)
            if time.monotonic() >= until - self.margin:
                return


def share(unowned: int, nodes: int) -> int:
    """How many of ``unowned`` tables one of ``nodes`` processes takes per look."""
    return max(1, math.ceil(unowned / max(1, nodes)))


RebalanceTables = Literal["idle", "all", "off"]


@dataclass(frozen=True)
class Rebalance:
    """When a process of a cluster hands tables over to the others (docs/server.md).

    Every ``every`` seconds a process that owns more than its fair share (all active tables,
    owned or waiting to be taken, over the live processes, rounded up) plus ``margin`` hands
    over up to ``batch`` of them, down to that share.  ``tables``: ``idle`` moves only tables
    nobody is connected to; ``all`` moves those first, then tables with clients (they are told
    to reconnect, and resync); ``off`` moves none."""

    tables: RebalanceTables = "idle"
    every: float = 5.0
    margin: int = 2
    batch: int = 8

    @property
    def on(self) -> bool:
        return self.tables != "off"


def fair_share(mine: int, others: Sequence[int], unowned: int) -> int:
    """The tables each of the live processes would own were they spread evenly: this one's
    ``mine``, the other live processes' ``others``, and the ``unowned`` waiting to be taken."""
    return math.ceil((mine + sum(others) + unowned) / (len(others) + 1))


def surplus(mine: int, others: Sequence[int], unowned: int, margin: int) -> int:
    """How many of its ``mine`` tables a process hands over: none while it owns at most its
    fair share plus ``margin`` (alone, it owns them all), else as many as take it down to its
    share.  Then another process owns less than its share: the handed tables are for it."""
    if not others:
        return 0
    fair = fair_share(mine, others, unowned)
    return mine - fair if mine > fair + margin else 0
