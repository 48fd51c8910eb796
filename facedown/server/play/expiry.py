"""When a table expires: a lobby nobody started (after a day; a turn-based one after a week),
and a table of one sitting (pass-and-play) a day after it was made, whatever its state.

An expired table is marked ``closed`` in the store and no longer served; a finished
pass-and-play table stays finished in the store (its replay is still served).  The lobby looks
for expired tables every so often (:func:`sweep_every`) and whenever it finds a table by code.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from ...store import Lease, Store, StoreError, TableRecord
from ..modes.modes import settings_of, table_mode
from .context import TableConfig

# The states a table of one sitting (pass-and-play) expires from: closed when it was not over,
# and a finished one stays finished in the store but is no longer served (its replay still is).
ONE_SITTING_EXPIRING = ("lobby", "playing", "finished")

log = logging.getLogger(__name__)


def expired(record: TableRecord, config: TableConfig, now: float) -> bool:
    """Whether the table has expired (see the module docstring)."""
    mode = table_mode(settings_of(record))
    # A lobby expires; a table of one sitting, started at once, all the same.
    expiring = ONE_SITTING_EXPIRING if mode.one_sitting else ("lobby",)
    return record.status in expiring and record.created_at + config.expiry(mode) <= now


async def close_expired(
    store: Store, record: TableRecord, now: float, lease: Lease | None = None
) -> None:
    """Mark an expired table closed in the store (a finished one is kept as it ended)."""
    if record.status == "finished":  # an expired pass-and-play table: kept as it ended
        return
    closed = replace(record, status="closed", updated_at=now)
    try:
        await store.update_table(closed, lease=lease)
    except StoreError as e:
        log.error("expired table %s could not be closed: %s", record.id, e)


def sweep_every(config: TableConfig) -> float:
    """Seconds between the lobby's looks for expired tables (a tenth of the shorter expiry, at
    most hourly)."""
    return min(config.lobby_expiry / 10, config.pass_and_play_expiry / 10, 3600.0)
