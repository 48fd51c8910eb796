"""One table: the actor that owns a match's engine state and applies one command at a time.

Every command takes the table's lock (asyncio locks wake waiters in arrival order, so two TAPs
race fairly), then follows one order of work: validate with the engine, write the log entry,
then acknowledge and fan out.  Nothing reaches a client before it is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..bots import Bot, Reactive, SeatInfo, seat_info
from ..bots.base import Watcher
from ..engine import SPECTATOR, Action, ActionFormatError, Game, IllegalAction, Ruleset, view
from ..engine.events import Event
from ..engine.game import OPENING, ROUND_OVER, TURN_END, TURN_START
from ..store.base import LogEntry, SeatRecord, Store, TableRecord
from .defaults import default_action
from .hub import SPECTATORS, Hub
from .testhooks import DEAL, new_match

BotFactory = Callable[[str, int], Bot]


class TableError(Exception):
    """A command the table refuses; ``code`` is stable, the message readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class TableConfig:
    """Server-wide timings (a table's own settings override the per-table ones)."""

    bot_delay: float = 0.7  # seconds a bot "thinks" before it plays, so people can follow
    grace_seconds: float = 30.0  # a disconnected player keeps the seat this long before a bot
    reveal_seconds: float = 12.0  # the reveal stays up this long before the next round
    recent: int = 512  # published batches kept to resend to a reconnecting client


DEFAULT_SETTINGS: dict[str, Any] = {"peek_seconds": 20, "turn_seconds": 60}
PRIVATE_SETTINGS = frozenset({DEAL})  # settings that never leave the server (a stacked deal)


# Moves whose meaning does not depend on what others did since: no stale-seq check for them.
_INDEPENDENT = frozenset({"opening_peek", "next_round"})


def _timer_key(game: Game) -> tuple[int, int, int]:
    phase = game.phase
    if TURN_START <= phase <= TURN_END:
        return (game.round_no, TURN_START, game.turn)
    return (game.round_no, phase, -1)


def match_seed(seed: int, match_no: int) -> int:
    """Each match of a table has its own seed, derived from the table's secret seed."""
    return seed * 1_000 + match_no


