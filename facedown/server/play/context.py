"""What every table of a process shares: the store, the hub, the bots, the timings and the clock."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...bots import Bot
from ...store import Store, TableRecord
from ..base.clock import Clock, SystemClock
from ..base.crashhook import CrashAt
from ..base.metrics import Metrics
from ..cluster.ownership import Ownership, SoleOwner
from ..transport.hub import Hub
from .thinking import Thinker

BotFactory = Callable[[str, int], Bot]


class TurnNotifier(Protocol):
    """What a table needs of whoever tells its players that it waits for them (the server's
    is notify.Notifier, by e-mail: declared here so that a table does not depend on mail)."""

    def your_turn(self, record: TableRecord, seats: Sequence[int], deadline: float | None) -> None:
        """A turn-based table now waits for these seats' players."""


@dataclass(frozen=True)
class TableConfig:
    """Server-wide timings (a table's own settings override the per-table ones)."""

    bot_delay: float = 0.7  # seconds a bot "thinks" before it plays, so people can follow
    grace_seconds: float = 30.0  # a disconnected player keeps the seat this long before a bot
    reveal_seconds: float = 12.0  # the reveal stays up this long before the next round
    recent: int = 512  # published batches kept to resend to a reconnecting client
    lobby_expiry: float = 86400.0  # seconds after its creation a table that never started closes
    # The same for a turn-based table, whose players join over days: a week.
    turn_based_lobby_expiry: float = 7 * 86400.0
    # A pass-and-play table starts when it is made and is played at one device in one sitting:
    # this long after its creation it closes, whatever its state (playing or finished).
    pass_and_play_expiry: float = 86400.0


@dataclass
class TableHooks:
    """Who else hears of a table's changes: each of ``finished`` is called (synchronously, under
    the table's lock: it must not block) with the record of a table whose match just ended."""

    finished: list[Callable[[TableRecord], None]] = field(default_factory=list)

    def match_over(self, record: TableRecord) -> None:
        for hear in self.finished:
            hear(record)


@dataclass(frozen=True)
class TableContext:
    """The collaborators of the lobby and of each table it owns."""

    store: Store
    hub: Hub
    bot_factory: BotFactory
    config: TableConfig = field(default_factory=TableConfig)
    clock: Clock = field(default_factory=SystemClock)
    metrics: Metrics = field(default_factory=Metrics)
    crash: CrashAt | None = None  # a test hook: die inside a durability window (crashhook.py)
    hooks: TableHooks = field(default_factory=TableHooks)
    notifier: TurnNotifier | None = None  # tells turn-based players it is their move
    # Which tables this process owns: all of them (one process), or by lease (a cluster).
    ownership: Ownership = field(default_factory=SoleOwner)
    # Where bots choose: a thread, or a process pool for long thinkers (server/play/thinking.py).
    thinker: Thinker = field(default_factory=Thinker)
