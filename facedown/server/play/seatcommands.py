"""A table's commands that are not moves: a player sitting down, a bot seated, a seat removed,
a player arriving or leaving, a stand-in taking a seat, a seat done looking at its card.

:class:`SeatCommands` is a part of :class:`~.table.Table` (its base class): each command takes
the table's lock (``stood_in`` is called with it held), changes the record through
:mod:`.seating` and :mod:`.presence`, saves it, then tells every audience.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from ...bots import Bot
from ...engine import Game
from ...store import TableRecord
from ..base.errors import TableError
from ..modes import ranked_mode
from ..modes.modes import MomentOver, TableMode, TableSettings, settings_of, stored
from ..transport.hub import Hub
from ..transport.protocol import SnapshotFrame
from . import seating
from .presence import Presence
from .scheduler import Scheduler
from .tablelog import MOMENT_OVER, Writes


class SeatCommands:
    """The seats' commands of a table (see the module docstring)."""

    # The table's own (:class:`~.table.Table` sets them).
    record: TableRecord
    lock: asyncio.Lock
    hub: Hub
    mode: TableMode
    presence: Presence
    scheduler: Scheduler
    game: Game | None
    seq: int
    hidden: set[int]
    writes: Writes
    _seats_of: TableRecord | None = None  # the record ``_seats`` was read from (none yet)
    _seats: dict[str, int]  # its human seats, by player id (set with ``_seats_of``)

    def now(self) -> float:
        raise NotImplementedError

    def playing(self) -> bool:
        raise NotImplementedError

    def publish_table(self) -> None:
        raise NotImplementedError

    def render(self, seat: int | None) -> SnapshotFrame:
        raise NotImplementedError

    async def _save(self, record: TableRecord) -> None:
        await self.writes.save(record)
        self.record = record

    async def _save_settings(self, record: TableRecord) -> None:
        """Save ``record``, which differs from the table's only in its settings: those alone
        are written (its ``updated_at`` stays)."""
        await self.writes.save_settings(record)
        self.record = record

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
            await self._save(record)
            # The bots follow their seats once the record with the new numbers is saved: a
            # refused write leaves each bot on the seat the record still gives it.
            self.presence.renumber(kept)
            self.publish_table()

    # ------------------------------------------------------------------ presence
    @property
    def bots(self) -> dict[int, Bot]:
        return self.presence.bots

    @property
    def away(self) -> dict[int, float]:
        return self.presence.away

    @property
    def standins(self) -> dict[int, Bot]:
        return self.presence.standins

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
        lock).  Where leaving forfeits (ranked), that player forfeits the match, for good: kept
        in the table's settings, so a restart remembers it, with whether no round had been
        scored yet."""
        settings = settings_of(self.record)
        if (
            self.mode.leaving_forfeits
            and self.playing()
            and seat not in ranked_mode.forfeits(settings)
        ):
            early = self.game is not None and not self.game.history
            changed = ranked_mode.with_forfeit(settings, seat, early)
            await self._save(replace(self.record, settings=stored(changed), updated_at=self.now()))
            # For good here too, not only after a restart: the player, back, may do nothing.
            self.presence.forfeit(seat, self.game)
        self.publish_table()

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
            # of a seq the table has moved on from, is ignored when it is read).  The settings
            # alone are written, and the record's ``updated_at`` stays: a ready, about once a
            # turn, is no change of the table (an account's history is cached by it).
            hidden = sorted(self.hidden | {seat})
            over: MomentOver = {"seq": self.seq, "seats": hidden}
            settings: TableSettings = {**settings_of(self.record), MOMENT_OVER: over}
            await self._save_settings(replace(self.record, settings=stored(settings)))
            self.hidden.add(seat)
            if seat in self.hub.audiences(self.record.id):
                self.hub.publish(self.record.id, {seat: self.render(seat)})