class Table:
    """A table's live state: its record, its game, its sequence number, its timers and bots."""

    def __init__(
        self,
        record: TableRecord,
        store: Store,
        hub: Hub,
        bot_factory: BotFactory,
        config: TableConfig,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.record = record
        self.store = store
        self.hub = hub
        self.bot_factory = bot_factory
        self.config = config
        self.clock = clock
        self.rules = Ruleset.from_json(record.rules)
        self.lock = asyncio.Lock()
        self.game: Game | None = None
        self.seq = 0
        self.match_no = 0
        self.deadline: float | None = None
        self.recent: deque[tuple[int, list[Event]]] = deque(maxlen=config.recent)
        self.action_ids: dict[tuple[int, str], int] = {}  # this match's (seat, id) -> seq
        self.last_action = ""  # the text form of the last action applied (public)
        self.bots: dict[int, Bot] = {}
        self.away: dict[int, float] = {}  # seat -> when its grace period ends
        self.standins: dict[int, Bot] = {}  # human seats a bot plays while their player is away
        self.absences: dict[int, int] = {}  # seat -> stand-ins it has had (one per absence)
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()  # wake-ups under way
        self._thinking: Bot | None = None  # the bot choosing a move (off the event loop)
        self._held: list[SeatInfo] = []  # what the thinking bot is to watch once it has chosen
        self._reacted_seq = -1  # the seq at which bots were last asked about a TAP
        self.closed = False

    # ------------------------------------------------------------------ loading
    @classmethod
    async def load(
        cls,
        record: TableRecord,
        store: Store,
        hub: Hub,
        bot_factory: BotFactory,
        config: TableConfig,
        clock: Callable[[], float] = time.time,
    ) -> Table:
        """Rebuild a table from its record and log: the state it had, exactly."""
        table = cls(record, store, hub, bot_factory, config, clock)
        for entry in await store.log(record.id):
            table._replay(entry)
        table._make_bots()
        if record.status == "playing":
            # Everyone is disconnected after a restart: grace periods start now.
            now = clock()
            for seat in table.human_seats():
                table.away[seat] = now + config.grace_seconds
        table._schedule()
        return table

    def _replay(self, entry: LogEntry) -> None:
        self.seq = entry.seq
        payload = entry.payload
        if entry.kind == "start":
            self.match_no = int(payload["match"])
            self.action_ids.clear()
            # The start entry carries a stacked deal (test hooks) as it was dealt.
            seed = match_seed(self.record.seed, self.match_no)
            self.game = new_match(self.rules, int(payload["players"]), seed, payload.get(DEAL))
        elif entry.kind == "action":
            assert self.game is not None
            action = Action.from_json(payload["action"])
            self.game.apply(action)
            self.last_action = action.text()
            if payload.get("id"):
                self.action_ids[action.player, str(payload["id"])] = entry.seq
        self.deadline = payload.get("deadline")

    def _make_bots(self) -> None:
        for seat in self.record.seats:
            if seat.kind == "bot" and seat.seat not in self.bots:
                self.bots[seat.seat] = self.bot_factory(
                    seat.bot_level or "medium", self.record.seed + seat.seat
                )

    # ------------------------------------------------------------------ seats
    def human_seats(self) -> list[int]:
        return [s.seat for s in self.record.seats if s.kind == "human"]

    def seat_of(self, player_id: str) -> int | None:
        for s in self.record.seats:
            if s.kind == "human" and s.player_id == player_id:
                return s.seat
        return None

    def host_seat(self) -> int | None:
        return self.seat_of(self.record.host_id)

    async def join(self, player_id: str, name: str) -> int:
        """Seat a player (their old seat when they already have one)."""
        async with self.lock:
            seat = self.seat_of(player_id)
            if seat is not None:
                return seat
            if self.record.status != "lobby":
                raise TableError("table_started", "this table's match has started; watch instead")
            for s in self.record.seats:
                if s.kind == "open":
                    taken = SeatRecord(s.seat, "human", name, player_id)
                    await self._save_seats(taken)
                    self._publish_table()
                    return s.seat
            raise TableError("table_full", "every seat at this table is taken")

    async def add_bot(self, player_id: str, level: str, seat: int | None) -> None:
        async with self.lock:
            self._require_host(player_id)
            self._require_lobby()
            free = [s for s in self.record.seats if s.kind == "open" and seat in (None, s.seat)]
            if not free:
                raise TableError("no_open_seat", "there is no open seat for a bot")
            chosen = free[0]
            try:  # the bot first: a level no bot has is refused before anything is saved
                bot = self.bot_factory(level, self.record.seed + chosen.seat)
            except ValueError as e:
                raise TableError("bad_bot_level", str(e)) from None
            await self._save_seats(SeatRecord(chosen.seat, "bot", f"Bot ({level})", None, level))
            self.bots[chosen.seat] = bot
            self._publish_table()

    async def remove_seat(self, player_id: str, seat: int) -> None:
        async with self.lock:
            self._require_host(player_id)
            self._require_lobby()
            seats = [s for s in self.record.seats if s.seat != seat]
            if len(seats) == len(self.record.seats):
                raise TableError("no_such_seat", f"there is no seat {seat}")
            if seat == self.host_seat():
                raise TableError("host_seat", "the host's own seat cannot be removed")
            if len(seats) < 2:
                raise TableError("too_few_seats", "a table needs at least two seats")
            renumbered = tuple(replace(s, seat=i) for i, s in enumerate(seats))
            self.bots = {i: self.bots[s.seat] for i, s in enumerate(seats) if s.seat in self.bots}
            self.record = replace(self.record, seats=renumbered, updated_at=self.clock())
            await self.store.update_table(self.record)
            self._publish_table()

    async def _save_seats(self, changed: SeatRecord) -> None:
        seats = tuple(changed if s.seat == changed.seat else s for s in self.record.seats)
        self.record = replace(self.record, seats=seats, updated_at=self.clock())
        await self.store.update_table(self.record)

    def _require_host(self, player_id: str) -> None:
        if player_id != self.record.host_id:
            raise TableError("not_host", "only the host can do that")

    def _require_lobby(self) -> None:
        if self.record.status != "lobby":
            raise TableError("table_started", "the match has started")

    # ------------------------------------------------------------------ the match
    async def start(self, player_id: str) -> None:
        async with self.lock:
            self._require_host(player_id)
            self._require_lobby()
            if any(s.kind == "open" for s in self.record.seats):
                raise TableError("open_seats", "fill or remove the open seats first")
            await self._start_match(1)

    async def rematch(self, player_id: str) -> None:
        async with self.lock:
            self._require_host(player_id)
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
        payload: dict[str, Any] = {"match": match_no, "players": players, "deadline": deadline}
        if deal is not None:
            payload[DEAL] = deal
        await self.store.append(
            self.record.id, LogEntry(self.seq + 1, "start", payload, self.clock())
        )
        self.record = replace(self.record, status="playing", updated_at=self.clock())
        await self.store.update_table(self.record)
        self.seq += 1
        self.match_no = match_no
        self.action_ids.clear()  # ids are unique within a match
        self.game = game
        self.deadline = deadline
        self.recent.clear()
        present = self.hub.present(self.record.id)
        for seat in self.human_seats():
            if seat not in present:  # not here when the match starts: the grace period runs
                self.away.setdefault(seat, self.clock() + self.config.grace_seconds)
        self._publish_table()
        self._publish([])
        self._watch()
        self._schedule()

    async def act(
        self, seat: int, data: dict[str, Any], action_id: str | None, seen_seq: int | None
    ) -> int:
        """Apply a seat's action: validate, log, then fan out.  Returns the table's new seq."""
        async with self.lock:
            if action_id is not None and (seat, action_id) in self.action_ids:
                return self.action_ids[seat, action_id]  # a resent action: applied once already
            game = self.game
            if game is None or self.record.status != "playing":
                raise TableError("not_playing", "no match is being played at this table")
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
            return await self._apply(game, action, action_id, auto=False)

    async def _apply(self, game: Game, action: Action, action_id: str | None, *, auto: bool) -> int:
        after = game.clone()
        try:
            events = after.apply(action)  # the engine validates; a refusal changes nothing
        except IllegalAction as e:
            raise TableError(f"illegal:{e.code}", str(e)) from None
        # The timer restarts when the thing being waited for changes: a new round phase or turn.
        deadline = (
            self.deadline if _timer_key(after) == _timer_key(game) else self._deadline_for(after)
        )
        payload: dict[str, Any] = {"action": action.to_json(), "deadline": deadline}
        if action_id is not None:
            payload["id"] = action_id
        if auto:
            payload["auto"] = True
        await self.store.append(
            self.record.id, LogEntry(self.seq + 1, "action", payload, self.clock())
        )
        self.seq += 1
        self.game = after
        self.deadline = deadline
        if action_id is not None:
            self.action_ids[action.player, action_id] = self.seq
        self.last_action = action.text()
        if after.is_match_over:
            self.record = replace(self.record, status="finished", updated_at=self.clock())
            await self.store.update_table(self.record)
        self.recent.append((self.seq, events))
        self._publish(events)
        self._watch()
        self._schedule()
        return self.seq

    def _deadline_for(self, game: Game) -> float | None:
        settings = {**DEFAULT_SETTINGS, **self.record.settings}
        now = self.clock()
        if game.phase == OPENING:
            return now + float(settings["peek_seconds"])
        if game.phase == ROUND_OVER:
            return now + self.config.reveal_seconds
        if TURN_START <= game.phase <= TURN_END:
            return now + float(settings["turn_seconds"])
        return None

    # ------------------------------------------------------------------ fan-out
    def render(self, seat: int | None, events: list[Event] | None = None) -> dict[str, Any]:
        """The message for one audience: its events, its view and its legal actions."""
        game = self.game
        assert game is not None
        viewer = SPECTATOR if seat is None else seat
        message: dict[str, Any] = {
            "type": "event" if events is not None else "snapshot",
            "seq": self.seq,
            "view": view(game, viewer),
            "legal": [a.to_json() for a in game.legal_actions(seat)] if seat is not None else [],
            "deadline": self.deadline,
            "now": self.clock(),
        }
        if events is not None:
            message["events"] = [e.to_json(game.deck, viewer) for e in events]
        else:  # a snapshot also carries the match's scoreboard: every round so far
            message["rounds"] = [r.to_json(game.deck) for r in game.history]
        return message

    def _publish(self, events: list[Event]) -> None:
        if self.game is None:
            return
        messages: dict[int, dict[str, Any]] = {}
        for audience in self.hub.audiences(self.record.id):  # render only for who listens
            seat = None if audience == SPECTATORS else audience
            messages[audience] = self.render(seat, events)
        self.hub.publish(self.record.id, messages)

    def public_settings(self) -> dict[str, Any]:
        settings = {**DEFAULT_SETTINGS, **self.record.settings}
        return {k: v for k, v in settings.items() if k not in PRIVATE_SETTINGS}

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
                    "bot_standin": s.seat in self.standins,
                }
                for s in self.record.seats
            ],
        }

    def table_message(self, seat: int | None) -> dict[str, Any]:
        """The table's public facts, and which seat (if any) the receiver holds now."""
        return {"type": "table", "seq": self.seq, "seat": seat, "table": self.table_info()}

    def _publish_table(self) -> None:
        info = self.table_info()
        messages: dict[int, dict[str, Any]] = {
            SPECTATORS: {"type": "table", "seq": self.seq, "seat": None, "table": info}
        }
        for seat in range(len(self.record.seats)):
            messages[seat] = {"type": "table", "seq": self.seq, "seat": seat, "table": info}
        self.hub.publish(self.record.id, messages)

    def catch_up(self, seat: int | None, last_seq: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: exactly what it missed, or a fresh snapshot."""
        out = [self.table_message(seat)]
        if self.game is None:
            return out
        if last_seq is not None and last_seq <= self.seq:
            missed = [(seq, ev) for seq, ev in self.recent if seq > last_seq]
            if last_seq == self.seq or (missed and missed[0][0] == last_seq + 1):
                viewer = SPECTATOR if seat is None else seat
                deck = self.game.deck
                for seq, events in missed:
                    out.append(
                        {
                            "type": "missed",
                            "seq": seq,
                            "events": [e.to_json(deck, viewer) for e in events],
                        }
                    )
        out.append(self.render(seat))
        return out

    # ------------------------------------------------------------------ presence
    async def connected(self, seat: int) -> None:
        async with self.lock:
            self.away.pop(seat, None)
            self.standins.pop(seat, None)  # the player is back: this absence's bot is done
            self._publish_table()
            self._schedule()

    async def disconnected(self, seat: int) -> None:
        async with self.lock:
            if seat in self.hub.present(self.record.id):
                return  # another device of the same player is still here
            if self.record.status == "playing":
                self.away[seat] = self.clock() + self.config.grace_seconds
            self._publish_table()
            self._schedule()

    # ------------------------------------------------------------------ timers and bots
    def _schedule(self) -> None:
        """(Re)arm the one timer: the next deadline, grace end, or bot move."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.closed:
            return
        wait = self._next_wait()
        if wait is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(max(0.0, wait), self._fire)

    def _next_wait(self) -> float | None:
        game = self.game
        waits = []
        now = self.clock()
        if game is not None and not game.is_match_over and self.record.status == "playing":
            bot_moves = self._thinking is None and self._bot_turn(game) is not None
            if bot_moves or self._reactors(game):
                waits.append(self.config.bot_delay)
            if self.deadline is not None:
                waits.append(self.deadline - now)
        waits += [end - now for end in self.away.values()]
        return min(waits) if waits else None

    def _fire(self) -> None:
        self._timer = None
        self._tasks.add(task := asyncio.get_running_loop().create_task(self._wake_safely()))
        task.add_done_callback(self._tasks.discard)

    async def _wake_safely(self) -> None:
        with contextlib.suppress(TableError):
            await self._wake()

    def _reactors(self, game: Game) -> list[int]:
        """Bot-played seats to ask about an out-of-turn move now (at most once per seq)."""
        if (
            not game.rules.tap
            or self._reacted_seq == self.seq
            or not TURN_START <= game.phase <= TURN_END
        ):
            return []
        return [
            s
            for s in self._automatic_seats()
            if s != game.turn and self._player(s) is not self._thinking and game.legal_actions(s)
        ]

    def _automatic_seats(self) -> list[int]:
        """Seats a bot plays now: bot seats, and humans away past their grace period."""
        return sorted(set(self.bots) | set(self.standins))

    def _player(self, seat: int) -> Bot:
        """The bot that plays an automatic seat now."""
        return self.bots.get(seat) or self.standins[seat]

    def _watch(self) -> None:
        """Tell each bot-played seat's watcher what its seat sees after a change."""
        game = self.game
        if game is None:
            return
        for seat in self._automatic_seats():
            bot = self._player(seat)
            if not isinstance(bot, Watcher):
                continue
            if bot is self._thinking:  # it is choosing in a thread: it watches afterwards
                self._held.append(seat_info(game, seat))
            else:
                bot.watch(seat_info(game, seat))

    def _bot_turn(self, game: Game) -> int | None:
        for seat in self._automatic_seats():
            # Bots never press next_round: the reveal stays up for reveal_seconds.
            if game.legal_actions(seat) and (game.to_act == seat or game.phase == OPENING):
                if game.phase == OPENING and game.peeked[seat]:
                    continue
                return seat
        return None

    async def _wake(self) -> None:
        async with self.lock:
            game = self.game
            now = self.clock()
            for away, end in list(self.away.items()):
                if end <= now:
                    del self.away[away]
                    self._stand_in(away)
                    self._publish_table()
            if game is None or game.is_match_over or self.record.status != "playing":
                self._schedule()
                return
            for other in self._reactors(game):
                # Out-of-turn moves (TAP): each bot is asked once per change of the table.
                self._reacted_seq = self.seq
                reactor = self._player(other)
                if isinstance(reactor, Reactive):
                    tap = reactor.react(seat_info(game, other))
                    if tap is not None:
                        await self._apply(game, tap, None, auto=True)
                        return
            seat = None if self._thinking is not None else self._bot_turn(game)
            if seat is None:
                if self.deadline is not None and self.deadline <= now:
                    await self._expire(game)
                self._schedule()
                return
            bot = self._player(seat)
            info, seq = seat_info(game, seat), self.seq
            self._thinking = bot
        try:
            # The bot thinks off the event loop (a search bot takes its whole budget), and
            # without the lock: the table may move on meanwhile, and then the move is dropped.
            action = await asyncio.to_thread(bot.choose, info)
        except BaseException:
            self._thinking, self._held = None, []
            raise
        async with self.lock:
            # Still "thinking" until now, so that what it missed reaches it before anything new.
            self._thinking = None
            held, self._held = self._held, []
            if isinstance(bot, Watcher):
                for seen in held:  # what changed while it thought, in order
                    bot.watch(seen)
            if self.seq == seq and self.game is not None:
                await self._apply(self.game, action, None, auto=True)
            self._schedule()

    def _stand_in(self, seat: int) -> None:
        """The seat's grace period is over: one bot plays it until its player returns.  It
        watches from the state the seat is in now (knowledge is the engine's: it loses none)."""
        absence = self.absences[seat] = self.absences.get(seat, 0) + 1
        bot = self.bot_factory("medium", self.record.seed + 100 * absence + seat)
        self.standins[seat] = bot
        if isinstance(bot, Watcher) and self.game is not None:
            bot.watch(seat_info(self.game, seat))

    async def _expire(self, game: Game) -> None:
        """Time is up: play the default move for whoever is being waited for."""
        if game.phase == OPENING:
            waiting = [s for s in range(game.players) if not game.peeked[s]]
        elif game.phase == ROUND_OVER:
            waiting = [game.turn]
        else:
            waiting = [game.turn]
        for seat in waiting:
            current = self.game
            assert current is not None
            action = default_action(current, seat)
            if action is not None:
                await self._apply(current, action, None, auto=True)

    async def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
