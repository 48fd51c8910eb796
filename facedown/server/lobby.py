"""The lobby: creating tables, finding them by code, and bringing them back after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from dataclasses import replace
from typing import Any

from ..engine import Ruleset, make_ruleset
from ..store.base import SeatRecord, StoreError, TableExists, TableRecord
from .clock import Alarm
from .context import TableContext, TableError
from .limits import check_bot_level, check_options, check_players
from .modes import shows_recollection
from .table import Table
from .testhooks import DEAL, stacked_deal

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTH = 6
MAX_DAMAGE = 1000  # characters of a rebuild's error kept with a broken table

log = logging.getLogger(__name__)


def _unavailable(code: str) -> TableError:
    return TableError(
        "table_unavailable",
        f"table {code.upper()} could not be restored from storage and is not being served",
    )


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _checked_rules(
    preset: str,
    options: dict[str, Any],
    seats: int,
    bots: list[str | None],
    deal: dict[str, Any] | None,
    settings: dict[str, Any],
) -> Ruleset:
    """The table's rules, once the seats, the bots and the stacked deal fit them."""
    try:
        check_options(preset, options)  # bounds first: the engine's messages quote values
        rules = make_ruleset(preset, options)
    except ValueError as e:
        raise TableError("bad_rules", str(e)) from None
    rules = _with_recollection(rules, settings)
    choices = rules.round_choices
    if choices is not None and rules.rounds not in choices:
        listed = ", ".join(str(n) for n in choices[:-1]) + f" or {choices[-1]}"
        raise TableError(
            "bad_rounds", f"a match of {preset} is {listed} rounds, not {rules.rounds}"
        )
    try:
        check_players(rules, seats)  # the engine decides how many it seats and deals
    except ValueError as e:
        raise TableError("bad_seats", str(e)) from None
    if len(bots) > seats - 1:
        raise TableError("bad_seats", "too many bots for the seats")
    for named in bots:
        if named is None:
            continue
        try:
            check_bot_level(named)
        except ValueError as e:
            raise TableError("bad_bot_level", str(e)) from None
    if deal is not None:
        try:
            stacked_deal(rules, seats, deal)
        except ValueError as e:
            raise TableError("bad_deal", str(e)) from None
    return rules


def _with_recollection(rules: Ruleset, settings: dict[str, Any]) -> Ruleset:
    """Recollection is on at the tables whose mode shows it (turn-based), and nowhere else."""
    if shows_recollection(settings):
        return rules if rules.recollection else rules.with_options({"recollection": True})
    if rules.recollection:
        raise TableError("turn_based_only", "Recollection is for turn-based tables only")
    return rules


