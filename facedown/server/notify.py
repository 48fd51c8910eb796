"""Telling a turn-based table's players that it is their move.

In the app the "your games" list (:mod:`.games`) marks the games waiting for you, and the web
client shows a badge and, when the player allowed it, a browser notification.  By e-mail: when
the server has an SMTP server (:mod:`.mail`) and the seat's account has an e-mail address, the
player gets one message each time a table starts waiting for them, unless they are at the table
right now.  Mail goes out in a task of its own: a move never waits for it, and a failure is
logged and dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from ..store.base import Store, StoreError, TableRecord
from .mail import Mailer

log = logging.getLogger(__name__)


class Notifier:
    def __init__(
        self,
        store: Store,
        mailer: Mailer | None,
        public_url: str,
        present: Callable[[str], set[int]],
    ) -> None:
        self.store = store
        self.mailer = mailer
        self.public_url = public_url.rstrip("/")
        self.present = present  # the seats with a connection at a table (by table id)
        self._tasks: set[asyncio.Task[None]] = set()

    def your_turn(self, record: TableRecord, seats: Sequence[int], deadline: float | None) -> None:
        """The table now waits for these seats: tell their players (by e-mail, when set up)."""
        if self.mailer is None:
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
                address = await self._address(record, seat)
                if address is not None and self.mailer is not None:
                    subject, body = self._message(record, seat, deadline)
                    await self.mailer.send(address, subject, body)
        except StoreError as e:
            log.warning("no turn e-mail for table %s: the store failed: %s", record.id, e)
        except Exception:  # a courtesy must never take a table down with it
            log.exception("no turn e-mail for table %s", record.id)

    async def _address(self, record: TableRecord, seat: int) -> str | None:
        """The e-mail address of the account holding the seat, if it has one."""
        held = next((s for s in record.seats if s.seat == seat and s.kind == "human"), None)
        if held is None or held.player_id is None:
            return None
        owner = await self.store.owner_of_player(held.player_id)
        if owner is None:
            return None
        user = await self.store.get_user(owner)
        return user.email if user is not None else None

    def _message(self, record: TableRecord, seat: int, deadline: float | None) -> tuple[str, str]:
        name = next((s.name for s in record.seats if s.seat == seat), "")
        link = f"{self.public_url}/t/{record.code}"
        subject = f"Facedown: your move at table {record.code} ({record.preset})"
        lines = [
            f"Hello {name},",
            "",
            f"it is your move at the turn-based {record.preset} table {record.code}.",
        ]
        if deadline is not None:
            when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(deadline))
            lines.append(f"Move by {when}; after that the server plays a safe move for you.")
        lines += [
            "",
            link,
            "",
            "(You get this because your Facedown account has an e-mail address.)",
        ]
        return subject, "\n".join(lines)

    async def close(self) -> None:
        """Let the mail under way finish (each is bounded by the mailer's timeout)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
