"""A table's one timer: deadlines, grace periods and bot moves, on an injected clock.

The scheduler keeps one piece of work armed on the table's
:class:`~facedown.server.base.clock.Clock`, at the earliest of: the running deadline, the end of a
grace period, or (after ``bot_delay``) a move a bot owes.  When it runs, under the table's lock:
ended grace periods get their stand-in, bots are asked about an out-of-turn move (TAP), a bot whose
turn it is chooses (without the lock, in a thread, or for a long thinker in a worker process:
:mod:`.thinking`), or an expired timer gets the default move.  Each automatic move goes through the
table like any other, and every change re-arms the timer.

After each change the bot-played seats whose bot is a :class:`~facedown.bots.base.Watcher` are
shown their seat's new info (a bot choosing in its thread gets what it missed once it has chosen).
Every info a bot is given carries the events since its seat's last one (``info.events``, as
:func:`~facedown.bots.base.seat_info` says): each info is built from the table's
:class:`~facedown.bots.feed.EventFeed` (:class:`.presence.Presence` keeps it, the table adds
every applied action's events to it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

from ...bots import Bot, Reactive, SeatInfo
from ...bots.base import Watcher
from ...engine import Action, Game, Timer
from ...store import LeaseLost, StoreError
from ..base.clock import Alarm, Clock
from ..base.errors import TableError
from ..modes.modes import TableMode, TimedSettings
from .context import TableConfig
from .defaults import default_action
from .presence import Presence
from .thinking import Thinker

log = logging.getLogger(__name__)
STORE_RETRY = 1.0  # seconds before a timer whose move the store refused runs again


def deadline_for(
    game: Game, mode: TableMode, settings: TimedSettings, config: TableConfig, now: float
) -> float | None:
    """When the timer the engine's arbiter names for now ends (None: nothing is timed, or the
    table's mode has no timers)."""
    timer = game.awaiting().timer
    if timer is None or not mode.timed:
        return None
    if timer is Timer.REVEAL:
        return now + config.reveal_seconds
    seconds = settings["peek_seconds"] if timer is Timer.PEEK else settings["turn_seconds"]
    return now + float(seconds)


class Scheduled(Protocol):
    """What the scheduler needs of a table."""

    lock: asyncio.Lock
    seq: int
    game: Game | None
    deadline: float | None
    presence: Presence

    def playing(self) -> bool:
        """A match is being played (not over)."""

    async def play(self, game: Game, action: Action, *, timed_out: bool = False) -> None:
        """Apply an automatic move (a bot's, or a timer's default: ``timed_out``), as any
        action is applied."""

    async def stood_in(self, seat: int) -> None:
        """A stand-in took the seat (its player's grace period ended): tell everyone."""

    async def lost(self) -> None:
        """Another process took the table over (its write was fenced off): stop here."""


