"""A table's log: the entries a table writes, and how a table is rebuilt by replaying them.

Every write of a table goes through its :class:`Writes`, fenced with the table's lease in a
cluster.  A table's log is the truth of its match: a ``start`` entry for each match (its number,
its player count, its seeding and any stacked deal) and an ``action`` entry for each move
applied (the action, the deadline it leaves, and whether a bot, a timer or a missed deadline
played it).  Replaying the log rebuilds exactly the state the table had (:func:`rebuild`): its
game, its sequence number, the ids of the actions applied, the recent events a reconnecting
client may have missed, and the misses of a turn-based match.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, Final, NotRequired, Protocol, TypedDict

from ...engine import Action, Event, Game, Ruleset
from ...records.matches import DEAL, ONE_WAY, SEEDING, new_match, start_seed
from ...store import Lease, LeaseLost, LogEntry, TableRecord, TableStatus
from ..base.testhooks import DealJson
from ..modes import ranked_mode
from ..modes.modes import TableSettings, settings_of
from ..modes.turnbased import MISSED
from ..transport.protocol import EngineJson
from . import seating
from .context import TableContext
from .deadlines import MoveDeadlines
from .presence import Presence
from .scheduler import Scheduler

# The seats whose moment is over, with the seq it is over at: kept in the table's record, so a
# restart (or the process that takes the table over) still shows them nothing of that moment.
# Written with the settings alone (Writes.save_settings): not a change of the table that moves
# its ``updated_at`` (an account's history is cached by it) or rewrites its row and seats.
MOMENT_OVER: Final = "moment_over"


class Writes:
    """A table's writes: its record, and its log's next entries (each durable on return).  In
    a cluster every write is fenced with the lease this process owns the table by (None: the
    only process, no fence); a write the fence refuses raises ``LeaseLost``, and ``lost`` is
    called once its caller lets go of the table (whatever asked for it: a player's frame, an
    HTTP call, a timer)."""

    def __init__(
        self, ctx: TableContext, lease: Lease | None, lost: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        self.store = ctx.store
        self.crash = ctx.crash
        self.lease = lease
        self._lost = lost
        self._losing: asyncio.Task[None] | None = None  # the drop after a refused write

    async def save(self, record: TableRecord) -> None:
        try:
            await self.store.update_table(record, lease=self.lease)
        except LeaseLost:
            self._lost_later()
            raise

    async def save_settings(self, record: TableRecord) -> None:
        """Write ``record``'s settings alone: its ``updated_at`` and the rest stay as stored."""
        try:
            await self.store.update_settings(record.id, record.settings, lease=self.lease)
        except LeaseLost:
            self._lost_later()
            raise

    async def append(
        self, table_id: str, entry: LogEntry, record: TableRecord | None, window: str | None
    ) -> None:
        """Write ``entry``; with ``record``, the table's record changes to it in the same
        transaction.  ``window`` names the change for the crash test hook
        (server/base/crashhook.py)."""
        if self.crash is not None:
            self.crash.arm(window, table_id, entry.seq)
        try:
            if record is None:
                await self.store.append(table_id, entry, lease=self.lease)
            else:
                await self.store.append_and_update(record, entry, lease=self.lease)
        except LeaseLost:
            self._lost_later()
            raise

    def _lost_later(self) -> None:
        if self._losing is None:
            self._losing = asyncio.get_running_loop().create_task(self._lost())


class Replaying(Protocol):
    """What replaying a log sets on a table."""

    record: TableRecord
    rules: Ruleset
    game: Game | None
    seq: int
    match_no: int
    deadline: float | None
    last_write: float
    last_action: str
    recent: deque[tuple[int, list[Event]]]
    action_ids: dict[tuple[int, str], int]
    turns: MoveDeadlines


class Rebuilt(Replaying, Protocol):
    """What rebuilding a table from its log sets on it, beyond the replay."""

    presence: Presence
    scheduler: Scheduler
    hidden: set[int]
    writes: Writes

    def waiting_for(self) -> list[int]:
        """The seats of people the match waits for now."""

    def now(self) -> float:
        """The table's clock."""


