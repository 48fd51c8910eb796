"""Claims: how the lobby comes to serve a table, and how it stops.

A table is served by the one process that holds its lease (:mod:`..cluster.ownership`; on a
single process, always this one).  Claiming a table takes its lease and loads it, one claim of a
table at a time (:class:`.locks.KeyedLocks`); or names the process that owns it
(:class:`Elsewhere`).  A new table's id is reserved under its lease before its record is stored.
In a cluster, the tables nobody owns are adopted in turns, and tables are handed over to even
out the load, as :class:`~..cluster.sharing.Sharing` decides.
"""

from __future__ import annotations

import logging
import uuid
from typing import Protocol

from ...store import ACTIVE_STATUSES, Lease, Store, StoreError, TableRecord
from ..base.errors import TableError
from ..cluster.ownership import Ownership
from ..cluster.sharing import Sharing
from ..transport.hub import Hub
from . import seating
from .context import TableContext
from .locks import KeyedLocks
from .table import Table

log = logging.getLogger(__name__)


def unavailable(code: str) -> TableError:
    return TableError(
        "table_unavailable",
        f"table {code.upper()} could not be restored from storage and is not being served",
    )


class Elsewhere:
    """A table another process of the cluster owns: its record as stored, and that process."""

    def __init__(self, record: TableRecord, owner: str) -> None:
        self.record = record
        self.owner = owner

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def code(self) -> str:
        return self.record.code

    def seat_of(self, player_id: str) -> int | None:
        return seating.seat_of(self.record, player_id)


class Serving(Protocol):
    """What claims need of the lobby: the tables it serves, loading one, and letting one go."""

    tables: dict[str, Table]

    def expired(self, record: TableRecord) -> bool:
        """Whether the table has expired (it is not served)."""

    async def close_expired(self, record: TableRecord) -> None:
        """Mark an expired table closed in the store."""

    async def load(self, record: TableRecord, lease: Lease | None, *, fresh: bool = False) -> Table:
        """Rebuild a table from the store and serve it here (``fresh``: its log is empty)."""

    async def stop_serving(self, table: Table) -> None:
        """Serve the table here no more."""

    def send_away(self, table_id: str) -> None:
        """Tell the table's clients here to reconnect (another process serves it)."""


class Claims:
    """The claims of one lobby on its tables (see the module docstring)."""

    def __init__(self, lobby: Serving, ctx: TableContext, sharing: Sharing) -> None:
        self.lobby = lobby
        self.ctx = ctx
        self.store: Store = ctx.store
        self.hub: Hub = ctx.hub
        self.ownership: Ownership = ctx.ownership
        self.sharing = sharing
        self.locks = KeyedLocks()  # table id -> held while it is claimed

    async def claim(self, record: TableRecord) -> Table | Elsewhere:
        """The table loaded here under its lease, or the process that owns it."""
        async with self.locks.hold(record.id):  # one claim of a table at a time
            table = self.lobby.tables.get(record.id)
            if table is not None:
                return table
            if record.status == "broken":
                return await self.lobby.load(record, None)  # refused, as broken
            if self.sharing.handed_lately(record.id):
                successor = await self.sharing.successor(record.id)
                if successor is not None:  # a client of the table back here: relayed to it
                    return Elsewhere(record, successor)
            claim = await self.ownership.claim(record.id)
            if not claim.held:
                if claim.owner is None:  # never: a lease is held or takeable
                    raise unavailable(record.code)
                return Elsewhere(record, claim.owner)
            if self.ownership.clustered:
                # The previous owner may have changed it since it was read: read it again.
                record = await self.store.get_table(record.id) or record
            return await self.lobby.load(record, claim.lease)

    async def take_unowned(self, table_id: str) -> bool:
        """Take one unowned table a look found: True when it is served here now."""
        try:
            record = await self.store.get_table(table_id)
            if record is None or record.status not in ACTIVE_STATUSES:
                return False
            if self.lobby.expired(record):
                await self.lobby.close_expired(record)
                return False
            return isinstance(await self.claim(record), Table)
        except TableError:
            return False
        except StoreError as e:
            log.warning("cluster: taking table %s failed: %s", table_id, e)
            return False

    async def reserve(self) -> tuple[str, Lease | None]:
        """A new table's id, its lease already taken (see ``Lobby.reserve``)."""
        table_id = uuid.uuid4().hex
        claim = await self.ownership.claim(table_id)
        if not claim.held:  # never: nobody else knows this id yet
            raise TableError("table_unavailable", "the new table could not be claimed")
        return table_id, claim.lease

    async def adopt(
        self, record: TableRecord, lease: Lease | None, *, fresh: bool = False
    ) -> Table:
        """Serve a table just written to the store under a reserved id (``fresh``: nothing but
        its record was written)."""
        async with self.locks.hold(record.id):
            return await self.lobby.load(record, lease, fresh=fresh)

    # ------------------------------------------------------------------ rebalancing
    def owned(self) -> int:
        """The active tables this process serves (what its heartbeats tell the others)."""
        return sum(t.record.status in ACTIVE_STATUSES for t in self.lobby.tables.values())

    async def rebalance(self) -> int:
        """One period's rebalancing (:meth:`.Sharing.to_hand_over`): returns how many tables
        were handed over."""
        active = [t for t in self.lobby.tables.values() if t.record.status in ACTIVE_STATUSES]
        active.sort(key=lambda t: (t.last_write, t.id))  # the longest untouched first
        chosen, everyone = self.sharing.to_hand_over(
            active, self.owned(), lambda t: not self.hub.subscribers(t.id)
        )
        handed = 0
        for table in chosen:
            handed += await self.hand_over(table, connected=everyone)
        if handed:
            log.info("cluster: handed %d tables over (this process owns %d)", handed, self.owned())
        return handed

    async def hand_over(self, table: Table, *, connected: bool = False) -> bool:
        """Stop serving the table here and let its lease go at once, for another process to
        take (its clients, with ``connected``, are told to reconnect; without, a table someone
        connected to meanwhile stays).  Nothing is lost: it is taken with every write this
        process made, and a write of this process after the takeover would be refused."""
        async with self.locks.hold(table.id):
            if self.lobby.tables.get(table.id) is not table:
                return False  # dropped meanwhile
            async with table.lock:  # no command of the table is under way here
                if not connected and self.hub.subscribers(table.id):
                    return False
                self.sharing.handed(table.id)
                await self.lobby.stop_serving(table)
                try:
                    await self.ownership.release(table.id)
                except StoreError as e:  # not renewed: it is takeable once it runs out
                    log.warning("cluster: the lease of table %s was not let go: %s", table.id, e)
        self.ctx.metrics.handovers.inc()
        self.lobby.send_away(table.id)
        return True
