"""One table: the actor that owns a match's engine state and applies one command at a time.

Every command takes the table's lock (asyncio locks wake waiters in arrival order, so two TAPs
race fairly), then follows one order of work: check who asks and what they saw, validate with
the engine, write the log entry, then acknowledge and fan out.  Nothing reaches a client before it
is durable.  Who sits where is decided in :mod:`.seating`, who plays a seat now in
:mod:`.presence`, and timers and bot moves in :mod:`.scheduler`.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ...bots import Bot
from ...engine import (
    SPECTATOR,
    Action,
    ActionFormatError,
    Event,
    Game,
    IllegalAction,
    Reveal,
    Ruleset,
    Timer,
    observe_json,
    public_json,
    seen_event,
)
from ...records.matches import DEAL, ONE_WAY, SEEDING, match_seed, new_match, start_seed
from ...store import Lease, LeaseLost, LogEntry, TableRecord, TableStatus
from ..base.errors import TableError
from ..modes import ranked_mode
from ..modes.modes import has_stand_ins, is_turn_based, shows_recollection
from ..modes.ratings import first_placed, places
from ..modes.turnbased import MISSED, misses_forfeit
from ..transport.hub import SPECTATORS
from . import seating
from .context import BotFactory, TableConfig, TableContext
from .presence import Presence
from .scheduler import Scheduler, deadline_for

__all__ = ["BotFactory", "Table", "TableConfig", "TableError", "match_seed"]

DEFAULT_SETTINGS: dict[str, Any] = {"peek_seconds": 20, "turn_seconds": 60}
# The seats whose moment is over, with the seq it is over at: kept in the table's record, so a
# restart (or the process that takes the table over) still shows them nothing of that moment.
MOMENT_OVER = "moment_over"
# Settings that never leave the server (a stacked deal; whose moment is over).
PRIVATE_SETTINGS = frozenset({DEAL, MOMENT_OVER})

# Moves whose meaning does not depend on what others did since: no stale-seq check for them.
_INDEPENDENT = frozenset({"opening_peek", "next_round"})


# Rulesets by their JSON: a ruleset is immutable, so the tables of equal rules share one, read
# and checked once, and the engine's work on it is done once too (its fingerprint, its deck, at
# each match's start otherwise).  Bounded: many custom rulesets empty it.
_RULESETS: dict[str, Ruleset] = {}
RULESETS_KEPT = 256


def ruleset_of(data: dict[str, Any]) -> Ruleset:
    """``Ruleset.from_json(data)``, shared by the tables of equal rules."""
    try:
        key = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):  # nothing a record holds: read, not kept
        return Ruleset.from_json(data)
    rules = _RULESETS.get(key)
    if rules is None:
        rules = Ruleset.from_json(data)  # RulesetError: nothing kept
        if len(_RULESETS) >= RULESETS_KEPT:
            _RULESETS.clear()
        _RULESETS[key] = rules
    return rules


class Table:
    """A table's live state: its record, its game, its sequence number, who plays its seats."""

    def __init__(self, record: TableRecord, ctx: TableContext, lease: Lease | None = None) -> None:
        self.record = record
        self._seats_of: TableRecord | None = None  # the record ``_seats`` was read from
        self._seats: dict[str, int] = {}  # its human seats, by player id
        self.ctx = ctx
        # In a cluster, the lease this process owns the table by: every write is fenced with
        # it (None: the only process, no fence).
        self.lease = lease
        self.on_lost: Callable[[], Awaitable[None]] | None = None  # set by the lobby
        self._losing: asyncio.Task[None] | None = None  # the drop after a refused write
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
        self.turn_based = is_turn_based(record.settings)
        self.presence = Presence(
            record.seed,
            ctx.bot_factory,
            ctx.config.grace_seconds,
            standins=has_stand_ins(record.settings),
        )
        self.scheduler = Scheduler(self, ctx.clock, ctx.config.bot_delay, ctx.thinker)
        # Turn-based: missed deadlines per seat in this match, and the deadline each seat was
        # last charged for (one miss per deadline, however many default moves it takes).
        self.misses: dict[int, int] = {}
        self.charged: dict[int, float | None] = {}
        self.notified: set[int] = set()  # seats told it is their turn, until they have moved
        # Seats that said their moment is over (``ready``) at this seq: what they were being
        # shown is no longer in any frame for them, until the table moves on.
        self.hidden: set[int] = set()

    @property
    def bots(self) -> dict[int, Bot]:
        return self.presence.bots

    @property
    def away(self) -> dict[int, float]:
        return self.presence.away

    @property
    def standins(self) -> dict[int, Bot]:
        return self.presence.standins

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
        cls,
        record: TableRecord,
        ctx: TableContext,
        lease: Lease | None = None,
        *,
        fresh: bool = False,
    ) -> Table:
        """Rebuild a table from its record and log: the state it had, exactly.  ``fresh``: the
        record was just stored under a new id, so its log is empty and is not read."""
        table = cls(record, ctx, lease)
        for entry in () if fresh else await ctx.store.log(record.id):
            table._replay(entry)
        status = table._status_from_log()
        if status != record.status:
            # The log is the truth (a server from before entries and status changes were one
            # write could crash between them): the record is put right.
            record = replace(record, status=status, updated_at=ctx.clock.now())
            await table._save(record)
        table.presence.seat_bots(record.seats)
        table.hidden = _hidden_at(record.settings, table.seq)
        for seat, missed in table.misses.items():
            if misses_forfeit(missed):
                table.presence.forfeit(seat, table.game)
        if record.status == "playing":  # a ranked forfeit is for good, across restarts too
            for seat in ranked_mode.forfeits(record.settings):
                table.presence.forfeit(seat, table.game)
        # Whoever the table waited for was told before the restart: not again for that wait.
        table.notified = set(table.waiting_for()) if table.turn_based else set()
        if record.status == "playing":
            # Everyone is disconnected after a restart: grace periods start now.
            table.presence.absent(seating.human_seats(record), ctx.clock.now())
        table.scheduler.rearm()
        return table

    def _status_from_log(self) -> TableStatus:
        """The status the replayed log says: a started match is playing until it is over."""
        status = self.record.status
        if status not in ("lobby", "playing", "finished"):
            return status  # a status the log has no say in (closed, broken)
        if self.game is None:
            return "lobby"  # no match has started
        return "finished" if self.game.is_match_over else "playing"

    def _replay(self, entry: LogEntry) -> None:
        self.seq = entry.seq
        self.last_write = max(self.last_write, entry.created_at)
        payload = entry.payload
        if entry.kind == "start":
            self.match_no = int(payload["match"])
            self.action_ids.clear()
            self.misses.clear()
            self.charged.clear()
            self.recent.clear()
            # The start entry carries a stacked deal (test hooks) as it was dealt.
            seed = start_seed(self.record.seed, payload)
            self.game = new_match(self.rules, int(payload["players"]), seed, payload.get(DEAL))
        elif entry.kind == "action":
            if self.game is None:
                raise ValueError(f"log entry {entry.seq}: an action before the match started")
            action = Action.from_json(payload["action"])
            # Kept as when it was played: a client reconnecting to a process that took the
            # table over is sent exactly the events it missed.
            self.recent.append((entry.seq, self.game.apply(action)))
            self.last_action = action.text()
            if payload.get(MISSED):  # the deadline that ran out is the one before this entry
                self.misses[action.player] = self.misses.get(action.player, 0) + 1
                self.charged[action.player] = self.deadline
            if payload.get("id"):
                self.action_ids[action.player, str(payload["id"])] = entry.seq
        self.deadline = payload.get("deadline")

    # ------------------------------------------------------------------ seats
    def seat_of(self, player_id: str) -> int | None:
        """The player's seat: found once for each record (an immutable value, replaced when
        seats move), since every connection's seat is asked several times a frame."""
        record = self.record
        if self._seats_of is not record:
            self._seats_of = record
            self._seats = {}
            for s in record.seats:
                if s.kind == "human" and s.player_id is not None:
                    self._seats.setdefault(s.player_id, s.seat)  # the first, as seating's
        return self._seats.get(player_id)

    def host_seat(self) -> int | None:
        return seating.host_seat(self.record)

    async def join(self, player_id: str, name: str) -> int:
        """Seat a player (their old seat when they already have one)."""
        async with self.lock:
            record, seat = seating.seat_player(self.record, player_id, name, self.now())
            if record is not self.record:
                await self._save(record)
                self.publish_table()
            return seat

    async def add_bot(self, player_id: str, level: str, seat: int | None) -> None:
        async with self.lock:
            chosen = seating.open_seat_for_bot(self.record, player_id, seat)
            try:  # the bot first: a level no bot has is refused before anything is saved
                bot = self.presence.new_bot(chosen, level)
            except ValueError as e:
                raise TableError("bad_bot_level", str(e)) from None
            await self._save(seating.seat_bot(self.record, chosen, level, self.now()))
            self.presence.bots[chosen] = bot
            self.publish_table()

    async def remove_seat(self, player_id: str, seat: int) -> None:
        async with self.lock:
            record, kept = seating.without_seat(self.record, player_id, seat, self.now())
            self.presence.renumber(kept)
            await self._save(record)
            self.publish_table()

    async def _save(self, record: TableRecord) -> None:
        try:
            await self.store.update_table(record, lease=self.lease)
        except LeaseLost:
            self._lost_later()
            raise
        self.record = record

    def _lost_later(self) -> None:
        """A fenced write was refused, whatever asked for it (a player's frame, an HTTP call,
        a timer): the table is dropped here once its caller lets go of it (:meth:`lost`)."""
        if self._losing is None:
            self._losing = asyncio.get_running_loop().create_task(self.lost())

    async def _log(
        self,
        kind: str,
        payload: dict[str, Any],
        record: TableRecord | None = None,
        window: str | None = None,
    ) -> None:
        """Write the next log entry (durable on return); the caller then takes its seq.

        With ``record``, the table's record changes to it in the same transaction.  ``window``
        names the change for the crash test hook (server/base/crashhook.py)."""
        entry = LogEntry(self.seq + 1, kind, payload, self.now())
        if self.ctx.crash is not None:
            self.ctx.crash.arm(window, self.record.id, entry.seq)
        try:
            if record is None:
                await self.store.append(self.record.id, entry, lease=self.lease)
            else:
                await self.store.append_and_update(record, entry, lease=self.lease)
        except LeaseLost:
            self._lost_later()
            raise
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
        deal = self.record.settings.get(DEAL) if match_no == 1 else None
        try:
            game = new_match(self.rules, players, match_seed(self.record.seed, match_no), deal)
        except ValueError as e:  # the host removed a seat the stacked deal has a hand for
            raise TableError("bad_deal", str(e)) from None
        deadline = self._deadline_for(game)
        payload: dict[str, Any] = {
            "match": match_no,
            "players": players,
            "deadline": deadline,
            SEEDING: ONE_WAY,
        }
        if deal is not None:
            payload[DEAL] = deal
        # The entry and the status change are one write: a crash leaves both or neither.
        playing = replace(self.record, status="playing", updated_at=self.now())
        window = "first_start" if match_no == 1 else "rematch"
        await self._log("start", payload, record=playing, window=window)
        self.seq += 1
        self.hidden.clear()
        self.match_no = match_no
        self.action_ids.clear()  # ids are unique within a match
        self.misses.clear()
        self.charged.clear()
        self.notified.clear()
        self.presence.new_match()
        self.game = game
        self.deadline = deadline
        self.recent.clear()
        present = self.hub.present(self.record.id)
        # Not here when the match starts: the grace period runs.
        absent = [s for s in seating.human_seats(self.record) if s not in present]
        self.presence.absent(absent, self.now())
        self.publish_table()
        self._publish([])
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
            if seat in self.presence.forfeited:
                raise TableError(
                    "seat_forfeited",
                    "your seat was forfeited (three missed deadlines, or a ranked match left "
                    "past its grace period): a bot plays it to the end of this match",
                )
            try:
                action = Action.from_json(data, player=seat)
            except ActionFormatError as e:
                raise TableError("bad_action", str(e)) from None
            if seen_seq is not None and seen_seq != self.seq and action.kind not in _INDEPENDENT:
                last = f"; last: {self.last_action}" if self.last_action else ""
                raise TableError(
                    "stale",
                    f"the table moved on before your action arrived (you saw {seen_seq}, "
                    f"it is at {self.seq}{last}): here is the current state",
                )
            return await self._apply(game, action, action_id, auto=False), True

    async def play(self, game: Game, action: Action, *, timed_out: bool = False) -> None:
        """An automatic move (a bot's, or a timer's default: ``timed_out``, and everyone is told
        that time ran out and what was played); the caller holds the lock."""
        missed = timed_out and self._misses_now(game, action.player)
        await self._apply(game, action, None, auto=True, timed_out=timed_out, missed=missed)

    def _misses_now(self, game: Game, seat: int) -> bool:
        """Whether a move the timer plays for ``seat`` is a missed deadline to count: at a
        turn-based table, the first such move for the deadline of a peek or a turn."""
        if not self.turn_based or game.awaiting().timer not in (Timer.PEEK, Timer.TURN):
            return False
        return seat not in self.charged or self.charged[seat] != self.deadline

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
        payload = _action_entry(action, action_id, deadline, auto, timed_out, missed)
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
        if missed:
            self._missed(action.player, ran_out)
        self._publish(events, action if timed_out else None, action_id, action.player)
        if finished is not None:
            self.publish_table()  # the table's status is "finished" now: every client hears it
        self.scheduler.changed()
        self.ctx.metrics.applied(auto=auto, timed_out=timed_out)
        if after.is_match_over:
            self.ctx.hooks.match_over(self.record)
        self._notify()
        return self.seq

    def _missed(self, seat: int, deadline: float | None) -> None:
        """Count a missed deadline for ``seat`` (the one that ran out: the seat is charged
        once for it); the third in the match forfeits the seat to a bot."""
        self.misses[seat] = self.misses.get(seat, 0) + 1
        self.charged[seat] = deadline
        if misses_forfeit(self.misses[seat]):
            self.presence.forfeit(seat, self.game)
        self.publish_table()

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
        if not self.turn_based:
            return
        waiting = set(self.waiting_for())
        self.notified &= waiting
        fresh = sorted(waiting - self.notified)
        self.notified |= waiting
        if fresh and self.ctx.notifier is not None:
            self.ctx.notifier.your_turn(self.record, fresh, self.deadline)

    def settings(self) -> dict[str, Any]:
        return {**DEFAULT_SETTINGS, **self.record.settings}

    def _deadline_for(self, game: Game) -> float | None:
        return deadline_for(game, self.settings(), self.ctx.config, self.now())

    # ------------------------------------------------------------------ fan-out
    def render(
        self,
        seat: int | None,
        events: list[Event] | None = None,
        timed_out: Action | None = None,
        ack: str | None = None,
        public: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The message for one audience: its events, its view and its legal actions (and, when
        a timer ran out, the move played for the seat it waited for; ``ack``: the id of the
        audience's own action the event applied, which answers it).  ``public``: the game's
        ``public_json``, one for all the audiences of a change."""
        game = self.game
        if game is None:  # never: only a table in a match renders
            raise RuntimeError("render before the match started")
        # Recollection only where the mode shows it (turn-based), whatever the ruleset says.
        knowledge = shows_recollection(self.record.settings)
        seen = observe_json(game, _viewer(seat), events or (), knowledge=knowledge, public=public)
        if seat is not None and seat in self.hidden:
            seen["view"]["shown"] = {}  # its moment is over: the seat said so
        winners = self._winners(game)
        if winners is not None:  # a ranked match's forfeiters are never among its winners
            seen["view"]["winners"] = winners
            for event in seen.get("events") or []:
                if event.get("winners"):
                    event["winners"] = winners
        # A forfeited seat's bot plays it to the end of the match: its player may do nothing.
        forfeited = seat is not None and seat in self.presence.forfeited
        message: dict[str, Any] = {
            "type": "event" if events is not None else "snapshot",
            "seq": self.seq,
            "view": seen["view"],
            "legal": [] if forfeited else seen["legal"],
            "sets": 0 if forfeited else seen["sets"],
            "deadline": self.deadline,
            "now": self.now(),
        }
        if events is not None:
            message["events"] = seen["events"]
            if timed_out is not None:
                message["timed_out"] = {"seat": timed_out.player, "action": timed_out.to_json()}
            if ack is not None:
                message["ack"] = ack
        else:  # a snapshot also carries the match's scoreboard: every round so far
            message["rounds"] = [Reveal.of(r, game.deck).to_json() for r in game.history]
        return message

    def _publish(
        self,
        events: list[Event],
        timed_out: Action | None = None,
        ack: str | None = None,
        actor: int | None = None,
    ) -> None:
        """Fan out a change; ``ack``: the id of the action of seat ``actor`` that made it, in
        that seat's event (no other audience sees it)."""
        if self.game is None:
            return
        messages: dict[int, dict[str, Any]] = {}
        public = public_json(self.game)  # what every audience's view shares
        for audience in self.hub.audiences(self.record.id):  # render only for who listens
            seat = None if audience == SPECTATORS else audience
            mine = ack if seat is not None and seat == actor else None
            messages[audience] = self.render(seat, events, timed_out, mine, public)
        self.hub.publish(self.record.id, messages)

    def public_settings(self) -> dict[str, Any]:
        return {k: v for k, v in self.settings().items() if k not in PRIVATE_SETTINGS}

    def table_info(self) -> dict[str, Any]:
        """Public facts about the table: never the seed."""
        present = self.hub.present(self.record.id)
        return {
            "code": self.record.code,
            "preset": self.record.preset,
            "status": self.record.status,
            "settings": self.public_settings(),
            "host_seat": self.host_seat(),
            "rules": self.record.rules,
            "match": self.match_no,
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.bot_level,
                    "connected": s.kind == "bot" or s.seat in present,
                    "bot_standin": s.seat in self.presence.standins,
                    "missed": self.misses.get(s.seat, 0),
                    "forfeited": s.seat in self.presence.forfeited,
                }
                for s in self.record.seats
            ],
        }

    def table_message(self, seat: int | None) -> dict[str, Any]:
        """The table's public facts, and which seat (if any) the receiver holds now."""
        return {"type": "table", "seq": self.seq, "seat": seat, "table": self.table_info()}

    def publish_table(self) -> None:
        info = self.table_info()
        messages: dict[int, dict[str, Any]] = {
            SPECTATORS: {"type": "table", "seq": self.seq, "seat": None, "table": info}
        }
        for seat in range(len(self.record.seats)):
            messages[seat] = {"type": "table", "seq": self.seq, "seat": seat, "table": info}
        self.hub.publish(self.record.id, messages)

    def catch_up(self, seat: int | None, last_seq: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: the public part of what it missed, or only a
        fresh snapshot.

        A missed event never carries the cards the seat was shown in it (``seen``), whatever
        ``last_seq`` the client claims: a private card reaches a seat in its moment only, and
        what the seat may still know now is in the snapshot's view (the card it is being
        shown, the card it holds, and its knowledge where the table has Recollection)."""
        out = [self.table_message(seat)]
        game = self.game
        if game is None:
            return out
        if last_seq is not None and last_seq <= self.seq:
            missed = [(seq, ev) for seq, ev in self.recent if seq > last_seq]
            if last_seq == self.seq or (missed and missed[0][0] == last_seq + 1):
                deck = game.deck
                for seq, events in missed:
                    public = [seen_event(e, deck, SPECTATOR).to_json() for e in events]
                    out.append({"type": "missed", "seq": seq, "events": public})
        snapshot = self.render(seat)
        if last_seq is None:  # a page loaded afresh: its log shows the latest public events
            snapshot["recent"] = self.public_recent()
        out.append(snapshot)
        return out

    def public_recent(self) -> list[dict[str, Any]]:
        """The latest published changes, as a spectator saw them (no card shown to one seat)."""
        game = self.game
        if game is None:
            return []
        deck = game.deck
        batches = list(self.recent)[-RESTORED_BATCHES:]
        return [
            {"seq": seq, "events": [seen_event(e, deck, SPECTATOR).to_json() for e in ev]}
            for seq, ev in batches
        ]

    def _winners(self, game: Game) -> list[int] | None:
        """The winners of a ranked match that someone forfeited, when it is over: the seats in
        first place once the forfeiters are placed last (None: the engine's winners stand)."""
        if not game.is_match_over:  # (every render asks: the cheap test first)
            return None
        gone = ranked_mode.forfeits(self.record.settings)
        if not gone:
            return None
        return first_placed(places(game.places(), gone), gone)

    async def moment_over(self, seat: int) -> None:
        """The seat is done looking (``ready``): what it is being shown now leaves its view
        until the table moves on, and every device of the seat is sent that view (a reload
        or a second device shows the card no more)."""
        async with self.lock:
            game = self.game
            if game is None or seat in self.hidden:
                return
            shown = game.shown
            if shown is None or shown[0] != seat:
                return  # nothing shown to this seat alone (a card shown to all stays public)
            # Stored before anyone is told: a restart keeps the moment over (a stale entry,
            # of a seq the table has moved on from, is ignored when it is read).
            hidden = sorted(self.hidden | {seat})
            settings = {**self.record.settings, MOMENT_OVER: {"seq": self.seq, "seats": hidden}}
            await self._save(replace(self.record, settings=settings, updated_at=self.now()))
            self.hidden.add(seat)
            if seat in self.hub.audiences(self.record.id):
                self.hub.publish(self.record.id, {seat: self.render(seat)})

    # ------------------------------------------------------------------ presence
    async def connected(self, seat: int) -> None:
        async with self.lock:
            self.presence.arrived(seat)
            self.publish_table()
            self.scheduler.rearm()

    async def disconnected(self, seat: int) -> None:
        async with self.lock:
            if seat in self.hub.present(self.record.id):
                return  # another device of the same player is still here
            if self.playing():
                self.presence.left(seat, self.now())
            self.publish_table()
            self.scheduler.rearm()

    async def stood_in(self, seat: int) -> None:
        """A stand-in took the seat of a player whose grace period ended (the caller holds the
        lock).  At a ranked table that player forfeits the match, for good: kept in the table's
        settings, so a restart remembers it, with whether no round had been scored yet."""
        settings = self.record.settings
        if (
            ranked_mode.is_ranked(settings)
            and self.playing()
            and seat not in ranked_mode.forfeits(settings)
        ):
            early = self.game is not None and not self.game.history
            changed = ranked_mode.with_forfeit(settings, seat, early)
            await self._save(replace(self.record, settings=changed, updated_at=self.now()))
            # For good here too, not only after a restart: the player, back, may do nothing.
            self.presence.forfeit(seat, self.game)
        self.publish_table()

    async def close(self) -> None:
        self.scheduler.close()

    async def lost(self) -> None:
        """A fenced write was refused: another process owns the table now."""
        if self.on_lost is not None:
            await self.on_lost()


# The changes a page loaded afresh gets back for its log (it shows the last 40 lines).
RESTORED_BATCHES = 40


def _hidden_at(settings: dict[str, Any], seq: int) -> set[int]:
    """The seats whose moment the record says is over at ``seq`` (none if it is of another)."""
    over = settings.get(MOMENT_OVER)
    if not isinstance(over, dict) or over.get("seq") != seq:
        return set()
    return {int(s) for s in over.get("seats", [])}


def _viewer(seat: int | None) -> int:
    """The engine's viewer for an audience (None: a spectator)."""
    return SPECTATOR if seat is None else seat


def _action_entry(
    action: Action,
    action_id: str | None,
    deadline: float | None,
    auto: bool,
    timed_out: bool,
    missed: bool,
) -> dict[str, Any]:
    """An action's log entry: the action, the deadline it leaves, and (only when set) the
    client's id and whether a bot, a timer or a missed deadline played it."""
    payload: dict[str, Any] = {"action": action.to_json(), "deadline": deadline}
    if action_id is not None:
        payload["id"] = action_id
    if auto:
        payload["auto"] = True
    if timed_out:
        payload["timed_out"] = True
    if missed:
        payload[MISSED] = True
    return payload
