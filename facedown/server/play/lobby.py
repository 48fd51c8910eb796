"""The lobby: creating tables, finding them by code, and bringing them back after a restart.

In a cluster it also takes its share of the tables nobody owns, and hands a few of its own over
when it owns clearly more than its share (:meth:`Lobby.rebalance`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

from ...engine import Ruleset, make_ruleset
from ...engine.presets import ModeError, check_mode
from ...records.matches import new_table_seed
from ...store import (
    ACTIVE_STATUSES,
    Lease,
    SeatRecord,
    StoreError,
    TableExists,
    TableRecord,
    table_lease,
)
from ..base.clock import Alarm
from ..base.errors import TableError
from ..base.limits import check_bot_level, check_options, check_players
from ..base.testhooks import DEAL, stacked_deal
from ..cluster.ownership import Rebalance, share, surplus
from ..modes.modes import engine_mode, is_pass_and_play, is_turn_based, shows_recollection
from . import seating
from .context import TableContext
from .table import Table

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
CODE_LENGTH = 6
# The states a pass-and-play table expires from: closed when it was not over, and a finished one
# stays finished in the store but is no longer served (its replay still is).
PASS_AND_PLAY_EXPIRING = ("lobby", "playing", "finished")
MAX_DAMAGE = 1000  # characters of a rebuild's error kept with a broken table
SCAN_EVERY = 1.0  # seconds between a cluster process's looks for tables nobody owns
SCAN_LIMIT = 256  # unowned tables looked at per look
MOVED = 1012  # close code for a client whose table moved to another process: reconnect
HANDOVER_WAIT = 3.0  # seconds a claim of a table just handed over waits for another to take it
HOLD_SCANS = 10  # a table handed over is left to the others for at least this many looks
REBALANCE_BACKOFF = 10  # periods without handing over after a handed table was left untaken

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
    rules = _seated_rules(preset, options, seats, settings)
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


# The rules tables were made with, by what they were made of (preset, options, seats, mode): a
# ruleset is immutable, so the tables of the same making share one, made and checked once, and
# the engine's work on it is done once too (its fingerprint, its deck: a fifth of a creation's
# CPU otherwise).  Only rules that passed every check are kept; many custom rulesets empty it.
_SEATED: dict[tuple[str, str, int, bool, str], Ruleset] = {}
SEATED_KEPT = 256
# The JSON a table's record keeps of its rules, by the rules' fingerprint (``to_json`` walks
# every field of the ruleset: as costly as checking it).
_RULES_JSON: dict[str, str] = {}


def _seated_rules(
    preset: str, options: dict[str, Any], seats: int, settings: dict[str, Any]
) -> Ruleset:
    """The preset with ``options`` as the table's mode plays it, once the engine has said it
    seats and deals ``seats`` players (kept, see ``_SEATED``)."""
    try:
        made = json.dumps(options, sort_keys=True)
    except (TypeError, ValueError):  # options no request can send: made, not kept
        made = None
    key = (preset, made or "", seats, shows_recollection(settings), engine_mode(settings))
    found = _SEATED.get(key) if made is not None else None
    if found is not None:
        return found
    rules = _moded_rules(preset, options, settings)
    try:
        check_players(rules, seats)  # the engine decides how many it seats and deals
    except ValueError as e:
        raise TableError("bad_seats", str(e)) from None
    if made is not None:
        if len(_SEATED) >= SEATED_KEPT:
            _SEATED.clear()
        _SEATED[key] = rules
    return rules


def _rules_json(rules: Ruleset) -> dict[str, Any]:
    """``rules.to_json()``, a new dict each time, made once for equal rules."""
    text = _RULES_JSON.get(rules.fingerprint)
    if text is None:
        if len(_RULES_JSON) >= SEATED_KEPT:
            _RULES_JSON.clear()
        text = _RULES_JSON[rules.fingerprint] = json.dumps(rules.to_json())
    data: dict[str, Any] = json.loads(text)
    return data


def _moded_rules(preset: str, options: dict[str, Any], settings: dict[str, Any]) -> Ruleset:
    """The preset with ``options``, as the table's mode plays it (the engine's table of modes
    decides which fields a mode sets: Kivo's rounds, score limit and sudden death)."""
    try:
        check_options(preset, options)  # bounds first: the engine's messages quote values
        rules = make_ruleset(preset, options)
    except ModeError as e:
        raise _mode_refusal(e) from None
    except ValueError as e:
        raise TableError("bad_rules", str(e)) from None
    try:
        rules = _with_recollection(rules, settings)
        check_mode(rules, preset, engine_mode(settings))
    except ModeError as e:
        raise _mode_refusal(e) from None
    return rules


