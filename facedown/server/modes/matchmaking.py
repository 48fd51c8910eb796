"""Who plays whom in a ranked queue: players of close rating, in a window that widens with
waiting time.  Pure functions of the queue as the store returns it (no I/O, no clock).

Each player's rating estimate (mu) is compared.  The player who has waited longest is matched
first: with the ``size - 1`` others whose estimates are nearest theirs, among those within the
longest waiter's window.  The window starts at ``Window.base`` and widens by ``Window.widen``
for every second waited; after ``Window.open_after`` seconds it is open to any rating, so
nobody waits for ever in a queue that has enough players.  If the longest waiter cannot be
matched yet, the next one is tried, and so on.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...store import QueueEntry
from .ratings import new_skill


@dataclass(frozen=True)
class Window:
    """How far apart (in rating estimate, mu) matched players may be."""

    base: float = 3.0  # at once
    widen: float = 0.1  # more for every second waited
    open_after: float = 120.0  # seconds after which any rating will do


def reach(waited: float, window: Window) -> float:
    """How far from a player's estimate their window reaches after ``waited`` seconds."""
    if waited >= window.open_after:
        return math.inf
    return window.base + window.widen * max(waited, 0.0)


def estimate(entry: QueueEntry) -> float:
    """A waiting player's rating estimate in the queue (a new player's when never rated)."""
    return entry.mu if entry.mu is not None else new_skill().mu


def groups(
    entries: Sequence[QueueEntry], size: int, now: float, window: Window
) -> list[list[QueueEntry]]:
    """The matches to make now, each ``size`` players (the longest waiter first in each);
    ``entries`` longest waiting first, as :meth:`RankedStore.queue_entries` gives them."""
    left = list(entries)
    made: list[list[QueueEntry]] = []
    while len(left) >= size:
        group = _first_group(left, size, now, window)
        if group is None:
            break
        made.append(group)
        taken = {e.user_id for e in group}
        left = [e for e in left if e.user_id not in taken]
    return made


def _first_group(
    left: list[QueueEntry], size: int, now: float, window: Window
) -> list[QueueEntry] | None:
    for anchor in left:
        mine = estimate(anchor)
        limit = reach(now - anchor.joined_at, window)
        near = [e for e in left if e is not anchor and abs(estimate(e) - mine) <= limit]
        if len(near) >= size - 1:
            near.sort(key=lambda e: (abs(estimate(e) - mine), e.joined_at, e.user_id))
            return [anchor, *near[: size - 1]]
    return None


def expected_wait(waits: Sequence[float]) -> float | None:
    """How long a player of the queue can expect to wait: the median of the recent waits (None
    before the queue has matched anyone)."""
    return float(statistics.median(waits)) if waits else None


@dataclass(frozen=True)
class RankedConfig:
    """How ranked play runs (``ServerSettings.ranked``)."""

    tick: float = 1.0  # seconds between two rounds of matchmaking
    window: Window = field(default_factory=Window)  # how close matched ratings are
    unseen_after: float = 30.0  # a waiting player whose page has not asked this long leaves
    touch_every: float = 5.0  # seconds: a waiting player's "seen" time is written this often
    waits_kept: int = 20  # the recent waits the expected wait is the median of
    sizes: tuple[int, ...] = (2, 3, 4)  # the player counts with a queue, for every preset
    # Throwaway accounts (docs/ranked.md): an account queues only once it is min_account_age
    # seconds old, and what one opponent can raise a player's rating is at most pair_cap shown
    # points in any pair_window seconds.
    min_account_age: float = 24 * 3600.0
    pair_cap: int = 150
    pair_window: float = 24 * 3600.0
    peek_seconds: float = 20.0  # a ranked table's timers
    turn_seconds: float = 60.0
