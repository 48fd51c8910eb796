"""Connections opened with an account's session, closed when that session ends.

A seat token an account holder's session obtained is good only while that session lives
(:meth:`~facedown.server.accounts.accounts.Accounts.seat_holder`), and ``hello`` checks it.  A
connection already open when the session ends (signing out, signing out everywhere, ending the
session from another device, a password change) must not go on playing the seat and receiving
its private cards: the process that ended the session closes its own such connections at once
(:meth:`SessionSockets.check`), and every process checks the sessions of all of its
connections every few seconds (:meth:`SessionSockets.run`, ``ServerSettings.session_check``),
which finds a session ended by another process of a cluster, or one that ran out.  The client
is told ``bad_token`` (its session for this table is no longer valid) before the close.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import TYPE_CHECKING

from ..transport import protocol as P

if TYPE_CHECKING:
    from .connection import Connection

SESSION_ENDED = 4003  # close code: the account session the seat was opened with has ended

log = logging.getLogger("facedown.server")


class SessionSockets:
    """This process's connections that an account session opened, by account."""

    def __init__(self, live: Callable[[Collection[str]], Awaitable[Mapping[str, str]]]) -> None:
        """``live``: of some sessions, the ones that have not ended, each with its account."""
        self._live = live
        self._by_owner: dict[str, dict[Connection, str]] = {}
        self._owner: dict[Connection, str] = {}

    def watch(self, conn: Connection, owner: str, session: str) -> None:
        """``conn`` holds a seat for the account ``owner`` by a token of its ``session``."""
        self.forget(conn)
        self._by_owner.setdefault(owner, {})[conn] = session
        self._owner[conn] = owner

    def forget(self, conn: Connection) -> None:
        """``conn`` closed (or holds no session's seat any more)."""
        owner = self._owner.pop(conn, None)
        if owner is None:
            return
        conns = self._by_owner[owner]
        conns.pop(conn, None)
        if not conns:
            del self._by_owner[owner]

    def watched(self) -> int:
        """How many connections are watched (tests, metrics)."""
        return len(self._owner)

    async def check(self, owner: str) -> int:
        """Close the connections of ``owner`` whose session has ended; how many were closed."""
        return await self._close_ended([owner])

    async def _close_ended(self, owners: list[str]) -> int:
        """Close the connections of these accounts whose session has ended, the sessions read
        in one go; how many were closed.  Only the connections watched before the read: one
        watched meanwhile may stand on a session begun meanwhile."""
        watched = [
            (owner, conn, session)
            for owner in owners
            for conn, session in self._by_owner.get(owner, {}).items()
        ]
        if not watched:
            return 0
        live = await self._live({session for _, _, session in watched})
        closed = 0
        for owner, conn, session in watched:
            if live.get(session) == owner or self._by_owner.get(owner, {}).get(conn) != session:
                continue  # live, or forgotten (or watched anew) while the store was read
            self.forget(conn)
            conn.send(P.error_message("bad_token", "the session this seat was opened with ended"))
            conn.close(SESSION_ENDED, "session ended")
            closed += 1
        return closed

    async def settle(self, owner: str) -> int:
        """:meth:`check`, where a failure is logged, not raised: the account's request (its
        sign-out, its new password) is done already, and the next sweep tries again."""
        try:
            return await self.check(owner)
        except Exception:  # the store may be down a while: the sweep comes back to it
            log.warning("checking the sessions of %s's open seats failed", owner, exc_info=True)
            return 0

    async def sweep(self) -> int:
        """Check every watched connection once, in one read of the store; how many were closed.
        When that read fails, each account is checked on its own (logged once), so that one
        account the store cannot read stops no other's."""
        owners = list(self._by_owner)
        try:
            return await self._close_ended(owners)
        except Exception:
            log.warning("checking the sessions of the open seats failed", exc_info=True)
        closed = failed = 0
        for owner in owners:
            try:
                closed += await self.check(owner)
            except Exception:  # the store may be down a while: the next sweep tries again
                failed += 1
        if failed:
            log.warning("the sessions of %d of %d accounts could not be read", failed, len(owners))
        return closed

    async def run(self, every: float) -> None:
        """Sweep every ``every`` seconds until cancelled."""
        while True:
            await asyncio.sleep(every)
            await self.sweep()
