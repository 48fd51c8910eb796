"""Telling a turn-based table's players that it is their move.

In the app the "your games" list (:mod:`.games`) marks the games waiting for you, and the web
client shows a badge and, when the player allowed it, a browser notification.  By e-mail: when
the server has an SMTP server (:mod:`.mail`) and the seat's account has an e-mail address that
its owner confirmed, the player gets one message each time a table starts waiting for them,
unless they are at the table right now or an hourly cap is reached (:mod:`.postbox`).  Mail
goes out in a task of its own: a move never waits for it, and a failure is logged and dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from ...store import Store, StoreError, TableRecord
from .postbox import Postbox

log = logging.getLogger(__name__)


class Notifier:
    """Tells the players a turn-based table waits for, by e-mail (the server's
    context.TurnNotifier)."""

    def __init__(
        self,
        store: Store,
        postbox: Postbox,
        present: Callable[[str], set[int]],
    ) -> None:
        self.store = store
        self.postbox = postbox
        self.present = present  # the seats with a connection at a table (by table id)
        self._tasks: set[asyncio.Task[None]] = set()

    def your_turn(self, record: TableRecord, seats: Sequence[int], deadline: float | None) -> None:
        """The table now waits for these seats: tell their players (by e-mail, when set up)."""
        if self.postbox.mailer is None:
            return
        here = self.present(record.id)
        away = [s for s in seats if s not in here]
        if not away:
            return
        task = asyncio.get_running_loop().create_task(self._mail(record, away, deadline))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mail(
        self, record: TableRecord, seats: Sequence[int], deadline: float | None
    ) -> None:
        try:
            for seat in seats:
                held = next((s for s in record.seats if s.seat == seat and s.kind == "human"), None)
                if held is None or held.player_id is None:
                    continue
                owner = await self.store.owner_of_player(held.player_id)
                if owner is not None:
                    await self.postbox.your_turn(
                        owner, held.name, record.preset, record.code, deadline
                    )
        except StoreError as e:
            log.warning("no turn e-mail for table %s: the store failed: %s", record.id, e)
        except Exception:  # a courtesy must never take a table down with it
            log.exception("no turn e-mail for table %s", record.id)

    async def close(self) -> None:
        """Let the mail under way finish (each is bounded by the mailer's timeout)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
