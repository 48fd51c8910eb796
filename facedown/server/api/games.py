"""An account's games: every table it holds a seat at, the ones waiting for its move marked.

``GET /api/account/games`` is the "your games" list of the web client (its badge counts the
games waiting for you).  A table being played is read from the live table (whose move it is,
the deadline, missed deadlines); any other from its stored record.  It holds no card.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from ...store import TableRecord
from ..edge.state import ServerState
from ..modes.modes import settings_of, table_mode
from ..play.table import Table
from .account_routes import SIGNED_OUT_HTTP, signed_in
from .deps import State

LISTED = 100  # the most recently active tables of an account that the list looks at
_ORDER = {"playing": 0, "lobby": 1, "finished": 2}


class GameSeat(BaseModel):
    seat: int
    name: str
    kind: str
    forfeited: bool = Field(description="a bot plays it to the end of the match")


class Game(BaseModel):
    code: str
    preset: str
    mode: str = Field(description="live (a Live Private table) or turn_based")
    status: str = Field(description="lobby, playing or finished")
    match: int = Field(description="the table's match under way or last played (0: none yet)")
    seats: list[GameSeat]
    you: list[int] = Field(description="the seats you hold")
    your_move: bool = Field(description="the table waits for a move of yours")
    waiting_for: list[int] = Field(description="the seats of people whose move it is")
    deadline: float | None = Field(description="when the running timer ends (unix time)")
    missed: int = Field(description="deadlines you missed in this match (3 forfeit the seat)")
    updated_at: float


class Games(BaseModel):
    games: list[Game] = Field(description="yours first where it is your move, then by activity")
    your_move: int = Field(description="how many of them wait for your move")


def _game(record: TableRecord, table: Table | None, ids: Sequence[str]) -> Game:
    if table is not None:
        record = table.record
    you = [s.seat for s in record.seats if s.kind == "human" and s.player_id in ids]
    waiting = table.waiting_for() if table is not None else []
    forfeited = table.presence.forfeited if table is not None else set()
    misses = table.misses if table is not None else {}
    return Game(
        code=record.code,
        preset=record.preset,
        mode=table_mode(settings_of(record)).name,
        status=record.status,
        match=table.match_no if table is not None else 0,
        seats=[
            GameSeat(seat=s.seat, name=s.name, kind=s.kind, forfeited=s.seat in forfeited)
            for s in record.seats
        ],
        you=you,
        your_move=any(s in waiting for s in you),
        waiting_for=waiting,
        deadline=table.deadline if table is not None and table.playing() else None,
        missed=max((misses.get(s, 0) for s in you), default=0),
        updated_at=record.updated_at,
    )


async def your_games(state: ServerState, ids: Sequence[str]) -> Games:
    lobby = state.lobby()
    games: list[Game] = []
    for record in await lobby.store.player_tables(ids, LISTED):
        if record.status not in _ORDER:
            continue  # closed or broken: nothing to play or watch
        games.append(_game(record, lobby.tables.get(record.id), ids))
    games.sort(key=lambda g: (not g.your_move, _ORDER[g.status], -g.updated_at))
    return Games(games=games, your_move=sum(g.your_move for g in games))


router = APIRouter()


@router.get("/api/account/games", response_model=Games)
async def games(request: Request, state: State) -> Games:
    """The tables you hold a seat at, the ones waiting for your move first (no cards)."""
    who = await signed_in(state, request)
    if who is None:
        raise SIGNED_OUT_HTTP()
    return await your_games(state, await state.accounts_().player_ids(who))
