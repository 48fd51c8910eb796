"""How the processes of a cluster share its tables: each takes its part of the tables nobody
owns, and one that owns clearly more than its share hands a few over.

:class:`Sharing` knows tables by id only: what taking one, serving one or handing one over
means is the lobby's (it passes them in).  Every ``SCAN_EVERY`` seconds a process looks for the
active tables whose owner is gone (or that nobody owns yet) and takes its share of them, each on
its own; every ``Rebalance.every`` seconds it asks whether it owns more than its fair share plus
the margin (:func:`.ownership.surplus`), and hands the surplus over, at most a batch at a time:
those nobody is connected to first, the longest untouched first.  A table it handed over is left
to the others for a while (``hold``); one still untaken then backs rebalancing off, since the
others may be unable to take tables (a process that beats on Redis but cannot reach the
database), and this process takes it back.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import TypeVar

from ...store import Store, StoreError, table_lease
from .ownership import Ownership, Rebalance, share, surplus

SCAN_EVERY = 1.0  # seconds between a cluster process's looks for tables nobody owns
SCAN_LIMIT = 256  # unowned tables looked at per look
HANDOVER_WAIT = 3.0  # seconds a claim of a table just handed over waits for another to take it
HOLD_SCANS = 10  # a table handed over is left to the others for at least this many looks
REBALANCE_BACKOFF = 10  # periods without handing over after a handed table was left untaken

log = logging.getLogger(__name__)
T = TypeVar("T")


class Sharing:
    """This process's part in sharing the cluster's tables (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        ownership: Ownership,
        live_nodes: Callable[[], int] | None = None,
        loads: Callable[[], dict[str, int]] | None = None,
        rebalance: Rebalance | None = None,
    ) -> None:
        self.store = store
        self.ownership = ownership
        self._live_nodes = live_nodes or (lambda: 1)
        # The tables the other live processes own (their heartbeats), what this process does
        # about it, the tables it handed over lately (table id -> when: left for the others to
        # take for a period), and the unowned tables its last look found.
        self._loads = loads or dict
        self.rebalancing = rebalance or Rebalance()
        self._handed: dict[str, float] = {}
        self._unowned = 0
        self._untaken = 0  # of those, handed over by this process and not taken yet
        self._next_rebalance = time.monotonic() + self.rebalancing.every

    async def run(
        self,
        served: Collection[str],
        take: Callable[[str], Awaitable[bool]],
        rebalance: Callable[[], Awaitable[int]],
    ) -> None:
        """Look for unowned tables and ``take`` this process's share of them (``served``: the
        ids it serves); every so often, ``rebalance``.  Runs until cancelled."""
        while True:
            try:
                await self.scan(served, take)
            except StoreError as e:
                log.warning("cluster: looking for unowned tables failed: %s", e)
            if self.rebalancing.on and time.monotonic() >= self._next_rebalance:
                self._next_rebalance = time.monotonic() + self.rebalancing.every
                try:
                    await rebalance()
                except StoreError as e:
                    log.warning("cluster: handing tables over failed: %s", e)
            await asyncio.sleep(SCAN_EVERY)

    async def scan(self, served: Collection[str], take: Callable[[str], Awaitable[bool]]) -> int:
        """One look: returns how many tables this process took.  The tables it handed over
        lately are left for the others."""
        found = [t for t in await self.store.unowned_tables(SCAN_LIMIT) if t not in served]
        self._unowned = len(found)
        self._forget_handed(found)
        unowned = [t for t in found if not self.handed_lately(t)]
        self._untaken = len(found) - len(unowned)
        if not unowned:
            return 0
        mine = random.sample(unowned, min(len(unowned), share(len(unowned), self._live_nodes())))
        # Each table is taken on its own: one whose lease is held up (a stalled owner's write
        # locks its row) delays no other.
        taken = await asyncio.gather(*(take(t) for t in mine))
        return sum(taken)

    def surplus(self, owned: int) -> int:
        """How many of its ``owned`` tables this process would hand over now (0: about its
        share)."""
        others = list(self._loads().values())
        return surplus(owned, others, self._unowned, self.rebalancing.margin)

    def to_hand_over(
        self, active: Sequence[T], owned: int, idle: Callable[[T], bool]
    ) -> tuple[list[T], bool]:
        """Which of the ``active`` tables (the longest untouched first) to hand over now, and
        whether their clients are told to reconnect (``tables="all"``): those ``idle`` first."""
        config = self.rebalancing
        if not config.on or self._untaken:
            return [], False  # (some tables handed over are not taken yet: not settled)
        count = min(config.batch, self.surplus(owned))
        if count <= 0:
            return [], False
        quiet = [t for t in active if idle(t)]
        chosen = quiet[:count]
        everyone = config.tables == "all"
        if everyone and len(chosen) < count:
            chosen += [t for t in active if not idle(t)][: count - len(chosen)]
        return chosen, everyone

    def handed(self, table_id: str) -> None:
        """The table is being handed over: left to the others for a while."""
        self._handed[table_id] = time.monotonic()

    def served_again(self, table_id: str) -> None:
        """The table is served here again (nobody took it in time)."""
        self._handed.pop(table_id, None)

    @property
    def hold(self) -> float:
        """How long a table handed over is left for the other processes to take."""
        return max(self.rebalancing.every, HOLD_SCANS * SCAN_EVERY)

    def handed_lately(self, table_id: str) -> bool:
        handed = self._handed.get(table_id)
        return handed is not None and time.monotonic() < handed + self.hold

    def _forget_handed(self, unowned: list[str]) -> None:
        """Forget the tables handed over longer ago than the hold.  One still ``unowned`` then
        backs rebalancing off."""
        now = time.monotonic()
        untaken = set(unowned)
        for table_id, handed in list(self._handed.items()):
            if now < handed + self.hold:
                continue
            del self._handed[table_id]
            if table_id in untaken:
                log.warning(
                    "cluster: table %s was handed over %.0f s ago and nobody took it: "
                    "no tables are handed over for a while",
                    table_id,
                    now - handed,
                )
                every = max(self.rebalancing.every, SCAN_EVERY)
                self._next_rebalance = now + REBALANCE_BACKOFF * every

    async def successor(self, table_id: str) -> str | None:
        """The process that took a table this process handed over (waiting a little for one
        to), or None."""
        deadline = time.monotonic() + HANDOVER_WAIT
        while True:
            found = await self.store.get_lease(table_lease(table_id))
            if found is not None and found[1] and found[0].owner != self.ownership.node:
                return found[0].owner
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(0.1)