def _mode_refusal(e: ModeError) -> TableError:
    if e.field in ("rounds", "round_choices"):
        return TableError("bad_rounds", str(e))
    return TableError("bad_rules", str(e))


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


class KeyedLocks:
    """One lock per key, kept only while someone holds it or waits for it (a lock per table id
    ever claimed would grow with every table this process has seen)."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}  # key -> lock, holders + waiters

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


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
        self._claims = KeyedLocks()  # table id -> held while it is claimed
        self._sweep: Alarm | None = None
        self._scan: asyncio.Task[None] | None = None
        self._live_nodes = live_nodes or (lambda: 1)
        # A cluster's rebalancing: the tables the other live processes own (their heartbeats),
        # what this process does about it, the tables it handed over lately (table id -> when:
        # left for the others to take for a period), and the unowned tables its last look found.
        self._loads = loads or dict
        self.rebalancing = rebalance or Rebalance()
        self._handed: dict[str, float] = {}
        self._unowned = 0
        self._untaken = 0  # of those, handed over by this process and not taken yet
        self._next_rebalance = time.monotonic() + self.rebalancing.every

    async def recover(self) -> int:
        """Load every table that was in the lobby or playing: after a crash, games resume.

        A table that cannot be rebuilt is logged (with the error, once) and marked broken in
        the store; the others start.  Every broken table, new or from an earlier start, is
        named in a warning, and is neither served nor tried again.  Returns how many tables
        were loaded."""
        count = 0
        if self.ownership.clustered:  # the tables nobody owns are taken in turns (_scan_loop)
            self.ownership.start(self.drop)
            self._scan = asyncio.get_running_loop().create_task(self._scan_loop())
        for record in [] if self.ownership.clustered else await self.store.active_tables():
            if self._expired(record):
                await self._close_expired(record)
                continue
            with contextlib.suppress(TableError):
                await self._load(record, None)
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
        config = self.ctx.config
        if is_pass_and_play(record.settings):  # started at once, one sitting: closed all the same
            return (
                record.status in PASS_AND_PLAY_EXPIRING
                and record.created_at + config.pass_and_play_expiry <= self.ctx.clock.now()
            )
        turn_based = is_turn_based(record.settings)
        expiry = config.turn_based_lobby_expiry if turn_based else config.lobby_expiry
        return record.status == "lobby" and record.created_at + expiry <= self.ctx.clock.now()

    async def _close_expired(self, record: TableRecord, lease: Lease | None = None) -> None:
        if record.status == "finished":  # an expired pass-and-play table: kept as it ended
            return
        closed = replace(record, status="closed", updated_at=self.ctx.clock.now())
        try:
            await self.store.update_table(closed, lease=lease)
        except StoreError as e:
            log.error("expired table %s could not be closed: %s", record.id, e)

    def _arm_sweep(self) -> None:
        """Look for expired tables every so often (a tenth of the shorter expiry, at most
        hourly)."""
        config = self.ctx.config
        every = min(config.lobby_expiry / 10, config.pass_and_play_expiry / 10, 3600.0)
        self._sweep = self.ctx.clock.call_at(self.ctx.clock.now() + every, self.sweep)

    async def sweep(self) -> None:
        """Close the loaded tables that expired (lobbies, pass-and-play tables): they are dropped,
        and not served again."""
        try:
            for table in list(self.tables.values()):
                async with table.lock:
                    if not self._expired(table.record):
                        continue
                    if table.record.status != "finished":
                        await self._close_expired(table.record, table.lease)
                        table.record = replace(table.record, status="closed")
                        table.publish_table()  # whoever waits there sees it closed
                await table.close()
                async with self._loading:
                    self.tables.pop(table.record.id, None)
                    self._by_code.pop(table.record.code.upper(), None)
        finally:
            self._arm_sweep()

    # ------------------------------------------------------------------ a cluster
    async def _scan_loop(self) -> None:
        """Take a share of the active tables whose owner is gone (or that nobody owns yet);
        every so often, hand some over when this process owns clearly more than its share."""
        while True:
            try:
                await self.scan()
            except StoreError as e:
                log.warning("cluster: looking for unowned tables failed: %s", e)
            if self.rebalancing.on and time.monotonic() >= self._next_rebalance:
                self._next_rebalance = time.monotonic() + self.rebalancing.every
                try:
                    await self.rebalance()
                except StoreError as e:
                    log.warning("cluster: handing tables over failed: %s", e)
            await asyncio.sleep(SCAN_EVERY)

    async def scan(self) -> int:
        """One look: returns how many tables this process took.  The tables it handed over
        lately are left for the others (see :meth:`rebalance`)."""
        found = [t for t in await self.store.unowned_tables(SCAN_LIMIT) if t not in self.tables]
        self._unowned = len(found)
        self._forget_handed(found)
        unowned = [t for t in found if not self._handed_lately(t)]
        self._untaken = len(found) - len(unowned)
        if not unowned:
            return 0
        mine = random.sample(unowned, min(len(unowned), share(len(unowned), self._live_nodes())))
        # Each table is taken on its own: one whose lease is held up (a stalled owner's write
        # locks its row) delays no other.
        taken = await asyncio.gather(*(self._adopt(t) for t in mine))
        return sum(taken)

    async def _adopt(self, table_id: str) -> bool:
        """Take one unowned table found by :meth:`scan`: True when it is served here now."""
        try:
            record = await self.store.get_table(table_id)
            if record is None or record.status not in ACTIVE_STATUSES:
                return False
            if self._expired(record):
                await self._close_expired(record)
                return False
            return isinstance(await self._claim(record), Table)
        except TableError:
            return False
        except StoreError as e:
            log.warning("cluster: taking table %s failed: %s", table_id, e)
            return False

    async def _claim(self, record: TableRecord) -> Table | Elsewhere:
        """The table loaded here under its lease, or the process that owns it."""
        async with self._claims.hold(record.id):  # one claim of a table at a time
            table = self.tables.get(record.id)
            if table is not None:
                return table
            if record.status == "broken":
                return await self._load(record, None)  # refused, as broken
            if self._handed_lately(record.id):
                successor = await self._successor(record.id)
                if successor is not None:  # a client of the table back here: relayed to it
                    return Elsewhere(record, successor)
            claim = await self.ownership.claim(record.id)
            if not claim.held:
                if claim.owner is None:  # never: a lease is held or takeable
                    raise _unavailable(record.code)
                return Elsewhere(record, claim.owner)
            if self.ownership.clustered:
                # The previous owner may have changed it since it was read: read it again.
                record = await self.store.get_table(record.id) or record
            return await self._load(record, claim.lease)

    async def served(self, table_id: str) -> Table | None:
        """The table if this process serves it, once a claim of it under way here has ended
        (None: another process owns it, or nobody).  Another process relays a call here as soon
        as this one holds the table's lease, which is while this one still loads the table."""
        table = self.tables.get(table_id)
        if table is None:
            async with self._claims.hold(table_id):
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
        await self._stop_serving(table)
        self._send_away(table_id)

    async def _stop_serving(self, table: Table) -> None:
        self.tables.pop(table.record.id, None)
        self._by_code.pop(table.record.code.upper(), None)
        await table.close()

    def _send_away(self, table_id: str) -> None:
        """The table's clients here are told to reconnect: the new owner serves them."""
        for subscriber in self.hub.subscribers(table_id):
            subscriber.close(MOVED, "the table moved to another server: reconnect")

    # ------------------------------------------------------------------ rebalancing
    def owned(self) -> int:
        """The active tables this process serves (what its heartbeats tell the others)."""
        return sum(t.record.status in ACTIVE_STATUSES for t in self.tables.values())

    def surplus(self) -> int:
        """How many tables this process would hand over now (0: it owns about its share)."""
        others = list(self._loads().values())
        return surplus(self.owned(), others, self._unowned, self.rebalancing.margin)

    async def rebalance(self) -> int:
        """One period's rebalancing: when this process owns more than its fair share of the
        cluster's active tables plus the margin, hand some over (at most a batch): first those
        nobody is connected to, the longest untouched first; then, with ``tables="all"``, those
        with clients.  Returns how many were handed over."""
        config = self.rebalancing
        if not config.on or self._untaken:
            return 0  # (some tables handed over are not taken yet: the counts are not settled)
        count = min(config.batch, self.surplus())
        if count <= 0:
            return 0
        active = [t for t in self.tables.values() if t.record.status in ACTIVE_STATUSES]
        active.sort(key=lambda t: (t.last_write, t.id))  # the longest untouched first
        idle = [t for t in active if not self.hub.subscribers(t.id)]
        chosen = idle[:count]
        if config.tables == "all" and len(chosen) < count:
            chosen += [t for t in active if t not in idle][: count - len(chosen)]
        handed = 0
        for table in chosen:
            handed += await self.hand_over(table, connected=config.tables == "all")
        if handed:
            log.info("cluster: handed %d tables over (this process owns %d)", handed, self.owned())
        return handed

    async def hand_over(self, table: Table, *, connected: bool = False) -> bool:
        """Stop serving the table here and let its lease go at once, for another process to
        take (its clients, with ``connected``, are told to reconnect; without, a table someone
        connected to meanwhile stays).  Nothing is lost: it is taken with every write this
        process made, and a write of this process after the takeover would be refused."""
        async with self._claims.hold(table.id):
            if self.tables.get(table.id) is not table:
                return False  # dropped meanwhile
            async with table.lock:  # no command of the table is under way here
                if not connected and self.hub.subscribers(table.id):
                    return False
                self._handed[table.id] = time.monotonic()
                await self._stop_serving(table)
                try:
                    await self.ownership.release(table.id)
                except StoreError as e:  # not renewed: it is takeable once it runs out
                    log.warning("cluster: the lease of table %s was not let go: %s", table.id, e)
        self.ctx.metrics.handovers.inc()
        self._send_away(table.id)
        return True

    @property
    def _hold(self) -> float:
        """How long a table handed over is left for the other processes to take."""
        return max(self.rebalancing.every, HOLD_SCANS * SCAN_EVERY)

    def _handed_lately(self, table_id: str) -> bool:
        handed = self._handed.get(table_id)
        return handed is not None and time.monotonic() < handed + self._hold

    def _forget_handed(self, unowned: list[str]) -> None:
        """Forget the tables handed over longer ago than the hold.  One still ``unowned`` then
        backs rebalancing off: the others may be unable to take tables (a process that beats
        on Redis but cannot reach the database), and this one takes it back."""
        now = time.monotonic()
        untaken = set(unowned)
        for table_id, handed in list(self._handed.items()):
            if now < handed + self._hold:
                continue
            del self._handed[table_id]
            if table_id in untaken:
                log.warning(
                    "cluster: table %s was handed over %.0f s ago and nobody took it: "
                    "no tables are handed over for a while",
                    table_id,
                    now - handed,
                )
                every = max(self.rebalancing.every, SCAN_EVERY)
                self._next_rebalance = now + REBALANCE_BACKOFF * every

    async def _successor(self, table_id: str) -> str | None:
        """The process that took the table this process handed over (waiting a little for
        one to), or None."""
        deadline = time.monotonic() + HANDOVER_WAIT
        while True:
            found = await self.store.get_lease(table_lease(table_id))
            if found is not None and found[1] and found[0].owner != self.ownership.node:
                return found[0].owner
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(0.1)

    async def _load(
        self, record: TableRecord, lease: Lease | None, *, fresh: bool = False
    ) -> Table:
        if record.status == "broken":
            self.broken[record.code.upper()] = record.id
            raise _unavailable(record.code)
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
            raise _unavailable(record.code) from None
        table.on_lost = lambda: self.drop(record.id)
        self._handed.pop(record.id, None)  # served here again (nobody took it in time)
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
            raise _unavailable(key)
        record = await self.store.find_by_code(key)
        if record is None:
            raise TableError("unknown_table", f"there is no table {code!r}")
        if record.status == "closed" or self._expired(record):
            raise TableError("table_closed", f"table {key} is closed")
        return await self._claim(record)

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
        table_id, lease = await self.reserve()
        for attempt in range(20):
            record = TableRecord(
                id=table_id,
                code=new_code(),
                preset=preset,
                rules=_rules_json(rules),
                seed=new_table_seed() if seed is None else seed,
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
                    self.release(table_id)
                    raise
            except StoreError:
                self.release(table_id)
                raise
        return await self.adopt(record, lease, fresh=True)

    async def reserve(self) -> tuple[str, Lease | None]:
        """A new table's id, its lease already taken: once the record is stored, another process
        looking for tables nobody owns would otherwise take the new table before this one
        loads it.  The caller stores the record, then :meth:`adopt` s it (or :meth:`release` s
        the id when it could not)."""
        table_id = uuid.uuid4().hex
        claim = await self.ownership.claim(table_id)
        if not claim.held:  # never: nobody else knows this id yet
            raise TableError("table_unavailable", "the new table could not be claimed")
        return table_id, claim.lease

    def release(self, table_id: str) -> None:
        """A reserved id that was never stored: its lease is not renewed."""
        self.ownership.forget(table_id)

    async def adopt(
        self, record: TableRecord, lease: Lease | None, *, fresh: bool = False
    ) -> Table:
        """Serve a table just written to the store under a reserved id (:meth:`create`, and the
        ranked matchmaker, which writes a match's table with the match in one transaction).
        ``fresh``: nothing but the record was written, so its log is empty and is not read (a
        creation costs one write and no read)."""
        async with self._claims.hold(record.id):
            return await self._load(record, lease, fresh=fresh)

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
