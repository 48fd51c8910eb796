"""The lobby: creating tables, finding them by code, and bringing them back after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from typing import Any

from ..engine import make_ruleset
from ..store.base import SeatRecord, TableExists, TableRecord
from .context import TableContext, TableError
from .limits import check_bot_level, check_options, check_players
from .table import Table
from .testhooks import DEAL, stacked_deal

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTH = 6

log = logging.getLogger(__name__)


def _unavailable(code: str) -> TableError:
    return TableError(
        "table_unavailable",
        f"table {code.upper()} could not be restored from storage and is not being served",
    )


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Lobby:
    """Owns the live tables of this process (each table has exactly one owner)."""

    def __init__(self, ctx: TableContext) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self.hub = ctx.hub
        self.tables: dict[str, Table] = {}
        self._by_code: dict[str, str] = {}
        self.broken: dict[str, str] = {}  # code -> id of a stored table that could not be rebuilt
        self._loading = asyncio.Lock()

    async def recover(self) -> int:
        """Load every table that was in the lobby or playing: after a crash, games resume.

        A table that cannot be rebuilt is logged and left out (it is not served); the others
        start.  Returns how many tables were loaded."""
        count = 0
        for record in await self.store.active_tables():
            with contextlib.suppress(TableError):
                await self._load(record)
                count += 1
        return count

    async def _load(self, record: TableRecord) -> Table:
        try:
            table = await Table.load(record, self.ctx)
        except Exception as e:  # a rebuild can fail in any way its stored data allows
            log.error(
                "table %s (code %s) could not be rebuilt and is not served: %s: %s",
                record.id,
                record.code,
                type(e).__name__,
                e,
                exc_info=True,
            )
            self.broken[record.code.upper()] = record.id
            raise _unavailable(record.code) from None
        self.tables[record.id] = table
        self._by_code[record.code.upper()] = record.id
        return table

    async def find(self, code: str) -> Table:
        """The table with this code, loaded from the store when needed."""
        key = code.strip().upper()
        async with self._loading:
            table_id = self._by_code.get(key)
            if table_id is not None:
                return self.tables[table_id]
            if key in self.broken:
                raise _unavailable(key)
            record = await self.store.find_by_code(key)
            if record is None:
                raise TableError("unknown_table", f"there is no table {code!r}")
            return await self._load(record)

    async def create(
        self,
        host_id: str,
        host_name: str,
        preset: str,
        options: dict[str, Any],
        seats: int,
        settings: dict[str, Any],
        bots: list[str],
        *,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> Table:
        """Open a table with the host in seat 0.  ``seed`` and ``deal`` are test hooks (the
        app refuses them unless enabled): a chosen seed, a stacked first deal."""
        try:
            check_options(preset, options)  # bounds first: the engine's messages quote values
            rules = make_ruleset(preset, options)
        except ValueError as e:
            raise TableError("bad_rules", str(e)) from None
        try:
            check_players(rules, seats)  # the engine decides how many it seats and deals
        except ValueError as e:
            raise TableError("bad_seats", str(e)) from None
        if len(bots) > seats - 1:
            raise TableError("bad_seats", "too many bots for the seats")
        for named in bots:
            try:
                check_bot_level(named)
            except ValueError as e:
                raise TableError("bad_bot_level", str(e)) from None
        if deal is not None:
            try:
                stacked_deal(rules, seats, deal)
            except ValueError as e:
                raise TableError("bad_deal", str(e)) from None
            settings = {**settings, DEAL: deal}
        now = self.ctx.clock.now()
        seat_records = [SeatRecord(0, "human", host_name, host_id)]
        for i in range(1, seats):
            level = bots[i - 1] if i - 1 < len(bots) else None
            if level is None:
                seat_records.append(SeatRecord(i, "open"))
            else:
                seat_records.append(SeatRecord(i, "bot", f"Bot ({level})", None, level))
        for attempt in range(20):
            record = TableRecord(
                id=uuid.uuid4().hex,
                code=new_code(),
                preset=preset,
                rules=rules.to_json(),
                seed=secrets.randbits(48) if seed is None else seed,
                host_id=host_id,
                settings=settings,
                status="lobby",
                seats=tuple(seat_records),
                created_at=now,
                updated_at=now,
            )
            try:
                await self.store.create_table(record)
                break
            except TableExists:
                if attempt == 19:  # 32**6 codes: twenty collisions in a row mean something else
                    raise
        async with self._loading:
            return await self._load(record)

    async def close(self) -> None:
        for table in self.tables.values():
            await table.close()
