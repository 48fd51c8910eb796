"""Test hooks: tables dealt the way a test says, for browser and end-to-end tests.

A server started with test hooks (``facedown serve --test-hooks`` or ``FACEDOWN_TEST_HOOKS=1``)
lets ``POST /api/tables`` choose the table's seed and stack the first deal of its first match.
Without them those fields are refused: on a real server nobody may know the deck order.

A stacked deal is stored as it was given, card names and all (in the table's settings, which
never reach a client, and in the log entry that starts the match), so a table rebuilt from its
log after a restart is dealt exactly the same cards.  Reading a deal and dealing it live in
:mod:`facedown.matches`, which the replays share.
"""

from __future__ import annotations

from ..matches import DEAL, new_match, stacked_deal

__all__ = ["DEAL", "new_match", "stacked_deal"]
