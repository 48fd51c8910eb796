"""The lobby: the tables this process serves, found by code, made, brought back after a restart.

A table is made as :mod:`.creation` says, expires as :mod:`.expiry` says, and is claimed (under
its lease, in a cluster), adopted and handed over by the lobby's :class:`.claims.Claims`, as the
cluster's :class:`~..cluster.sharing.Sharing` decides.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...store import Lease, SeatRecord, StoreError, TableRecord
from ..base.clock import Alarm
from ..base.errors import TableError
from ..base.testhooks import DealJson
from ..cluster.ownership import Rebalance
from ..cluster.sharing import Sharing
from ..modes.modes import TableSettings
from .claims import Claims, Elsewhere, unavailable
from .context import TableContext
from .creation import checked_rules, seat_records, store_new, with_deal
from .expiry import close_expired, expired, sweep_every
from .table import Table

__all__ = ["MOVED", "Elsewhere", "Lobby"]

MAX_DAMAGE = 1000  # characters of a rebuild's error kept with a broken table
MOVED = 1012  # close code for a client whose table moved to another process: reconnect

log = logging.getLogger(__name__)


class Lobby:
    """Owns the live tables of this process (each table has exactly one owner)."""

    def __init__(
        self,
        ctx: TableContext,
        live_nodes: Callable[[], int] | None = None,
        loads: Callable[[], dict[str, int]] | None = None,
        rebalance: Rebalance | None = None,
    ) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self.hub = ctx.hub
        self.ownership = ctx.ownership
        self.tables: dict[str, Table] = {}
        self._by_code: dict[str, str] = {}
        self.broken: dict[str, str] = {}  # code -> id of a stored table that could not be rebuilt
        self._loading = asyncio.Lock()
        self._sweep: Alarm | None = None
        self._scan: asyncio.Task[None] | None = None
        self.sharing = Sharing(ctx.store, ctx.ownership, live_nodes, loads, rebalance)
        self.claims = Claims(self, ctx, self.sharing)

    async def recover(self) -> int:
        """Load every table that was in the lobby or playing (after a crash, games resume);
        returns how many.  A table that cannot be rebuilt is logged (with the error, once) and
        marked broken in the store; every broken table, new or from an earlier start, is named
        in a warning, and is neither served nor tried again."""
        count = 0
        if self.ownership.clustered:  # the tables nobody owns are taken in turns (Sharing.run)
            self.ownership.start(self.drop)
            run = self.sharing.run(self.tables, self.claims.take_unowned, self.claims.rebalance)
            self._scan = asyncio.get_running_loop().create_task(run)
        for record in [] if self.ownership.clustered else await self.store.active_tables():
            if self.expired(record):
                await self.close_expired(record)
                continue
            with contextlib.suppress(TableError):
                await self.load(record, None)
                count += 1
        for record in await self.store.broken_tables():
            self.broken[record.code.upper()] = record.id
            log.warning(
                "table %s (code %s) is broken and not served: %s",
                record.id,
                record.code,
                record.damage or "no reason stored",
            )
        self._arm_sweep()
        return count

    # ------------------------------------------------------------------ expiry
    def expired(self, record: TableRecord) -> bool:
        return expired(record, self.ctx.config, self.ctx.clock.now())

    async def close_expired(self, record: TableRecord, lease: Lease | None = None) -> None:
        await close_expired(self.store, record, self.ctx.clock.now(), lease)

    def _arm_sweep(self) -> None:
        every = sweep_every(self.ctx.config)
        self._sweep = self.ctx.clock.call_at(self.ctx.clock.now() + every, self.sweep)

    async def sweep(self) -> None:
        """Close the loaded tables that expired (lobbies, pass-and-play tables): they are dropped,
        and not served again."""
        try:
            for table in list(self.tables.values()):
                async with table.lock:
                    if not self.expired(table.record):
                        continue
                    if table.record.status != "finished":
                        await self.close_expired(table.record, table.lease)
                        table.record = replace(table.record, status="closed")
                        table.publish_table()  # whoever waits there sees it closed
                await table.close()
                async with self._loading:
                    self.tables.pop(table.record.id, None)
                    self._by_code.pop(table.record.code.upper(), None)
        finally:
            self._arm_sweep()

    # ------------------------------------------------------------------ serving
    async def load(self, record: TableRecord, lease: Lease | None, *, fresh: bool = False) -> Table:
        """Rebuild a table from its record and log and serve it here (a table that cannot be
        rebuilt is marked broken, and refused); ``fresh``: just stored, its log not read."""
        if record.status == "broken":
            self.broken[record.code.upper()] = record.id
            raise unavailable(record.code)
        try:
            table = await Table.load(record, self.ctx, lease, fresh=fresh)
        except Exception as e:  # a rebuild can fail in any way its stored data allows
            damage = f"{type(e).__name__}: {e}"[:MAX_DAMAGE]
            log.error(
                "table %s (code %s) could not be rebuilt and is not served: %s",
                record.id,
                record.code,
                damage,
                exc_info=True,
            )
            self.broken[record.code.upper()] = record.id
            await self._mark_broken(record, damage, lease)
            raise unavailable(record.code) from None
        table.on_lost = lambda: self.drop(record.id)
        self.sharing.served_again(record.id)  # (nobody took it in time)
        self.tables[record.id] = table
        self._by_code[record.code.upper()] = record.id
        return table

    async def _mark_broken(self, record: TableRecord, damage: str, lease: Lease | None) -> None:
        """Keep the table, with why, for an operator; it is not loaded again (see recover)."""
        broken = replace(record, status="broken", damage=damage, updated_at=self.ctx.clock.now())
        try:
            await self.store.update_table(broken, lease=lease)
        except StoreError as e:
            log.error("table %s could not be marked broken: %s", record.id, e)

    async def served(self, table_id: str) -> Table | None:
        """The table if served here, once a claim of it under way here has ended (None: owned
        elsewhere, or by nobody): another process relays here as soon as the lease is held."""
        table = self.tables.get(table_id)
        if table is None:
            async with self.claims.locks.hold(table_id):
                table = self.tables.get(table_id)
        if table is None or not self.ownership.holds(table_id):
            return None
        return table

    async def drop(self, table_id: str) -> None:
        """This process no longer owns the table (its lease was lost): stop serving it here.
        Its clients are told to reconnect; wherever they land, the new owner serves them."""
        self.ownership.forget(table_id)
        table = self.tables.get(table_id)
        if table is None:
            return
        await self.stop_serving(table)
        self.send_away(table_id)

    async def stop_serving(self, table: Table) -> None:
        self.tables.pop(table.record.id, None)
        self._by_code.pop(table.record.code.upper(), None)
        await table.close()

    def send_away(self, table_id: str) -> None:
        """The table's clients here are told to reconnect: the new owner serves them."""
        for subscriber in self.hub.subscribers(table_id):
            subscriber.close(MOVED, "the table moved to another server: reconnect")

    # ------------------------------------------------------------------ finding
    async def find(self, code: str) -> Table:
        """The table with this code, loaded here from the store when needed (TableError
        ``cluster_unavailable`` when another process of a cluster owns it)."""
        found = await self.locate(code)
        if isinstance(found, Elsewhere):
            raise TableError("cluster_unavailable", f"table {code.upper()} is served elsewhere")
        return found

    async def locate(self, code: str) -> Table | Elsewhere:
        """The table with this code, loaded from the store when needed (in a cluster: unless
        another process owns it, then that process)."""
        key = code.strip().upper()
        table_id = self._by_code.get(key)
        if table_id is not None:
            if await self.ownership.confirm(table_id):
                return self.tables[table_id]
            await self.drop(table_id)  # its lease is gone: whoever owns it now serves it
        if key in self.broken:
            raise unavailable(key)
        record = await self.store.find_by_code(key)
        if record is None:
            raise TableError("unknown_table", f"there is no table {code!r}")
        if record.status == "closed" or self.expired(record):
            raise TableError("table_closed", f"table {key} is closed")
        return await self.claims.claim(record)

    # ------------------------------------------------------------------ a cluster
    def owned(self) -> int:
        """The active tables this process serves (what its heartbeats tell the others)."""
        return self.claims.owned()

    def surplus(self) -> int:
        """How many tables this process would hand over now (0: it owns about its share)."""
        return self.sharing.surplus(self.owned())

    async def hand_over(self, table: Table, *, connected: bool = False) -> bool:
        """Let another process take the table now (:meth:`.Claims.hand_over`)."""
        return await self.claims.hand_over(table, connected=connected)

    # ------------------------------------------------------------------ new tables
    async def create(
        self,
        host_id: str,
        host_name: str,
        preset: str,
        options: dict[str, Any],
        seats: int,
        settings: TableSettings,
        bots: list[str | None],
        *,
        seed: int | None = None,
        deal: DealJson | None = None,
    ) -> Table:
        """Open a table with the host in seat 0; ``options``, the ruleset fields the host
        changes, are checked by :func:`.creation.checked_rules`.  ``seed`` and ``deal`` are test
        hooks (refused unless enabled): a chosen seed, a stacked first deal."""
        rules = checked_rules(preset, options, seats, bots, deal, settings)
        seated = seat_records(host_id, host_name, seats, bots)
        settings, now = with_deal(settings, deal), self.ctx.clock.now()
        return await self.adopt(
            *await store_new(self, preset, rules, host_id, settings, seated, seed, now), fresh=True
        )

    async def create_started(
        self,
        players: list[tuple[str, str]],
        preset: str,
        options: dict[str, Any],
        settings: TableSettings,
        *,
        seed: int | None = None,
        deal: DealJson | None = None,
    ) -> Table:
        """Open a table of people only, seated in the order of ``players`` (player id, name),
        and start its match at once (a pass-and-play table: everyone is at the device).  The
        first player is the host.  ``seed`` and ``deal`` are the test hooks of :meth:`create`."""
        rules = checked_rules(preset, options, len(players), [], deal, settings)
        seated = [SeatRecord(i, "human", name, pid) for i, (pid, name) in enumerate(players)]
        host_id, settings, now = players[0][0], with_deal(settings, deal), self.ctx.clock.now()
        table = await self.adopt(
            *await store_new(self, preset, rules, host_id, settings, seated, seed, now)
        )
        await table.start(host_id)
        return table

    async def reserve(self) -> tuple[str, Lease | None]:
        """A new table's id, its lease already taken (else another process looking for tables
        nobody owns could take it before this one loads it): the caller stores the record,
        then :meth:`adopt` s it, or :meth:`release` s the id when it could not."""
        return await self.claims.reserve()

    def release(self, table_id: str) -> None:
        """A reserved id that was never stored: its lease is not renewed."""
        self.ownership.forget(table_id)

    async def adopt(
        self, record: TableRecord, lease: Lease | None, *, fresh: bool = False
    ) -> Table:
        """Serve a table just written to the store under a reserved id (:meth:`create`, and the
        ranked matchmaker's match in one transaction); ``fresh``: its log, empty, is not read."""
        return await self.claims.adopt(record, lease, fresh=fresh)

    async def close(self) -> None:
        """Stop every table; in a cluster, let their leases go so others take them at once."""
        if self._sweep is not None:
            self._sweep.cancel()
        if self._scan is not None:
            self._scan.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scan
        for table in self.tables.values():
            await table.close()
        await self.ownership.close()
