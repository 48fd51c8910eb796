"""The events a table's bots have not been given yet, seat by seat.

Whoever seats bots at a game (the driver, a server table) keeps one :class:`EventFeed`: after
every :meth:`~facedown.engine.Game.apply` it adds the events the action caused, for the seats a
bot plays that reads them (:func:`~facedown.bots.base.reads_events`); when a seat's bot is given
an observation (``choose``, ``react`` or ``watch``) the feed's :meth:`EventFeed.info` builds it
with the seat's pending events and clears them.  So a bot
is told, in order and once each, everything that happened since it was last asked
(:func:`~facedown.bots.base.seat_info` states the contract).

Memory stays bounded: a seat's events are cleared at each of its observations, and a seat not
asked for a whole round (one sitting out a sudden-death round) keeps only the round before the
current one and the current one: at every new round, what came before the previous round's
start goes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..engine import Event, EventKind, Game
from .base import SeatInfo, seat_info

ROUND_STARTED = EventKind.ROUND_STARTED
ROUNDS_KEPT = 2  # rounds of events a seat never asked keeps: the last one and the current one


class EventFeed:
    """Per seat, the engine events not yet given to that seat's bot."""

    def __init__(self) -> None:
        self._pending: dict[int, list[Event]] = {}

    def add(self, events: Sequence[Event], seats: Iterable[int]) -> None:
        """``events`` just happened (what ``Game.apply`` returned): pending for each of
        ``seats`` (the seats a bot plays now)."""
        if not events:
            return
        new_round = any(e.kind is ROUND_STARTED for e in events)
        for seat in seats:
            pending = self._pending.setdefault(seat, [])
            pending.extend(events)
            if new_round:
                _trim(pending)

    def take(self, seat: int) -> list[Event]:
        """The seat's pending events, in order; from now on it has none."""
        return self._pending.pop(seat, [])

    def forget(self, seat: int) -> None:
        """Drop the seat's pending events: a bot that sits down now starts from now (a bot
        standing in for a player is not handed the table's past), and a seat whose bot left
        keeps nothing."""
        self._pending.pop(seat, None)

    def info(self, game: Game, seat: int) -> SeatInfo:
        """The seat's observation with the events it has not been given yet (taken: the next
        one starts after them)."""
        return seat_info(game, seat, self.take(seat))


def _trim(pending: list[Event]) -> None:
    """Keep the events from the start of the round before the current one on."""
    starts = [i for i, e in enumerate(pending) if e.kind is ROUND_STARTED]
    if len(starts) > ROUNDS_KEPT:
        del pending[: starts[-ROUNDS_KEPT]]
