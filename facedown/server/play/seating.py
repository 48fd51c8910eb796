"""Seating in the lobby: who sits where, who is host, and the checks before a seat changes.

These are pure functions of a table's record: each returns the changed record (the table then
saves it and tells everyone) or raises :class:`TableError` and changes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from ...store import SeatRecord, TableRecord
from ..base.errors import TableError


def human_seats(record: TableRecord) -> list[int]:
    return [s.seat for s in record.seats if s.kind == "human"]


def seat_of(record: TableRecord, player_id: str) -> int | None:
    for s in record.seats:
        if s.kind == "human" and s.player_id == player_id:
            return s.seat
    return None


def host_seat(record: TableRecord) -> int | None:
    return seat_of(record, record.host_id)


def require_host(record: TableRecord, player_id: str) -> None:
    if player_id != record.host_id:
        raise TableError("not_host", "only the host can do that")


def require_lobby(record: TableRecord) -> None:
    if record.status != "lobby":
        raise TableError("table_started", "the match has started")


def require_full(record: TableRecord) -> None:
    """A match starts only when every seat is taken."""
    if any(s.kind == "open" for s in record.seats):
        raise TableError("open_seats", "fill or remove the open seats first")


def _with_seat(record: TableRecord, changed: SeatRecord, now: float) -> TableRecord:
    seats = tuple(changed if s.seat == changed.seat else s for s in record.seats)
    return replace(record, seats=seats, updated_at=now)


def seat_player(
    record: TableRecord, player_id: str, name: str, now: float
) -> tuple[TableRecord, int]:
    """The first open seat taken by a player (the record unchanged when they already sit)."""
    seat = seat_of(record, player_id)
    if seat is not None:
        return record, seat
    if record.status != "lobby":
        raise TableError("table_started", "this table's match has started; watch instead")
    for s in record.seats:
        if s.kind == "open":
            taken = SeatRecord(s.seat, "human", name, player_id)
            return _with_seat(record, taken, now), s.seat
    raise TableError("table_full", "every seat at this table is taken")


def open_seat_for_bot(record: TableRecord, player_id: str, seat: int | None) -> int:
    """The seat a host's new bot takes: ``seat``, or the first open one."""
    require_host(record, player_id)
    require_lobby(record)
    free = [s.seat for s in record.seats if s.kind == "open" and seat in (None, s.seat)]
    if not free:
        raise TableError("no_open_seat", "there is no open seat for a bot")
    return free[0]


def seat_bot(record: TableRecord, seat: int, level: str, now: float) -> TableRecord:
    return _with_seat(record, SeatRecord(seat, "bot", f"Bot ({level})", None, level), now)


def without_seat(
    record: TableRecord, player_id: str, seat: int, now: float
) -> tuple[TableRecord, list[int]]:
    """The record with ``seat`` removed and the rest numbered again from 0; also the old
    numbers of the seats that stay, in their new order."""
    require_host(record, player_id)
    require_lobby(record)
    kept = [s for s in record.seats if s.seat != seat]
    if len(kept) == len(record.seats):
        raise TableError("no_such_seat", f"there is no seat {seat}")
    if seat == host_seat(record):
        raise TableError("host_seat", "the host's own seat cannot be removed")
    if len(kept) < 2:
        raise TableError("too_few_seats", "a table needs at least two seats")
    renumbered = tuple(replace(s, seat=i) for i, s in enumerate(kept))
    return replace(record, seats=renumbered, updated_at=now), [s.seat for s in kept]
