"""What a seat's move must pass before the engine sees it: a seat that may still act, a
well-formed action, and a view of the table that is not stale."""

from __future__ import annotations

from typing import Any

from ...engine import Action, ActionFormatError
from ..base.errors import TableError

# Moves whose meaning does not depend on what others did since: no stale-seq check for them.
INDEPENDENT = frozenset({"opening_peek", "next_round"})


def checked_move(
    seat: int,
    data: dict[str, Any],
    forfeited: bool,
    seen_seq: int | None,
    seq: int,
    last_action: str,
) -> Action:
    """The seat's action, once the seat may act (not ``forfeited``), it is well formed, and the
    seat saw the table at ``seq`` (``seen_seq``; the engine then judges whether it is legal)."""
    if forfeited:
        raise TableError(
            "seat_forfeited",
            "your seat was forfeited (three missed deadlines, or a ranked match left past its "
            "grace period): a bot plays it to the end of this match",
        )
    try:
        action = Action.from_json(data, player=seat)
    except ActionFormatError as e:
        raise TableError("bad_action", str(e)) from None
    if seen_seq is not None and seen_seq != seq and action.kind not in INDEPENDENT:
        last = f"; last: {last_action}" if last_action else ""
        raise TableError(
            "stale",
            f"the table moved on before your action arrived (you saw {seen_seq}, it is at "
            f"{seq}{last}): here is the current state",
        )
    return action