class Scheduler:
    def __init__(
        self, table: Scheduled, clock: Clock, bot_delay: float, thinker: Thinker | None = None
    ) -> None:
        self.table = table
        self.clock = clock
        self.thinker = thinker or Thinker(0)
        self.bot_delay = bot_delay
        self._timer: Alarm | None = None
        self._armed = 0  # arms so far: the work of the latest knows it is the current timer
        self._running: set[asyncio.Task[Any]] = set()  # wake-ups under way
        self._thinking: Bot | None = None  # the bot choosing a move (off the event loop)
        self._held: list[SeatInfo] = []  # what the thinking bot is to watch once it has chosen
        self._reacted_seq = -1  # the seq at which bots were last asked about a TAP
        self.closed = False

    # ------------------------------------------------------------------ arming
    def changed(self) -> None:
        """The game changed: the bot-played seats watch it, and the timer is re-armed."""
        self._watch()
        self.rearm()

    def rearm(self) -> None:
        """(Re)arm the one timer: the next deadline, grace end, or bot move."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.closed:
            return
        when = self._next_wake()
        if when is not None:
            self._armed += 1
            armed = self._armed
            self._timer = self.clock.call_at(when, lambda: self._run(armed))

    def _next_wake(self) -> float | None:
        table = self.table
        game = table.game
        times = table.presence.grace_ends()
        if game is not None and table.playing():
            bot_moves = self._thinking is None and self._bot_turn(game) is not None
            if bot_moves or self._reactors(game):
                times.append(self.clock.now() + self.bot_delay)
            if table.deadline is not None:
                times.append(table.deadline)
        return min(times) if times else None

    async def _run(self, armed: int) -> None:
        if armed == self._armed:
            self._timer = None  # it fired: nothing to cancel any more
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            with contextlib.suppress(TableError):
                await self._wake()
        except LeaseLost:
            await self.table.lost()
        except StoreError as e:  # the database is away: the move is tried again in a while
            log.warning("a timed or automatic move could not be saved: %s", e)
            if not self.closed and self._timer is None:
                self._armed += 1
                armed = self._armed
                retry = self.clock.now() + STORE_RETRY
                self._timer = self.clock.call_at(retry, lambda: self._run(armed))
        finally:
            self._running.discard(task)

    def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        current = asyncio.current_task()
        for task in list(self._running):
            if task is not current:
                task.cancel()

    # ------------------------------------------------------------------ bots
    def _reactors(self, game: Game) -> list[int]:
        """Bot-played seats to ask about an out-of-turn move now (at most once per seq)."""
        if self._reacted_seq == self.table.seq:
            return []
        presence = self.table.presence
        automatic = presence.automatic_seats()
        return [
            s
            for s in game.awaiting().may_tap
            if s in automatic and presence.player(s) is not self._thinking
        ]

    def _bot_turn(self, game: Game) -> int | None:
        """The bot-played seat the game waits for, if any.  (Bots never press next_round:
        the reveal stays up for reveal_seconds.)"""
        waiting = game.awaiting()
        if waiting.any_one:
            return None
        automatic = self.table.presence.automatic_seats()
        return next((s for s in waiting.must_act if s in automatic), None)

    def _watch(self) -> None:
        game = self.table.game
        if game is None:
            return
        presence = self.table.presence
        for seat in presence.automatic_seats():
            bot = presence.player(seat)
            if not isinstance(bot, Watcher):
                continue  # its seat's events wait for its next choose or react
            info = presence.feed.info(game, seat)
            if bot is self._thinking:  # it is choosing in a thread: it watches afterwards
                self._held.append(info)
            else:
                bot.watch(info)

    # ------------------------------------------------------------------ waking
    async def _react(self, game: Game) -> bool:
        """Out-of-turn moves (TAP): each bot is asked once per change of the table.
        True once one is played (under the table's lock, as in :meth:`_wake`)."""
        table = self.table
        for other in self._reactors(game):
            self._reacted_seq = table.seq
            reactor = table.presence.player(other)
            if isinstance(reactor, Reactive):
                tap = reactor.react(table.presence.feed.info(game, other))
                if tap is not None:
                    await table.play(game, tap)
                    return True
        return False

    async def _wake(self) -> None:
        table = self.table
        async with table.lock:
            game = table.game
            now = self.clock.now()
            for away in table.presence.end_graces(now, game):
                await table.stood_in(away)
            if game is None or not table.playing():
                self.rearm()
                return
            if await self._react(game):
                return
            seat = None if self._thinking is not None else self._bot_turn(game)
            if seat is None:
                if table.deadline is not None and table.deadline <= now:
                    await self._expire(game)
                self.rearm()
                return
            bot = table.presence.player(seat)
            info, seq = table.presence.feed.info(game, seat), table.seq
            self._thinking = bot
        await self._think(bot, info, seq)

    async def _think(self, bot: Bot, info: SeatInfo, seq: int) -> None:
        """The bot chooses; its move is played if the table is still where it was."""
        table = self.table
        try:
            # The bot thinks off the event loop (a search bot takes its whole budget), and
            # without the lock: the table may move on meanwhile, and then the move is dropped.
            action, thought = await self.thinker.choose(bot, info)
        except BaseException:
            self._thinking, self._held = None, []
            raise
        if thought is not bot:  # it thought in a worker process: this copy knows what it did
            table.presence.replace(bot, thought)
            bot = thought
        async with table.lock:
            # Still "thinking" until now, so that what it missed reaches it before anything new.
            self._thinking = None
            held, self._held = self._held, []
            if isinstance(bot, Watcher):
                for seen in held:  # what changed while it thought, in order
                    bot.watch(seen)
            if table.seq == seq and table.game is not None:
                await table.play(table.game, action)
            self.rearm()

    async def _expire(self, game: Game) -> None:
        """Time is up: play the default move for whoever is being waited for."""
        waiting = game.awaiting()
        for seat in waiting.must_act[:1] if waiting.any_one else waiting.must_act:
            current = self.table.game
            if current is None:  # never: a table with a timer has a game
                raise RuntimeError("a timer expired at a table without a game")
            action = default_action(current, seat)
            if action is not None:
                await self.table.play(current, action, timed_out=True)
