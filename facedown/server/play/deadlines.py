"""A turn-based table's move deadlines as the table lives them: the deadlines each seat missed
in the match, and which players were told that the table waits for them.

The rules (how many misses forfeit a seat, the mark in the log) are :mod:`..modes.turnbased`'s;
whether a table counts misses and tells its players is its mode's (``TableMode.misses_forfeit``
and ``TableMode.notifies``): elsewhere this counts nothing and tells nobody.
"""

from __future__ import annotations

from collections.abc import Callable

from ...engine import Game, Timer
from ..modes.turnbased import misses_forfeit


class MoveDeadlines:
    """Missed deadlines per seat in this match, the deadline each seat was last charged for
    (one miss per deadline, however many default moves it takes), and the seats told it is
    their move (until they have moved)."""

    def __init__(self, counts: bool, notifies: bool) -> None:
        self.counts = counts  # missed deadlines are counted
        self.notifies = notifies  # the players waited for are told
        self.misses: dict[int, int] = {}
        self.charged: dict[int, float | None] = {}
        self.notified: set[int] = set()

    def new_match(self) -> None:
        self.misses.clear()
        self.charged.clear()
        self.notified.clear()

    def misses_now(self, game: Game, seat: int, deadline: float | None) -> bool:
        """Whether a move the timer plays for ``seat`` is a missed deadline to count: at a
        turn-based table, the first such move for the deadline of a peek or a turn."""
        if not self.counts or game.awaiting().timer not in (Timer.PEEK, Timer.TURN):
            return False
        return seat not in self.charged or self.charged[seat] != deadline

    def charge(self, seat: int, deadline: float | None) -> bool:
        """Count a missed deadline for ``seat`` (the one that ran out: the seat is charged once
        for it).  True when that forfeits the seat (the third in the match)."""
        self.misses[seat] = self.misses.get(seat, 0) + 1
        self.charged[seat] = deadline
        return misses_forfeit(self.misses[seat])

    def forfeited(self) -> list[int]:
        """The seats forfeited by their misses in this match."""
        return [seat for seat, missed in self.misses.items() if misses_forfeit(missed)]

    def to_notify(self, waiting: Callable[[], list[int]]) -> list[int]:
        """The seats to tell that it is their move: those waited for now that were not told for
        this wait (a seat is told again only after it stopped being waited for)."""
        if not self.notifies:
            return []
        now = set(waiting())
        self.notified &= now
        fresh = sorted(now - self.notified)
        self.notified |= now
        return fresh

    def restored(self, waiting: Callable[[], list[int]]) -> None:
        """After a restart: whoever the table waited for was told before it, not again for
        that wait."""
        self.notified = set(waiting()) if self.notifies else set()
