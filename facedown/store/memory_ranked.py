"""Ranked play in memory (mixed into :class:`~facedown.store.memory.MemoryStore`): the same
contract as the SQL store's (:mod:`.sql.ranked`), in dicts, every method atomic."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .checks import check_table, json_text
from .records import (
    Lease,
    QueueChanged,
    QueueEntry,
    RankedMatchRecord,
    RatingRecord,
    StoreError,
    TableRecord,
    UserRecord,
)


class RankedMemory:
    """The :class:`~facedown.store.base.RankedStore` methods of the memory store."""

    # Provided by MemoryStore.
    _users: dict[str, UserRecord]

    def _check_open(self) -> None:
        raise NotImplementedError

    def _check_lease(self, lease: Lease | None) -> None:
        raise NotImplementedError

    async def create_table(self, record: TableRecord) -> None:
        raise NotImplementedError

    def __init__(self) -> None:
        self._queue: dict[str, QueueEntry] = {}  # user id -> where it waits
        self._matches: dict[str, RankedMatchRecord] = {}
        self._ratings: dict[tuple[str, str], RatingRecord] = {}  # (user, queue) -> rating

    async def enqueue(self, user_id: str, queue: str, joined_at: float) -> None:
        self._check_open()
        if user_id not in self._users:
            raise StoreError(f"no account {user_id!r}")
        old = self._queue.get(user_id)
        if old is None or old.queue != queue:
            self._queue[user_id] = QueueEntry(user_id, queue, joined_at, joined_at)

    async def dequeue(self, user_id: str) -> bool:
        self._check_open()
        return self._queue.pop(user_id, None) is not None

    async def touch_queue(self, user_id: str, seen_at: float) -> None:
        self._check_open()
        entry = self._queue.get(user_id)
        if entry is not None:
            self._queue[user_id] = replace(entry, seen_at=seen_at)

    async def drop_unseen(self, queue: str, before: float) -> list[str]:
        self._check_open()
        unseen = [u for u, e in self._queue.items() if e.queue == queue and e.seen_at < before]
        for user in unseen:
            del self._queue[user]
        return unseen

    async def queue_entry(self, user_id: str) -> QueueEntry | None:
        self._check_open()
        entry = self._queue.get(user_id)
        return None if entry is None else self._rated(entry)

    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        self._check_open()
        found = [self._rated(e) for e in self._queue.values() if e.queue == queue]
        return sorted(found, key=lambda e: (e.joined_at, e.user_id))

    def _rated(self, entry: QueueEntry) -> QueueEntry:
        rating = self._ratings.get((entry.user_id, entry.queue))
        if rating is None:
            return entry
        return replace(entry, mu=rating.mu, sigma=rating.sigma)

    async def waiting(self) -> dict[str, int]:
        self._check_open()
        counts: dict[str, int] = {}
        for entry in self._queue.values():
            counts[entry.queue] = counts.get(entry.queue, 0) + 1
        return counts

    async def create_ranked_match(
        self, record: TableRecord, match: RankedMatchRecord, *, lease: Lease | None = None
    ) -> None:
        self._check_open()
        check_table(record)
        self._check_lease(lease)
        users = set(seat.user_id for seat in match.seats)
        waiting = {u for u, e in self._queue.items() if e.queue == match.queue}
        if not users <= waiting:
            raise QueueChanged(f"not every player still waits in queue {match.queue!r}")
        if match.table_id in self._matches:
            raise StoreError(f"table {match.table_id!r} already has a ranked match")
        await self.create_table(record)  # no await inside: refuses (TableExists) or is done
        for user in users:
            del self._queue[user]
        self._matches[match.table_id] = replace(match, rated_at=None, result=None)

    async def ranked_match(self, table_id: str) -> RankedMatchRecord | None:
        self._check_open()
        found = self._matches.get(table_id)
        return None if found is None else _copy(found)

    async def unrated_matches(self, user_id: str | None = None) -> list[RankedMatchRecord]:
        self._check_open()
        found = [
            m
            for m in self._matches.values()
            if m.rated_at is None
            and (user_id is None or any(s.user_id == user_id for s in m.seats))
        ]
        return [_copy(m) for m in sorted(found, key=lambda m: m.created_at)]

    async def rated_matches(
        self, user_id: str, queue: str, since: float
    ) -> list[RankedMatchRecord]:
        self._check_open()
        found = [
            m
            for m in self._matches.values()
            if m.rated_at is not None
            and m.rated_at >= since
            and m.queue == queue
            and any(s.user_id == user_id for s in m.seats)
        ]
        return [_copy(m) for m in sorted(found, key=lambda m: m.created_at)]

    async def rate_match(
        self, table_id: str, at: float, result: dict[str, Any], ratings: Sequence[RatingRecord]
    ) -> bool:
        self._check_open()
        json_text(result, "the match result")
        match = self._matches.get(table_id)
        if match is None or match.rated_at is not None:
            return False
        self._matches[table_id] = replace(match, rated_at=at, result=json.loads(json.dumps(result)))
        for rating in ratings:
            self._ratings[rating.user_id, rating.queue] = replace(rating, name="")
        return True

    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        self._check_open()
        mine = [self._named(r) for (u, _), r in self._ratings.items() if u == user_id]
        return sorted(mine, key=lambda r: r.queue)

    async def ratings_in(self, queue: str, user_ids: Sequence[str]) -> list[RatingRecord]:
        self._check_open()
        wanted = set(user_ids)
        found = [
            self._named(r) for (u, q), r in self._ratings.items() if q == queue and u in wanted
        ]
        return sorted(found, key=lambda r: r.user_id)

    async def leaderboard(self, queue: str, limit: int, offset: int = 0) -> list[RatingRecord]:
        self._check_open()
        board = [self._named(r) for (_, q), r in self._ratings.items() if q == queue]
        board.sort(key=lambda r: (-r.score, -r.matches, r.user_id))
        return board[offset : offset + max(limit, 0)]

    def _named(self, rating: RatingRecord) -> RatingRecord:
        user = self._users.get(rating.user_id)
        return replace(rating, name=user.name if user else "")

    async def rated_players(self, queue: str) -> int:
        self._check_open()
        return sum(1 for (_, q) in self._ratings if q == queue)

    async def recent_waits(self, queue: str, limit: int) -> list[float]:
        self._check_open()
        matches = [m for m in self._matches.values() if m.queue == queue]
        matches.sort(key=lambda m: -m.created_at)
        waits = [s.waited for m in matches for s in sorted(m.seats, key=lambda s: s.seat)]
        return waits[: max(limit, 0)]


def _copy(match: RankedMatchRecord) -> RankedMatchRecord:
    result = None if match.result is None else json.loads(json.dumps(match.result))
    return replace(match, result=result)
