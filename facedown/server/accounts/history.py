"""A player's match history: the finished matches of the tables they sat at, from the store.

A table's log is replayed (as a restarted server rebuilds a table) to find where each match
ended: its number (counted from 1 per table), when its last action was written, the totals and
the winning seats.  Nothing else of a match leaves here: no card, no hand, no seed.

A finished match never changes, and every match that ends updates its table's record (its
status), so what a table's log says is kept per (table id, updated_at) and read again only when
the table has changed since.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TypedDict

from ...engine import Action, Game, Ruleset
from ...records.matches import start_seed
from ...store import LogEntry, Store, TableRecord
from ..base.testhooks import DEAL, new_match
from ..modes import ratings
from ..modes.modes import settings_of
from ..modes.ranked_mode import forfeits

log = logging.getLogger(__name__)

MAX_TABLES = 100  # the most recently active tables a history looks at
CACHED_TABLES = 2048


@dataclass(frozen=True)
class FinishedMatch:
    """How one match of a table ended (no hidden information)."""

    match_no: int
    finished_at: float
    scores: tuple[int, ...]  # each seat's match total
    winners: tuple[int, ...]  # the winning seats (more than one on a shared win)
    # Each seat's place (1 is best, ties share): the engine's, then a ranked table's forfeited
    # seats after every other.  A seat that forfeited is never a winner.
    places: tuple[int, ...] = ()


class HistorySeatJson(TypedDict):
    seat: int
    name: str
    kind: str
    bot_level: str | None


class HistoryJson(TypedDict):
    """A finished match of a player's history, as the account's API answers it."""

    table_id: str
    code: str
    match_no: int
    preset: str
    finished_at: float
    seats: list[HistorySeatJson]
    scores: list[int]
    winners: list[int]
    you: list[int]
    won: bool


@dataclass(frozen=True)
class HistoryRow:
    """A finished match as a player's history shows it."""

    table: TableRecord
    match: FinishedMatch
    mine: tuple[int, ...]  # the seats the player held at that table

    def to_json(self) -> HistoryJson:
        table, match = self.table, self.match
        return HistoryJson(
            table_id=table.id,
            code=table.code,
            match_no=match.match_no,
            preset=table.preset,
            finished_at=match.finished_at,
            seats=[
                HistorySeatJson(seat=s.seat, name=s.name, kind=s.kind, bot_level=s.bot_level)
                for s in table.seats
            ],
            scores=list(match.scores),
            winners=list(match.winners),
            you=list(self.mine),
            won=any(seat in match.winners for seat in self.mine),
        )


def finished_matches(record: TableRecord, entries: list[LogEntry]) -> list[FinishedMatch]:
    """Every match of the table's log that reached its end, in order."""
    rules = Ruleset.from_json(record.rules)
    found: list[FinishedMatch] = []
    game: Game | None = None
    match_no = 0
    for entry in entries:
        payload = entry.payload
        if entry.kind == "start":
            match_no = int(payload["match"])
            seed = start_seed(record.seed, payload)
            game = new_match(rules, int(payload["players"]), seed, payload.get(DEAL))
        elif entry.kind == "action" and game is not None and not game.is_match_over:
            game.apply(Action.from_json(payload["action"]))
            if game.is_match_over:
                found.append(_ended(record, match_no, entry.created_at, game))
    return found


def _ended(record: TableRecord, match_no: int, at: float, game: Game) -> FinishedMatch:
    """A match that ended: its places and winners as :func:`..modes.ratings.outcome` decides
    them (a ranked table's forfeits placed last, never winners)."""
    ended = ratings.outcome(game.places(), game.winners, forfeits(settings_of(record)))
    return FinishedMatch(match_no, at, tuple(game.totals), ended.winners, ended.places)


class History:
    """Reads histories from the store, remembering what each table's log said."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._known: OrderedDict[str, tuple[float, list[FinishedMatch]]] = OrderedDict()

    async def of(self, player_ids: list[str], limit: int = 50) -> list[HistoryRow]:
        """The newest ``limit`` finished matches at tables where one of ``player_ids`` sat."""
        wanted = set(player_ids)
        rows: list[HistoryRow] = []
        for table in await self.store.player_tables(player_ids, MAX_TABLES):
            mine = tuple(s.seat for s in table.seats if s.player_id in wanted)
            rows.extend(HistoryRow(table, m, mine) for m in await self._matches(table))
        rows.sort(key=lambda r: (-r.match.finished_at, r.table.id, -r.match.match_no))
        return rows[:limit]

    async def _matches(self, table: TableRecord) -> list[FinishedMatch]:
        if table.status in ("lobby", "broken"):
            return []  # no match has started, or the log cannot be replayed
        known = self._known.get(table.id)
        if known is not None and known[0] == table.updated_at:
            self._known.move_to_end(table.id)
            return known[1]
        entries = await self.store.log(table.id)
        try:  # in a thread: a long log is a few milliseconds of engine work
            matches = await asyncio.to_thread(finished_matches, table, entries)
        except Exception:  # a log the engine refuses: leave the table out, say so once
            log.exception("table %s: its log does not replay; left out of a history", table.id)
            matches = []
        self._known[table.id] = (table.updated_at, matches)
        if len(self._known) > CACHED_TABLES:
            self._known.popitem(last=False)
        return matches
