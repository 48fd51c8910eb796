"""A table's log: the entries a table writes, and how a table is rebuilt by replaying them.

A table's log is the truth of its match: a ``start`` entry for each match (its number, its
player count, its seeding and any stacked deal) and an ``action`` entry for each move applied
(the action, the deadline it leaves, and whether a bot, a timer or a missed deadline played it).
Replaying the log rebuilds exactly the state the table had: its game, its sequence number, the
ids of the actions applied, the recent events a reconnecting client may have missed, and the
misses of a turn-based match.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Protocol

from ...engine import Action, Event, Game, Ruleset
from ...records.matches import DEAL, new_match, start_seed
from ...store import LogEntry, TableRecord, TableStatus
from ..modes.turnbased import MISSED
from .deadlines import MoveDeadlines

# The seats whose moment is over, with the seq it is over at: kept in the table's record, so a
# restart (or the process that takes the table over) still shows them nothing of that moment.
MOMENT_OVER = "moment_over"


class Replaying(Protocol):
    """What replaying a log sets on a table."""

    record: TableRecord
    rules: Ruleset
    game: Game | None
    seq: int
    match_no: int
    deadline: float | None
    last_write: float
    last_action: str
    recent: deque[tuple[int, list[Event]]]
    action_ids: dict[tuple[int, str], int]
    turns: MoveDeadlines


def replay(table: Replaying, entry: LogEntry) -> None:
    """Apply one log entry to the table, as it was applied when it was written."""
    table.seq = entry.seq
    table.last_write = max(table.last_write, entry.created_at)
    payload = entry.payload
    if entry.kind == "start":
        table.match_no = int(payload["match"])
        table.action_ids.clear()
        table.turns.new_match()
        table.recent.clear()
        # The start entry carries a stacked deal (test hooks) as it was dealt.
        seed = start_seed(table.record.seed, payload)
        table.game = new_match(table.rules, int(payload["players"]), seed, payload.get(DEAL))
    elif entry.kind == "action":
        if table.game is None:
            raise ValueError(f"log entry {entry.seq}: an action before the match started")
        action = Action.from_json(payload["action"])
        # Kept as when it was played: a client reconnecting to a process that took the table
        # over is sent exactly the events it missed.
        table.recent.append((entry.seq, table.game.apply(action)))
        table.last_action = action.text()
        if payload.get(MISSED):  # the deadline that ran out is the one before this entry
            table.turns.charge(action.player, table.deadline)
        if payload.get("id"):
            table.action_ids[action.player, str(payload["id"])] = entry.seq
    table.deadline = payload.get("deadline")


def status_from_log(status: TableStatus, game: Game | None) -> TableStatus:
    """The status the replayed log says: a started match is playing until it is over."""
    if status not in ("lobby", "playing", "finished"):
        return status  # a status the log has no say in (closed, broken)
    if game is None:
        return "lobby"  # no match has started
    return "finished" if game.is_match_over else "playing"


def hidden_at(settings: Mapping[str, Any], seq: int) -> set[int]:
    """The seats whose moment the record says is over at ``seq`` (none if it is of another)."""
    over = settings.get(MOMENT_OVER)
    if not isinstance(over, dict) or over.get("seq") != seq:
        return set()
    return {int(s) for s in over.get("seats", [])}


def action_entry(
    action: Action,
    action_id: str | None,
    deadline: float | None,
    auto: bool,
    timed_out: bool,
    missed: bool,
) -> dict[str, Any]:
    """An action's log entry: the action, the deadline it leaves, and (only when set) the
    client's id and whether a bot, a timer or a missed deadline played it."""
    payload: dict[str, Any] = {"action": action.to_json(), "deadline": deadline}
    if action_id is not None:
        payload["id"] = action_id
    if auto:
        payload["auto"] = True
    if timed_out:
        payload["timed_out"] = True
    if missed:
        payload[MISSED] = True
    return payload
