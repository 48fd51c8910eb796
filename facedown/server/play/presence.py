"""Who plays each seat now: a player on a connection, or a bot.

A bot seat has its bot.  A player whose last connection closed is *away* until a grace period
ends, then a *stand-in* bot plays the seat: one bot for the whole absence, dropped when the
player comes back (the next absence gets a new one).  At a table without stand-ins (turn-based:
its players are away most of the time; pass-and-play: its seats wait for the device) nobody is
away; a seat *forfeited* at a turn-based table (three missed deadlines) is played by a bot until
the match ends, whether or not its player comes back.

The table's :class:`~facedown.bots.feed.EventFeed` is kept here, with who plays each seat: each
applied action's events are pending for the seats a bot plays then (:meth:`Presence.happened`),
and the scheduler gives each bot its seat's with its next observation.  A bot that sits down
starts from that moment (a stand-in is not handed what happened before it came, as a player
coming back is not).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...bots import Bot, EventFeed, reads_events, seat_info
from ...bots.base import Watcher
from ...engine import Event, Game
from ...store import SeatRecord
from .context import BotFactory

STANDIN_LEVEL = "medium"


class Presence:
    def __init__(
        self, seed: int, bot_factory: BotFactory, grace_seconds: float, *, standins: bool = True
    ) -> None:
        self.seed = seed  # the table's secret seed: bots are seeded from it
        self.bot_factory = bot_factory
        self.grace_seconds = grace_seconds
        self.uses_standins = standins  # False: no grace periods, no stand-ins for the away
        self.forfeited: set[int] = set()  # human seats a bot plays to the end of the match
        self.bots: dict[int, Bot] = {}  # bot seats
        self.away: dict[int, float] = {}  # seat -> when its grace period ends
        self.standins: dict[int, Bot] = {}  # human seats a bot plays while their player is away
        self.absences: dict[int, int] = {}  # seat -> stand-ins it has had (one per absence)
        self.feed = EventFeed()  # the events each bot-played seat's bot has not been given

    # ------------------------------------------------------------------ bot seats
    def new_bot(self, seat: int, level: str) -> Bot:
        """A bot for a bot seat (ValueError when no bot has that level)."""
        return self.bot_factory(level, self.seed + seat)

    def seat_bots(self, seats: Sequence[SeatRecord]) -> None:
        """Bots for the record's bot seats that have none yet."""
        for s in seats:
            if s.kind == "bot" and s.seat not in self.bots:
                self.bots[s.seat] = self.new_bot(s.seat, s.bot_level or "medium")

    def renumber(self, kept: list[int]) -> None:
        """Seats were removed: ``kept`` holds the old numbers of the new seats 0, 1, ..."""
        self.bots = {new: self.bots[old] for new, old in enumerate(kept) if old in self.bots}

    # ------------------------------------------------------------------ players
    def arrived(self, seat: int) -> None:
        self.away.pop(seat, None)
        if seat not in self.forfeited:
            self.standins.pop(seat, None)  # the player is back: this absence's bot is done
            self.feed.forget(seat)

    def left(self, seat: int, now: float) -> None:
        if self.uses_standins:
            self.away[seat] = now + self.grace_seconds

    def absent(self, seats: Iterable[int], now: float) -> None:
        """These seats' players are not here: their grace periods run (unless already)."""
        if not self.uses_standins:
            return
        for seat in seats:
            self.away.setdefault(seat, now + self.grace_seconds)

    def forfeit(self, seat: int, game: Game | None) -> None:
        """The seat is forfeited: a bot plays it from now to the end of the match."""
        if seat in self.forfeited:
            return
        self.forfeited.add(seat)
        self.away.pop(seat, None)
        if seat not in self.standins:
            self._stand_in(seat, game)

    def new_match(self) -> None:
        """A new match: forfeited seats are their players' again."""
        for seat in self.forfeited:
            self.standins.pop(seat, None)
            self.feed.forget(seat)
        self.forfeited.clear()

    def grace_ends(self) -> list[float]:
        return list(self.away.values())

    def end_graces(self, now: float, game: Game | None) -> list[int]:
        """Seats whose grace period is over get their stand-in; returns them."""
        ended = [seat for seat, end in self.away.items() if end <= now]
        for seat in ended:
            del self.away[seat]
            self._stand_in(seat, game)
        return ended

    def _stand_in(self, seat: int, game: Game | None) -> None:
        """It watches from the state the seat is in now (knowledge is the engine's: none lost),
        and is told of the events from now on, none of before."""
        absence = self.absences[seat] = self.absences.get(seat, 0) + 1
        bot = self.bot_factory(STANDIN_LEVEL, self.seed + 100 * absence + seat)
        self.standins[seat] = bot
        self.feed.forget(seat)
        if isinstance(bot, Watcher) and game is not None:
            bot.watch(seat_info(game, seat))

    # ------------------------------------------------------------------ bot-played seats
    def happened(self, events: Sequence[Event]) -> None:
        """An action was applied: its ``events`` are pending for the seats a bot plays now."""
        self.feed.add(events, [s for s in self.automatic_seats() if reads_events(self.player(s))])

    def automatic_seats(self) -> list[int]:
        """Seats a bot plays now: bot seats, and humans away past their grace period."""
        return sorted(set(self.bots) | set(self.standins))

    def replace(self, old: Bot, new: Bot) -> None:
        """``new`` plays wherever ``old`` did (a bot back from thinking in another process)."""
        for bots in (self.bots, self.standins):
            for seat, bot in bots.items():
                if bot is old:
                    bots[seat] = new

    def player(self, seat: int) -> Bot:
        """The bot that plays an automatic seat now."""
        return self.bots.get(seat) or self.standins[seat]
