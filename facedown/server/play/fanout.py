"""A table's fan-out: what each audience of a table is sent, and the sending.

An audience is a seat (every connection of its player) or the spectators.  Each change of a
match is rendered once per audience that listens (:func:`render_event`: its events, its view,
its legal actions), then published through the table's hub (:func:`publish`); the table's public
facts go to every audience alike (:func:`publish_table`).  A (re)connecting client gets what it
missed, or a fresh snapshot (:func:`catch_up`).  Nothing here changes a table.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from ...engine import (
    SPECTATOR,
    Action,
    Event,
    Game,
    observe_json,
    public_json,
    reveal_json,
    seen_event,
)
from ...records.matches import DEAL
from ...store import TableRecord
from ..modes import ranked_mode, ratings
from ..modes.modes import TableMode, TimedSettings, settings_of
from ..transport.hub import SPECTATORS, Hub
from ..transport.protocol import (
    EngineJson,
    EventFrame,
    MissedFrame,
    PublicBatchJson,
    SnapshotFrame,
    TableFrame,
    TableInfoJson,
    encode,
)
from . import seating
from .presence import Presence
from .tablelog import MOMENT_OVER

# Settings that never leave the server (a stacked deal; whose moment is over).
PRIVATE_SETTINGS = frozenset({DEAL, MOMENT_OVER})
# The changes a page loaded afresh gets back for its log (it shows the last 40 lines).
RESTORED_BATCHES = 40
# What a (re)connecting client is sent (:func:`catch_up`), in this order: the table, what it
# missed (if anything), a snapshot.
CatchUp = TableFrame | MissedFrame | SnapshotFrame


class Shown(Protocol):
    """What the fan-out reads of a table."""

    record: TableRecord
    hub: Hub
    mode: TableMode
    presence: Presence
    game: Game | None
    seq: int
    match_no: int
    deadline: float | None
    recent: deque[tuple[int, list[Event]]]
    hidden: set[int]

    @property
    def misses(self) -> dict[int, int]:
        """Missed move deadlines per seat in this match."""

    def now(self) -> float:
        """The table's clock."""

    def settings(self) -> TimedSettings:
        """The table's settings, the defaults filled in."""


def render(table: Shown, seat: int | None) -> SnapshotFrame:
    """The snapshot for one audience: its view and its legal actions, and the match's
    scoreboard (every round so far)."""
    game, seen = _seen(table, seat, None, None)
    return {
        "type": "snapshot",
        "seq": table.seq,
        "view": seen["view"],
        "legal": seen["legal"],
        "sets": seen["sets"],
        "deadline": table.deadline,
        "now": table.now(),
        "rounds": [reveal_json(r, game.deck) for r in game.history],  # each made once
    }


def render_event(
    table: Shown,
    seat: int | None,
    events: list[Event],
    timed_out: Action | None = None,
    ack: str | None = None,
    public: EngineJson | None = None,
) -> EventFrame:
    """The event for one audience: its events, its view and its legal actions (and, when a
    timer ran out, the move played for the seat it waited for; ``ack``: the id of the audience's
    own action the event applied, which answers it).  ``public``: the game's ``public_json``,
    one for all the audiences of a change."""
    _, seen = _seen(table, seat, events, public)
    message: EventFrame = {
        "type": "event",
        "seq": table.seq,
        "view": seen["view"],
        "legal": seen["legal"],
        "sets": seen["sets"],
        "deadline": table.deadline,
        "now": table.now(),
        "events": seen["events"],
    }
    if timed_out is not None:
        message["timed_out"] = {"seat": timed_out.player, "action": timed_out.to_json()}
    if ack is not None:
        message["ack"] = ack
    return message


def _seen(
    table: Shown, seat: int | None, events: list[Event] | None, public: EngineJson | None
) -> tuple[Game, EngineJson]:
    """The match, and what the audience sees of it (the engine's ``observe_json``: its view,
    its legal actions, its set size, its events)."""
    game = table.game
    if game is None:  # never: only a table in a match renders
        raise RuntimeError("render before the match started")
    # Recollection only where the mode shows it (turn-based), whatever the ruleset says.
    knowledge = table.mode.recollection
    viewer = _viewer(table, seat)
    seen = observe_json(game, viewer, events or (), knowledge=knowledge, public=public)
    if viewer != SPECTATOR and viewer in table.hidden:
        seen["view"]["shown"] = {}  # its moment is over: the seat said so
    found = winners(table.record, game)
    if found is not None:  # a ranked match's forfeiters are never among its winners
        seen["view"]["winners"] = found
        for event in seen.get("events") or []:
            if event.get("winners"):
                event["winners"] = found
    return game, seen