def _seat_records(
    host_id: str, host_name: str, seats: int, bots: list[str | None]
) -> list[SeatRecord]:
    """The host in seat 0; then seat by seat, a bot where ``bots`` names a level, an open seat
    for a person where it holds None or has ended."""
    records = [SeatRecord(0, "human", host_name, host_id)]
    for i in range(1, seats):
        level = bots[i - 1] if i - 1 < len(bots) else None
        if level is None:
            records.append(SeatRecord(i, "open"))
        else:
            records.append(SeatRecord(i, "bot", f"Bot ({level})", None, level))
    return records


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
        self._sweep: Alarm | None = None

    async def recover(self) -> int:
        """Load every table that was in the lobby or playing: after a crash, games resume.

        A table that cannot be rebuilt is logged (with the error, once) and marked broken in
        the store; the others start.  Every broken table, new or from an earlier start, is
        named in a warning, and is neither served nor tried again.  Returns how many tables
        were loaded."""
        count = 0
        for record in await self.store.active_tables():
            if self._expired(record):
                await self._close_expired(record)
                continue
            with contextlib.suppress(TableError):
                await self._load(record)
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
    def _expired(self, record: TableRecord) -> bool:
        expiry = self.ctx.config.lobby_expiry
        return record.status == "lobby" and record.created_at + expiry <= self.ctx.clock.now()

    async def _close_expired(self, record: TableRecord) -> None:
        closed = replace(record, status="closed", updated_at=self.ctx.clock.now())
        try:
            await self.store.update_table(closed)
        except StoreError as e:
            log.error("expired table %s could not be closed: %s", record.id, e)

    def _arm_sweep(self) -> None:
        """Look for expired lobby tables every so often (a tenth of the expiry, at most hourly)."""
        every = min(self.ctx.config.lobby_expiry / 10, 3600.0)
        self._sweep = self.ctx.clock.call_at(self.ctx.clock.now() + every, self.sweep)

    async def sweep(self) -> None:
        """Close the loaded lobby tables that expired: they are dropped, and not served again."""
        try:
            for table in list(self.tables.values()):
                async with table.lock:
                    if not self._expired(table.record):
                        continue
                    await self._close_expired(table.record)
                    table.record = replace(table.record, status="closed")
                    table.publish_table()  # whoever waits there sees it closed
                await table.close()
                async with self._loading:
                    self.tables.pop(table.record.id, None)
                    self._by_code.pop(table.record.code.upper(), None)
        finally:
            self._arm_sweep()

    async def _load(self, record: TableRecord) -> Table:
        if record.status == "broken":
            self.broken[record.code.upper()] = record.id
            raise _unavailable(record.code)
        try:
            table = await Table.load(record, self.ctx)
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
            await self._mark_broken(record, damage)
            raise _unavailable(record.code) from None
        self.tables[record.id] = table
        self._by_code[record.code.upper()] = record.id
        return table

    async def _mark_broken(self, record: TableRecord, damage: str) -> None:
        """Keep the table, with why, for an operator; it is not loaded again (see recover)."""
        broken = replace(record, status="broken", damage=damage, updated_at=self.ctx.clock.now())
        try:
            await self.store.update_table(broken)
        except StoreError as e:
            log.error("table %s could not be marked broken: %s", record.id, e)

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
            if record.status == "closed" or self._expired(record):
                raise TableError("table_closed", f"table {key} is closed")
            return await self._load(record)

    async def create(
        self,
        host_id: str,
        host_name: str,
        preset: str,
        options: dict[str, Any],
        seats: int,
        settings: dict[str, Any],
        bots: list[str | None],
        *,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> Table:
        """Open a table with the host in seat 0.  ``seed`` and ``deal`` are test hooks (the
        app refuses them unless enabled): a chosen seed, a stacked first deal."""
        rules = _checked_rules(preset, options, seats, bots, deal, settings)
        if deal is not None:
            settings = {**settings, DEAL: deal}
        seat_records = _seat_records(host_id, host_name, seats, bots)
        return await self._open(preset, rules, host_id, settings, seat_records, seed)

    async def create_started(
        self,
        players: list[tuple[str, str]],
        preset: str,
        options: dict[str, Any],
        settings: dict[str, Any],
        *,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> Table:
        """Open a table of people only, seated in the order of ``players`` (player id, name),
        and start its match at once (a pass-and-play table: everyone is at the device).  The
        first player is the host.  ``seed`` and ``deal`` are the test hooks of :meth:`create`."""
        rules = _checked_rules(preset, options, len(players), [], deal, settings)
        if deal is not None:
            settings = {**settings, DEAL: deal}
        seat_records = [SeatRecord(i, "human", name, pid) for i, (pid, name) in enumerate(players)]
        host_id = players[0][0]
        table = await self._open(preset, rules, host_id, settings, seat_records, seed)
        await table.start(host_id)
        return table

    async def _open(
        self,
        preset: str,
        rules: Ruleset,
        host_id: str,
        settings: dict[str, Any],
        seat_records: list[SeatRecord],
        seed: int | None,
    ) -> Table:
        """Store a new table under a fresh code and load it."""
        now = self.ctx.clock.now()
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

    async def adopt(self, record: TableRecord) -> Table:
        """Serve a table that was written to the store by another part of the server (the
        ranked matchmaker writes a match's table with the match, in one transaction)."""
        async with self._loading:
            return await self._load(record)

    async def close(self) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
        for table in self.tables.values():
            await table.close()
