"""One table: the actor that owns a match's engine state and applies one command at a time.

Every command takes the table's lock (asyncio locks wake waiters in arrival order, so two TAPs
race fairly), then follows one order of work: check who asks and what they saw, validate with
the engine, write the log entry, then acknowledge and fan out.  Nothing reaches a client before it
is durable.  This module holds the match's commands (start, rematch, act, and the moves bots
and timers play); the seats' other commands are :mod:`.seatcommands`' (a base class).  Who sits
where is decided in :mod:`.seating`, who plays a seat now in :mod:`.presence`, timers and bot
moves in :mod:`.scheduler`, what a move must pass in :mod:`.moves`, what each audience is sent
in :mod:`.fanout`, how the log is written and replayed in :mod:`.tablelog`, and a turn-based
table's missed deadlines in :mod:`.deadlines`.  What the table's kind changes is its
:class:`~..modes.modes.TableMode`, read once from its settings.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ...engine import Action, Event, Game, IllegalAction
from ...records.matches import DEAL, match_seed, new_match
from ...store import Lease, LogEntry, TableRecord
from ..base.errors import TableError
from ..modes.modes import TimedSettings, settings_of, table_mode
from ..transport.protocol import SnapshotFrame, TableInfoJson
from . import fanout, seating
from .context import BotFactory, TableConfig, TableContext
from .deadlines import MoveDeadlines
from .moves import checked_move
from .presence import Presence
from .rulesets import ruleset_of
from .scheduler import Scheduler, deadline_for
from .seatcommands import SeatCommands
from .tablelog import ActionEntry, StartEntry, Writes, action_entry, rebuild, start_entry

__all__ = ["BotFactory", "Table", "TableConfig", "TableError", "match_seed"]

# The timers of a table whose settings set none (:meth:`Table.settings`).
DEFAULT_SETTINGS: TimedSettings = {"peek_seconds": 20, "turn_seconds": 60}


class Table(SeatCommands):
    """A table's live state: its record, its game, its sequence number, who plays its seats."""

    def __init__(self, record: TableRecord, ctx: TableContext, lease: Lease | None = None) -> None:
        self.record = record
        self.ctx = ctx
        self.writes = Writes(ctx, lease, self.lost)  # each fenced with the lease (a cluster)
        self.on_lost: Callable[[], Awaitable[None]] | None = None  # set by the lobby
        self.store = ctx.store
        self.hub = ctx.hub
        self.rules = ruleset_of(record.rules)
        self.lock = asyncio.Lock()
        self.game: Game | None = None
        self.seq = 0
        self.match_no = 0
        self.deadline: float | None = None
        self.recent: deque[tuple[int, list[Event]]] = deque(maxlen=ctx.config.recent)
        self.action_ids: dict[tuple[int, str], int] = {}  # this match's (seat, id) -> seq
        self.last_action = ""  # the text form of the last action applied (public)
        self.last_write = record.updated_at  # when its log was last written (or its record)
        self.mode = table_mode(settings_of(record))  # what its kind changes, read once
        self.presence = Presence(
            record.seed, ctx.bot_factory, ctx.config.grace_seconds, standins=self.mode.stand_ins
        )
        self.scheduler = Scheduler(self, ctx.clock, ctx.config.bot_delay, ctx.thinker)
        self.turns = MoveDeadlines(self.mode.misses_forfeit, self.mode.notifies)  # turn-based
        # Seats that said their moment is over (``ready``) at this seq: what they were being
        # shown is no longer in any frame for them, until the table moves on.
        self.hidden: set[int] = set()

    @property
    def misses(self) -> dict[int, int]:
        return self.turns.misses

    @property
    def lease(self) -> Lease | None:
        """In a cluster, the lease this process owns the table by (None: the only process)."""
        return self.writes.lease

    def now(self) -> float:
        return self.ctx.clock.now()

    def playing(self) -> bool:
        """A match is being played: the record says so, and the game is not over (the two
        change together, in one write, under the lock)."""
        game = self.game
        return self.record.status == "playing" and game is not None and not game.is_match_over

    # ------------------------------------------------------------------ loading
    @property
    def id(self) -> str:
        return self.record.id

    @property
    def code(self) -> str:
        return self.record.code

    @classmethod
    async def load(
        cls, record: TableRecord, ctx: TableContext, lease: Lease | None = None, fresh: bool = False
    ) -> Table:
        """Rebuild a table from its record and log: the state it had, exactly (``fresh``: just
        stored, its log is empty and not read)."""
        table = cls(record, ctx, lease)
        await rebuild(table, [] if fresh else await ctx.store.log(record.id))
        return table

    # ------------------------------------------------------------------ writes (and SeatCommands')
    async def _log(
        self,
        kind: str,
        payload: StartEntry | ActionEntry,
        record: TableRecord | None = None,
        window: str | None = None,
    ) -> None:
        """Write the next log entry (durable on return); the caller then takes its seq.

        With ``record``, the table's record changes to it in the same transaction.  ``window``
        names the change for the crash test hook (server/base/crashhook.py)."""
        entry = LogEntry(self.seq + 1, kind, dict(payload), self.now())
        await self.writes.append(self.record.id, entry, record, window)
        if record is not None:
            self.record = record
        self.last_write = entry.created_at

    # ------------------------------------------------------------------ the match
    async def start(self, player_id: str) -> None:
        async with self.lock:
            seating.require_host(self.record, player_id)
            seating.require_lobby(self.record)
            seating.require_full(self.record)
            await self._start_match(1)

    async def rematch(self, player_id: str) -> None:
        async with self.lock:
            seating.require_host(self.record, player_id)
            if self.game is None or not self.game.is_match_over:
                raise TableError("match_running", "a rematch comes after the match is over")
            await self._start_match(self.match_no + 1)

    async def _start_match(self, match_no: int) -> None:
        players = len(self.record.seats)
        # A stacked deal (test hooks) deals the first round of the first match only.
        deal = settings_of(self.record).get(DEAL) if match_no == 1 else None
        try:
            game = new_match(self.rules, players, match_seed(self.record.seed, match_no), deal)
        except ValueError as e:  # the host removed a seat the stacked deal has a hand for
            raise TableError("bad_deal", str(e)) from None
        deadline = self._deadline_for(game)
        payload = start_entry(match_no, players, deadline, deal)
        # The entry and the status change are one write: a crash leaves both or neither.
        playing = replace(self.record, status="playing", updated_at=self.now())
        window = "first_start" if match_no == 1 else "rematch"
        await self._log("start", payload, record=playing, window=window)
        self.seq += 1
        self.hidden.clear()
        self.match_no = match_no
        self.action_ids.clear()  # ids are unique within a match
        self.turns.new_match()
        self.presence.new_match()
        self.game = game
        self.deadline = deadline
        self.recent.clear()
        present = self.hub.present(self.record.id)
        # Not here when the match starts: the grace period runs.
        absent = [s for s in seating.human_seats(self.record) if s not in present]
        self.presence.absent(absent, self.now())
        self.publish_table()
        fanout.publish(self, [])
        self.scheduler.changed()
        self._notify()

    async def act(
        self, seat: int, data: dict[str, Any], action_id: str | None, seen_seq: int | None
    ) -> tuple[int, bool]:
        """Apply a seat's action: validate, log, then fan out.  Returns the seq it was applied
        at, and whether that was now (the seat's event carries ``action_id`` as its ``ack``)
        rather than before (a resent id: the caller acknowledges it)."""
        async with self.lock:
            if action_id is not None and (seat, action_id) in self.action_ids:
                return self.action_ids[seat, action_id], False  # applied once already
            game = self.game
            if game is None or not self.playing():
                raise TableError("not_playing", "no match is being played at this table")
            forfeited = seat in self.presence.forfeited
            action = checked_move(seat, data, forfeited, seen_seq, self.seq, self.last_action)
            return await self._apply(game, action, action_id, auto=False), True

    async def play(self, game: Game, action: Action, *, timed_out: bool = False) -> None:
        """An automatic move (a bot's, or a timer's default: ``timed_out``, and everyone is told
        that time ran out and what was played); the caller holds the lock."""
        missed = timed_out and self.turns.misses_now(game, action.player, self.deadline)
        await self._apply(game, action, None, auto=True, timed_out=timed_out, missed=missed)

    async def _apply(
        self,
        game: Game,
        action: Action,
        action_id: str | None,
        *,
        auto: bool,
        timed_out: bool = False,
        missed: bool = False,
    ) -> int:
        ran_out = self.deadline  # the deadline a timed-out move answers
        after = game.clone()
        try:
            events = after.apply(action)  # the engine validates; a refusal changes nothing
        except IllegalAction as e:
            raise TableError(f"illegal:{e.code}", str(e)) from None
        # The timer restarts when the thing being waited for changes: a new round phase or turn.
        same_wait = after.awaiting().timer_key == game.awaiting().timer_key
        deadline = self.deadline if same_wait else self._deadline_for(after)
        payload = action_entry(action, action_id, deadline, auto, timed_out, missed)
        finished, window = None, None
        if after.is_match_over:  # the last action and the end of the match are one write
            finished = replace(self.record, status="finished", updated_at=self.now())
            window = "match_end"
        elif after.is_round_over and not game.is_round_over:
            window = "round_end"
        await self._log("action", payload, record=finished, window=window)
        self.seq += 1
        self.hidden.clear()
        self.game = after
        self.deadline = deadline
        if action_id is not None:
            self.action_ids[action.player, action_id] = self.seq
        self.last_action = action.text()
        self.recent.append((self.seq, events))
        self.presence.happened(events)  # before a forfeit: its bot starts after this action
        if missed:  # the third miss in the match forfeits the seat to a bot
            if self.turns.charge(action.player, ran_out):
                self.presence.forfeit(action.player, after)
            self.publish_table()
        fanout.publish(self, events, action if timed_out else None, action_id, action.player)
        if finished is not None:
            self.publish_table()  # the table's status is "finished" now: every client hears it
        self.scheduler.changed()
        self.ctx.metrics.applied(auto=auto, timed_out=timed_out)
        if after.is_match_over:
            self.ctx.hooks.match_over(self.record)
        self._notify()
        return self.seq

    # ------------------------------------------------------------------ whose move
    def waiting_for(self) -> list[int]:
        """The seats of people the match waits for now (none at a reveal: the timer or anyone
        deals the next round; none that a bot plays)."""
        game = self.game
        if game is None or not self.playing():
            return []
        waiting = game.awaiting()
        if waiting.any_one:
            return []
        automatic = set(self.presence.automatic_seats())
        humans = set(seating.human_seats(self.record))
        return [s for s in waiting.must_act if s in humans and s not in automatic]

    def _notify(self) -> None:
        """Tell the players of a turn-based table that it is their move, once per wait (a
        seat is told again only after it stopped being waited for)."""
        fresh = self.turns.to_notify(self.waiting_for)
        if fresh and self.ctx.notifier is not None:
            self.ctx.notifier.your_turn(self.record, fresh, self.deadline)

    def settings(self) -> TimedSettings:
        """The table's settings, the server's timers filling in those it does not set."""
        return {**DEFAULT_SETTINGS, **settings_of(self.record)}

    def _deadline_for(self, game: Game) -> float | None:
        return deadline_for(game, self.mode, self.settings(), self.ctx.config, self.now())

    # ------------------------------------------------------------------ fan-out
    def render(self, seat: int | None) -> SnapshotFrame:
        """A snapshot for one audience (:func:`.fanout.render`)."""
        return fanout.render(self, seat)

    def table_info(self) -> TableInfoJson:
        return fanout.table_info(self)

    def publish_table(self) -> None:
        fanout.publish_table(self)

    def catch_up(self, seat: int | None, last_seq: int | None) -> list[fanout.CatchUp]:
        return fanout.catch_up(self, seat, last_seq)

    async def close(self) -> None:
        self.scheduler.close()

    async def lost(self) -> None:
        """A fenced write was refused: another process owns the table now."""
        if self.on_lost is not None:
            await self.on_lost()
