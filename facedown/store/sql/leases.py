"""Leases on SQL: which process owns a table (or the matchmaker), the fence that refuses a
write made with a lease another process has taken over since, and the cluster's id.

A lease's statements bound how long they wait for its row's lock on PostgreSQL: a takeover
never waits on a stalled owner's transaction, a renewal never for ever.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from functools import partial

from sqlalchemy import ColumnElement, bindparam, case, literal, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from ..models import LeaseRow, MetaRow, TableRow
from ..records import ACTIVE_STATUSES, TABLE_LEASE, Lease, LeaseBusy, LeaseLost, StoreError
from ..writer import Write
from .core import SqlBase

CLUSTER_KEY = "cluster"  # store_meta: the cluster's id (Store.cluster_id)

# How long a lease's statement waits for its row's lock on PostgreSQL.  A takeover never waits
# on a stalled owner's transaction (it reports LeaseBusy and is tried again); a renewal waits
# for this process's own write under way on the row, never for ever (then StoreError: the
# leases stand until their time runs out here).
TAKE_LOCK_TIMEOUT_MS = 200
RENEW_LOCK_TIMEOUT_MS = 1000
_LOCK_NOT_AVAILABLE = "55P03"


class LeasesSql(SqlBase):
    """The lease methods of :class:`~facedown.store.base.Store` on SQL."""

    async def take_lease(self, name: str, owner: str, seconds: float) -> Lease | None:
        taken: list[Lease] = []
        now = self._now()
        await self._write(
            partial(_take_lease, name=name, owner=owner, until=now + seconds, now=now, out=taken)
        )
        return taken[0] if taken else None

    async def renew_leases(self, owner: str, names: Sequence[str], seconds: float) -> set[str]:
        if not names:
            return set()
        renewed: set[str] = set()
        until = self._now() + seconds

        now = self._now()

        def write(connection: Connection) -> None:
            # Only leases still running: a process that resumes after its leases ran out (a
            # stall) does not renew them, it lets those tables go (its renew sees them gone),
            # whether or not another process took them meanwhile.
            query = (
                update(LeaseRow)
                .where(
                    LeaseRow.owner == owner,
                    LeaseRow.name.in_(list(names)),
                    LeaseRow.expires_at > now,
                )
                .values(expires_at=until)
                .returning(LeaseRow.name)
            )
            _lock_timeout(connection, RENEW_LOCK_TIMEOUT_MS)
            renewed.update(connection.execute(query).scalars())

        await self._write(write)
        return renewed

    async def release_leases(self, owner: str, names: Sequence[str]) -> None:
        if not names:
            return
        query = (
            update(LeaseRow)
            .where(LeaseRow.owner == owner, LeaseRow.name.in_(list(names)))
            .values(expires_at=0.0)
        )

        def write(connection: Connection) -> None:
            connection.execute(query)

        await self._write(write)

    async def get_lease(self, name: str) -> tuple[Lease, bool] | None:
        query = select(
            LeaseRow.name,
            LeaseRow.owner,
            LeaseRow.fence,
            LeaseRow.expires_at,
            LeaseRow.expires_at > self._now(),
        ).where(LeaseRow.name == name)
        async with self._session() as session:
            row = (await session.execute(query)).first()
        if row is None:
            return None
        return Lease(row[0], row[1], row[2], row[3]), bool(row[4])

    async def cluster_id(self) -> int:
        made = secrets.randbits(62)

        def write(connection: Connection) -> None:
            dialect = connection.dialect.name
            insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
            row = insert_(MetaRow).values(key=CLUSTER_KEY, value=made)
            connection.execute(row.on_conflict_do_nothing(index_elements=[MetaRow.key]))

        await self._write(write)
        async with self._session() as session:
            found = await session.scalar(select(MetaRow.value).where(MetaRow.key == CLUSTER_KEY))
        if found is None:  # never: it was written just now
            raise StoreError("the cluster id could not be stored")
        return int(found)

    async def unowned_tables(self, limit: int) -> list[str]:
        lease_name = literal(TABLE_LEASE) + TableRow.id
        query = (
            select(TableRow.id)
            .outerjoin(LeaseRow, LeaseRow.name == lease_name)
            .where(
                TableRow.status.in_(ACTIVE_STATUSES),
                or_(LeaseRow.name.is_(None), LeaseRow.expires_at <= self._now()),
            )
            .order_by(TableRow.created_at, TableRow.id)
            .limit(limit)
        )
        async with self._session() as session:
            return list(await session.scalars(query))


# Built once: every write of a cluster's table runs it (bound parameters, one cached compile).
_CHECK_LEASE = (
    update(LeaseRow)
    .where(
        LeaseRow.name == bindparam("lease_name"),
        LeaseRow.owner == bindparam("lease_owner"),
        LeaseRow.fence == bindparam("lease_fence"),
    )
    .values(fence=LeaseRow.fence)
)


def fenced(lease: Lease | None, write: Write) -> Write:
    """``write``, first checking in its transaction that ``lease`` is still held as it was."""
    if lease is None:
        return write

    def checked(connection: Connection) -> None:
        _check_lease(connection, lease)
        write(connection)

    return checked


def lease_lost(lease: Lease) -> LeaseLost:
    """The error of a fenced write whose lease is no longer held as it was."""
    return LeaseLost(f"lease {lease.name} (fence {lease.fence}) is no longer held by this process")


def _check_lease(connection: Connection, lease: Lease) -> None:
    # An UPDATE, not a SELECT: on PostgreSQL it locks the lease's row until this transaction
    # ends, so a takeover (which updates the row) waits for this write to commit or fail, and
    # a write after a takeover sees the new fence.  It refuses before anything has changed.
    held = connection.execute(
        _CHECK_LEASE,
        {"lease_name": lease.name, "lease_owner": lease.owner, "lease_fence": lease.fence},
    )
    if held.rowcount != 1:
        raise lease_lost(lease)


def _lock_timeout(connection: Connection, ms: int) -> None:
    """Bound, for the rest of this transaction, how long a statement waits for a row lock."""
    if connection.dialect.name == "postgresql":
        connection.execute(text(f"SET LOCAL lock_timeout = {int(ms)}"))


def _take_lease(
    connection: Connection,
    name: str,
    owner: str,
    until: ColumnElement[float],
    now: ColumnElement[float],
    out: list[Lease],
) -> None:
    dialect = connection.dialect.name
    insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert_(LeaseRow).values(name=name, owner=owner, fence=1, expires_at=until)
    statement = statement.on_conflict_do_update(
        index_elements=[LeaseRow.name],
        set_={
            "owner": owner,
            "expires_at": until,
            # A takeover raises the fence; the owner renewing its own lease keeps it.
            "fence": case((LeaseRow.owner == owner, LeaseRow.fence), else_=LeaseRow.fence + 1),
        },
        where=or_(LeaseRow.expires_at <= now, LeaseRow.owner == owner),
    )
    returned = statement.returning(
        LeaseRow.name, LeaseRow.owner, LeaseRow.fence, LeaseRow.expires_at
    )
    _lock_timeout(connection, TAKE_LOCK_TIMEOUT_MS)
    try:
        row = connection.execute(returned).first()
    except DBAPIError as e:
        if getattr(e.orig, "sqlstate", None) == _LOCK_NOT_AVAILABLE:
            raise LeaseBusy(f"lease {name} is locked by a write under way") from None
        raise
    if row is not None:
        out.append(Lease(row[0], row[1], row[2], row[3]))
