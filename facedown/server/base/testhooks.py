"""Test hooks: tables dealt the way a test says, for browser and end-to-end tests.

A server started with test hooks (``facedown serve --test-hooks`` or ``FACEDOWN_TEST_HOOKS=1``)
lets ``POST /api/tables`` choose the table's seed and stack the first deal of its first match.
Without them those fields are refused: on a real server nobody may know the deck order.

A stacked deal is stored as it was given, card names and all (in the table's settings, which
never reach a client, and in the log entry that starts the match), so a table rebuilt from its
log after a restart is dealt exactly the same cards.  Reading a deal and dealing it live in
:mod:`facedown.records.matches`, which the replays share.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import HTTPException
from pydantic import ConfigDict, Field

from ...records.matches import DEAL, new_match, stacked_deal
from .bodies import RequestBody
from .limits import MAX_PLAYERS, MAX_SEAT

__all__ = [
    "DEAL",
    "DealJson",
    "StackedDealSpec",
    "new_match",
    "refuse_test_hooks",
    "stacked_deal",
]

# A stacked deal as JSON (a StackedDealSpec's fields: ``hands``, ``discard``, ``draw``,
# ``first``), as ``records.matches.stacked_deal`` reads and checks it against a table; kept as
# it was given in the table's settings and in its match's start entry.
DealJson = dict[str, Any]

CardName = Annotated[str, Field(min_length=1, max_length=4)]


class StackedDealSpec(RequestBody):
    """A stacked first deal, by card names (refused unless the server runs with test hooks)."""

    model_config = ConfigDict(extra="forbid")

    hands: list[Annotated[list[CardName], Field(max_length=16)]] = Field(
        max_length=MAX_PLAYERS, description="each seat's cards, slot by slot"
    )
    discard: CardName = Field(description="the first card of the discard pile")
    draw: list[CardName] = Field(
        default_factory=list, max_length=256, description="the top of the draw pile, in order"
    )
    first: int | None = Field(None, ge=0, le=MAX_SEAT, description="the seat that starts")


def refuse_test_hooks(enabled: bool, seed: int | None, deal: StackedDealSpec | None) -> None:
    """A request that chooses a seed or a deal on a server without test hooks: 403
    ``test_hooks_off``, before anything is made."""
    if (seed is not None or deal is not None) and not enabled:
        message = (
            "seed and deal are test hooks: this server was not started with --test-hooks "
            "(FACEDOWN_TEST_HOOKS=1)"
        )
        raise HTTPException(403, {"code": "test_hooks_off", "message": message})
