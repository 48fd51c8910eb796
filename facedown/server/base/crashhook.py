"""Test hook: a server that kills itself with SIGKILL inside one durability window.

For tests only, and only on a server started with test hooks (``facedown serve --test-hooks``):
``FACEDOWN_CRASH_AT=<window>`` (or ``<window>:<n>`` for the n-th time that window comes up)
makes the process send itself SIGKILL inside the write of a table change that has a log entry:

- ``first_start``: a table's first match starts (its ``start`` entry, the status ``playing``);
- ``rematch``: a later match starts (the same write after a finished match);
- ``round_end``: the action that ends a round that is not the last;
- ``match_end``: the action that ends the match (the entry, the status ``finished``).

The kill lands after the write's statements have run in its transaction and before that
transaction commits, so the database keeps the table as it was before the change: what a crash
at the worst moment leaves.  Before it dies the process prints one line saying which table and
which entry it dies in (tests read it).  Without test hooks the variable is refused at start-up.
"""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import dataclass

ENV = "FACEDOWN_CRASH_AT"
WINDOWS = ("first_start", "rematch", "round_end", "match_end")
KILLED = "Facedown: test hook: killed by FACEDOWN_CRASH_AT"  # the line printed before dying


@dataclass
class CrashAt:
    """Where to die: the ``nth`` write (1 = the first) of ``window``."""

    window: str
    nth: int = 1
    seen: int = 0
    armed: tuple[str, int] | None = None  # (table id, seq) of the write that must not commit

    @classmethod
    def parse(cls, text: str) -> CrashAt:
        """``window`` or ``window:n``; ValueError with a readable message otherwise."""
        window, _, count = text.strip().partition(":")
        if window not in WINDOWS:
            raise ValueError(f"{ENV}={text!r}: the window is one of {', '.join(WINDOWS)}")
        if not count:
            return cls(window)
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{ENV}={text!r}: after the colon comes a count, 1 or more")
        return cls(window, int(count))

    def arm(self, window: str | None, table_id: str, seq: int) -> None:
        """A table is about to write entry ``seq`` in ``window`` (None: no window)."""
        if window != self.window or self.armed is not None:
            return
        self.seen += 1
        if self.seen == self.nth:
            self.armed = (table_id, seq)

    def before_commit(self, table_id: str, seq: int) -> None:
        """Called by the store inside the write of entry ``seq``, before its commit (in the
        store's writer thread): the armed write kills the process here."""
        if self.armed != (table_id, seq):
            return
        print(
            f"{KILLED}: window {self.window}, table {table_id}, entry {seq} not committed",
            file=sys.stderr,
            flush=True,
        )
        os.kill(os.getpid(), signal.SIGKILL)