def publish(
    table: Shown,
    events: list[Event],
    timed_out: Action | None = None,
    ack: str | None = None,
    actor: int | None = None,
) -> None:
    """Fan out a change; ``ack``: the id of the action of seat ``actor`` that made it, in that
    seat's event (no other audience sees it)."""
    if table.game is None:
        return
    messages: dict[int, EventFrame] = {}
    public = public_json(table.game)  # what every audience's view shares
    for audience in table.hub.audiences(table.record.id):  # render only for who listens
        seat = None if audience == SPECTATORS else audience
        mine = ack if seat is not None and seat == actor else None
        messages[audience] = render_event(table, seat, events, timed_out, mine, public)
    table.hub.publish(table.record.id, messages)


def table_info(table: Shown) -> TableInfoJson:
    """Public facts about the table: never the seed."""
    record = table.record
    present = table.hub.present(record.id)
    return {
        "code": record.code,
        "preset": record.preset,
        "status": record.status,
        "settings": {k: v for k, v in table.settings().items() if k not in PRIVATE_SETTINGS},
        "host_seat": seating.host_seat(record),
        "rules": record.rules,
        "match": table.match_no,
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "level": s.bot_level,
                "connected": s.kind == "bot" or s.seat in present,
                "bot_standin": s.seat in table.presence.standins,
                "missed": table.misses.get(s.seat, 0),
                "forfeited": s.seat in table.presence.forfeited,
            }
            for s in record.seats
        ],
    }


def table_message(table: Shown, seat: int | None) -> TableFrame:
    """The table's public facts, and which seat (if any) the receiver holds now."""
    return {"type": "table", "seq": table.seq, "seat": seat, "table": table_info(table)}


def publish_table(table: Shown) -> None:
    """The table's public facts to every audience (each told which seat it holds).

    The facts are the same for all: encoded once, and each audience that listens gets them
    behind its own head (the type, the seq, its seat), the text ``encode`` makes of its
    message."""
    listening = table.hub.audiences(table.record.id)
    if not listening:
        return  # nobody would get a message
    info = table_info(table)
    seq = table.seq
    messages: dict[int, TableFrame] = {
        SPECTATORS: {"type": "table", "seq": seq, "seat": None, "table": info}
    }
    for seat in range(len(table.record.seats)):
        messages[seat] = {"type": "table", "seq": seq, "seat": seat, "table": info}
    shared = encode(info)
    frames: dict[int, str] = {}
    for audience in listening:
        if audience in messages:
            head = encode({"type": "table", "seq": seq, "seat": messages[audience]["seat"]})
            frames[audience] = f'{head[:-1]},"table":{shared}}}'
    table.hub.publish(table.record.id, messages, frames)


def catch_up(table: Shown, seat: int | None, last_seq: int | None) -> list[CatchUp]:
    """What a (re)connecting client needs: the public part of what it missed, or only a fresh
    snapshot.

    A missed event never carries the cards the seat was shown in it (``seen``), whatever
    ``last_seq`` the client claims: a private card reaches a seat in its moment only, and what
    the seat may still know now is in the snapshot's view (the card it is being shown, the card
    it holds, and its knowledge where the table has Recollection; none of them for a forfeited
    seat, whose player gets what a spectator gets: :func:`_viewer`)."""
    out: list[CatchUp] = [table_message(table, seat)]
    game = table.game
    if game is None:
        return out
    if last_seq is not None and last_seq <= table.seq:
        missed = [(seq, ev) for seq, ev in table.recent if seq > last_seq]
        if last_seq == table.seq or (missed and missed[0][0] == last_seq + 1):
            deck = game.deck
            for seq, events in missed:
                public = [seen_event(e, deck, SPECTATOR).to_json() for e in events]
                out.append({"type": "missed", "seq": seq, "events": public})
    snapshot = render(table, seat)
    if last_seq is None:  # a page loaded afresh: its log shows the latest public events
        snapshot["recent"] = public_recent(table)
    out.append(snapshot)
    return out


def public_recent(table: Shown) -> list[PublicBatchJson]:
    """The latest published changes, as a spectator saw them (no card shown to one seat)."""
    game = table.game
    if game is None:
        return []
    deck = game.deck
    batches = list(table.recent)[-RESTORED_BATCHES:]
    return [
        {"seq": seq, "events": [seen_event(e, deck, SPECTATOR).to_json() for e in ev]}
        for seq, ev in batches
    ]


def winners(record: TableRecord, game: Game) -> list[int] | None:
    """The winners of a ranked match that someone forfeited, when it is over (None: the
    engine's winners stand), as :func:`..modes.ratings.outcome` decides them."""
    if not game.is_match_over:  # (every render asks: the cheap test first)
        return None
    gone = ranked_mode.forfeits(settings_of(record))
    if not gone:
        return None
    return list(ratings.outcome(game.places(), game.winners, gone).winners)


def _viewer(table: Shown, seat: int | None) -> int:
    """The engine's viewer for an audience (None: a spectator).  A forfeited seat's player is
    out of the match: to its end they see what a spectator sees (no card its bot holds, draws or
    is shown, none of what the seat knew before, nothing to do), whatever the path (an event,
    a snapshot, a catch-up); the next match is theirs again
    (:meth:`.presence.Presence.new_match`)."""
    if seat is None or seat in table.presence.forfeited:
        return SPECTATOR
    return seat