async def rebuild(table: Rebuilt, entries: list[LogEntry]) -> None:
    """Replay a table's log on a table just made from its record: the state it had, exactly.
    Its record is put right where the log says otherwise; forfeits, whose moment is over and
    who was told it is their move are restored; everyone is away (a restart)."""
    for entry in entries:
        replay(table, entry)
    record = table.record
    status = status_from_log(record.status, table.game)
    if status != record.status:
        # The log is the truth (a server from before entries and status changes were one
        # write could crash between them): the record is put right.
        record = replace(record, status=status, updated_at=table.now())
        await table.writes.save(record)
        table.record = record
    table.presence.seat_bots(record.seats)
    table.hidden = hidden_at(settings_of(record), table.seq)
    for seat in table.turns.forfeited():
        table.presence.forfeit(seat, table.game)
    if record.status == "playing":  # a ranked forfeit is for good, across restarts too
        for seat in ranked_mode.forfeits(settings_of(record)):
            table.presence.forfeit(seat, table.game)
    table.turns.restored(table.waiting_for)
    if record.status == "playing":
        # Everyone is disconnected after a restart: grace periods start now.
        table.presence.absent(seating.human_seats(record), table.now())
    table.scheduler.rearm()


def replay(table: Replaying, entry: LogEntry) -> None:
    """Apply one log entry to the table, as it was applied when it was written."""
    table.seq = entry.seq
    table.last_write = max(table.last_write, entry.created_at)
    payload = entry.payload
    if entry.kind == "start":
        table.match_no = int(payload["match"])
        table.action_ids.clear()
        table.turns.new_match()
        table.recent.clear()
        # The start entry carries a stacked deal (test hooks) as it was dealt.
        seed = start_seed(table.record.seed, payload)
        table.game = new_match(table.rules, int(payload["players"]), seed, payload.get(DEAL))
    elif entry.kind == "action":
        if table.game is None:
            raise ValueError(f"log entry {entry.seq}: an action before the match started")
        action = Action.from_json(payload["action"])
        # Kept as when it was played: a client reconnecting to a process that took the table
        # over is sent exactly the events it missed.
        table.recent.append((entry.seq, table.game.apply(action)))
        table.last_action = action.text()
        if payload.get(MISSED):  # the deadline that ran out is the one before this entry
            table.turns.charge(action.player, table.deadline)
        if payload.get("id"):
            table.action_ids[action.player, str(payload["id"])] = entry.seq
    table.deadline = payload.get("deadline")


def status_from_log(status: TableStatus, game: Game | None) -> TableStatus:
    """The status the replayed log says: a started match is playing until it is over."""
    if status not in ("lobby", "playing", "finished"):
        return status  # a status the log has no say in (closed, broken)
    if game is None:
        return "lobby"  # no match has started
    return "finished" if game.is_match_over else "playing"


def hidden_at(settings: TableSettings, seq: int) -> set[int]:
    """The seats whose moment the record says is over at ``seq`` (none if it is of another)."""
    over = settings.get(MOMENT_OVER)
    if not isinstance(over, dict) or over.get("seq") != seq:
        return set()
    return {int(s) for s in over.get("seats", [])}


class StartEntry(TypedDict):
    """The payload of a match's ``start`` entry, as this server writes it (:func:`replay` also
    reads the older ones: no ``seeding``, or another)."""

    match: int  # the match's number at the table, 1 first
    players: int
    deadline: float | None  # the timer the match starts with
    seeding: int  # how its seed is derived from the table's (records.matches: ONE_WAY)
    deal: NotRequired[DealJson]  # test hooks: its stacked first deal, as it was dealt


class ActionEntry(TypedDict):
    """The payload of an ``action`` entry: a move applied."""

    action: EngineJson  # the engine's JSON of the action (Action.to_json)
    deadline: float | None  # the timer it leaves running
    id: NotRequired[str]  # the client's id for it (a resent id is answered, not applied)
    auto: NotRequired[bool]  # a bot or a timer played it
    timed_out: NotRequired[bool]  # a timer played it: time ran out
    missed: NotRequired[bool]  # the first default move of a missed deadline (turn-based)


def start_entry(
    match_no: int, players: int, deadline: float | None, deal: DealJson | None
) -> StartEntry:
    """A match's start entry: its number, its player count, the deadline it starts with, its
    seeding, and the stacked deal it was dealt (test hooks) if any."""
    payload: StartEntry = {
        "match": match_no,
        "players": players,
        "deadline": deadline,
        SEEDING: ONE_WAY,
    }
    if deal is not None:
        payload[DEAL] = deal
    return payload


def action_entry(
    action: Action,
    action_id: str | None,
    deadline: float | None,
    auto: bool,
    timed_out: bool,
    missed: bool,
) -> ActionEntry:
    """An action's log entry: the action, the deadline it leaves, and (only when set) the
    client's id and whether a bot, a timer or a missed deadline played it."""
    payload: ActionEntry = {"action": action.to_json(), "deadline": deadline}
    if action_id is not None:
        payload["id"] = action_id
    if auto:
        payload["auto"] = True
    if timed_out:
        payload["timed_out"] = True
    if missed:
        payload[MISSED] = True
    return payload
