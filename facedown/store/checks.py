"""What every store refuses before it writes, so all backends fail the same way on bad records."""

from __future__ import annotations

import json
from typing import Any

from .records import LogEntry, ScoreboardRecord, StoreError, TableRecord

# A table's seed: 128 bits (a text column, models.SeedText); the negative seeds a BIGINT column
# held before are still taken.
SEED_MIN, SEED_MAX = -(2**63), 2**128 - 1
BIGINT_MAX = 2**63 - 1  # a BIGINT column (token floors)
SEQ_MAX = 2**31 - 1  # an INTEGER column


# json.dumps with an option builds a new encoder at every call: one, made once, encodes the
# same text (a log entry's payload is encoded at every action).
_STRICT = json.JSONEncoder(allow_nan=False)


def json_text(value: Any, what: str) -> str:
    """``value`` as strict JSON (NaN and infinity are not JSON, and PostgreSQL refuses them)."""
    try:
        return _STRICT.encode(value)
    except (TypeError, ValueError) as e:
        raise StoreError(f"{what} is not JSON: {e}") from None


def check_table(record: TableRecord) -> tuple[str, str]:
    """Refuse a bad record; its rules' and settings' JSON text (a store may write them as they
    are)."""
    if not record.id or not record.code:
        raise StoreError("a table needs an id and a code")
    if not SEED_MIN <= record.seed <= SEED_MAX:
        raise StoreError(f"seed {record.seed} does not fit in 128 bits")
    numbers = [seat.seat for seat in record.seats]
    if len(set(numbers)) != len(numbers):
        raise StoreError(f"table {record.id!r} has a seat number twice: {sorted(numbers)}")
    return json_text(record.rules, "rules"), json_text(record.settings, "settings")


def check_entry(entry: LogEntry) -> str:
    """Refuse a bad entry; its payload's JSON text (a store may write it as it is)."""
    if not 1 <= entry.seq <= SEQ_MAX:
        raise StoreError(f"seq {entry.seq} is out of range (1 to {SEQ_MAX})")
    return json_text(entry.payload, f"the payload of entry {entry.seq}")


def check_floor(player_id: str, valid_from: int) -> None:
    if not player_id:
        raise StoreError("a token floor needs a player id")
    if not 0 <= valid_from <= BIGINT_MAX:
        raise StoreError(f"token floor {valid_from} is out of range (0 to {BIGINT_MAX})")


def check_scoreboard(record: ScoreboardRecord) -> None:
    if not record.id or not record.view_key:
        raise StoreError("a scoreboard needs an id and a view key")
    if not 0 <= record.revision <= SEQ_MAX:
        raise StoreError(f"revision {record.revision} is out of range (0 to {SEQ_MAX})")
    json_text(list(record.names), "names")
    json_text(record.options, "options")
    json_text(record.placement, "placement")
    json_text(list(record.rounds), "rounds")
