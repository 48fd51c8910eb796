"""The scoreboard API: boards for paper games, saved on the server and scored by the engine.

A board has two secrets.  Its **edit key** (in the editor's link) lets one add, edit and undo
rounds; only its SHA-256 is stored, so the database alone cannot edit a board.  Its **view key**
(the read-only share link) lets one read the board and its CSV, and nothing else.

Two devices editing one board: every edit carries ``base``, the board revision it was made on.
An edit whose base is not the board's revision now is refused with 409 ``revision_conflict``
(the answer says the current revision) and changes nothing; the device then shows the board as
it is and lets its user enter the round again.  The server scores every round (the engine's
:func:`~facedown.engine.tally`); the browser never does.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Annotated, Any, TypedDict, cast

from fastapi import APIRouter, HTTPException, Query
from fastapi import Path as PathParam
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from ...engine import MAX_PLAYERS, MIN_PLAYERS, PRESETS, PaperRound, RulesetError, TallyError
from ...records.paperboard import MAX_ROUNDS, Board
from ...store import RevisionConflict, ScoreboardRecord, ScoreboardStore, StoreError
from ..base import examples
from ..base.bodies import RequestBody
from ..base.examples import body as body_of
from ..base.text import Name
from ..edge.state import ServerState
from .deps import Address, State, refused

MAX_REVISION = 2**31 - 1
BoardKey = Annotated[str, PathParam(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
RoundNumber = Annotated[int, PathParam(ge=1, le=MAX_ROUNDS)]
HandTotal = Annotated[int, Field(ge=-999, le=999)]
PlacePoints = Annotated[int, Field(ge=-1000, le=1000)]


class PlacementIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    points: list[PlacePoints] = Field(
        min_length=MIN_PLAYERS, max_length=MAX_PLAYERS, description="points for 1st, 2nd, ..."
    )
    rounds: int = Field(ge=1, le=100, description="rounds in the match")


class CreateBoard(RequestBody):
    model_config = ConfigDict(extra="forbid")

    names: list[Name] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    preset: str = Field("cabo", max_length=32, description="boyo, cabo, kivo or kaboom scoring")
    rounds: int | None = Field(None, ge=1, le=100, description="rounds, if not the preset's")
    sudden_death: bool = Field(False, description="one more round when tied after the rounds")
    placement: PlacementIn | None = Field(None, description="score by placement points instead")


class RoundIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    base: int = Field(ge=0, le=MAX_REVISION, description="the board revision this edit is based on")
    hand_totals: list[HandTotal] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    caller: int = Field(-1, ge=-1, lt=MAX_PLAYERS, description="who called (-1: nobody)")
    moon: int = Field(-1, ge=-1, lt=MAX_PLAYERS, description="who shot the moon (-1: nobody)")

    def paper(self) -> PaperRound:
        return PaperRound(tuple(self.hand_totals), self.caller, self.moon)


def board_id(edit_key: str) -> str:
    """What a board is stored under: the SHA-256 of its edit key (the key is never stored)."""
    return hashlib.sha256(edit_key.encode("ascii")).hexdigest()


def _board(record: ScoreboardRecord) -> Board:
    return Board.make(record.names, record.preset, record.options, record.placement, record.rounds)


router = APIRouter()


class SharedBoard(BaseModel):
    """A board as its viewers get it: the board (scored by the engine) and its read-only link."""

    revision: int = Field(description="the board's revision: an edit names it as its base")
    share_link: str = Field(description="the read-only link")
    view_key: str
    # The engine's JSON of the board (records.paperboard.Board.to_json: names, rules, every
    # round scored, the totals, the winners): the web client reads it as docs/scoreboard.md says.
    board: dict[str, Any]


class EditedBoard(SharedBoard):
    """A board as its editor gets it: with the edit link (never shown to a viewer)."""

    link: str = Field(description="the edit link")


def _store(state: ServerState) -> ScoreboardStore:
    used = state.lobby().store
    if not hasattr(used, "get_scoreboard"):  # a store that keeps tables only
        raise refused(503, "store_unavailable", "this server keeps no scoreboards")
    return cast(ScoreboardStore, used)


def _shared(state: ServerState, record: ScoreboardRecord, board: Board) -> SharedBoard:
    view_key = record.view_key
    return SharedBoard(
        revision=record.revision,
        share_link=f"{state.settings.public_url}/scoreboard/view/{view_key}",
        view_key=view_key,
        board=board.to_json(),
    )


def _edited(
    state: ServerState, record: ScoreboardRecord, board: Board, edit_key: str
) -> EditedBoard:
    link = f"{state.settings.public_url}/scoreboard/{edit_key}"
    return EditedBoard(**dict(_shared(state, record, board)), link=link)


async def _find(
    state: ServerState,
    get: Callable[[str], Awaitable[ScoreboardRecord | None]],
    key: str,
    where: str,
) -> ScoreboardRecord:
    lookups = state.limits.lookups
    if lookups.exhausted(where):
        raise refused(429, "rate_limited", "too many unknown board keys from your address")
    try:
        record = await get(key)
    except StoreError:
        raise refused(503, "store_unavailable", "the scoreboards cannot be read now") from None
    if record is None:
        lookups.charge(where)
        raise refused(404, "unknown_board", "no scoreboard has this link")
    return record


async def _edit(
    state: ServerState,
    edit_key: str,
    base: int,
    where: str,
    change: Callable[[list[PaperRound]], None],
) -> EditedBoard:
    if not state.limits.board_edits.allow(where):
        raise refused(429, "rate_limited", "too many scoreboard edits from your address")
    store = _store(state)
    record = await _find(state, store.get_scoreboard, board_id(edit_key), where)
    if base != record.revision:
        raise _conflict(record.revision, base)
    rounds = list(_board(record).rounds)
    change(rounds)
    try:
        board = _board(record).with_rounds(rounds)
    except TallyError as e:
        raise refused(422, "bad_round", str(e)) from None
    changed = replace(
        record,
        rounds=tuple(board.rounds_json()),
        revision=record.revision + 1,
        updated_at=time.time(),
    )
    try:
        await store.update_scoreboard(changed, base)
    except RevisionConflict:
        now = await _find(state, store.get_scoreboard, record.id, where)
        raise _conflict(now.revision, base) from None
    except StoreError:
        raise refused(503, "store_unavailable", "the scoreboard cannot be saved now") from None
    return _edited(state, changed, board, edit_key)


@router.post("/api/scoreboards", status_code=201, response_model=EditedBoard)
async def create_board(
    body: Annotated[CreateBoard, body_of(examples.CREATE_BOARD)], state: State, where: Address
) -> EditedBoard:
    if not state.limits.boards.allow(where):
        raise refused(429, "rate_limited", "too many scoreboards from your address: try later")
    if body.preset not in PRESETS:
        raise refused(422, "bad_board", f"preset must be one of {', '.join(PRESETS)}")
    if len({n.casefold() for n in body.names}) != len(body.names):
        raise refused(422, "bad_board", "each player needs a name of their own")
    options = _options(body)
    placement = body.placement.model_dump() if body.placement else None
    try:
        board = Board.make(body.names, body.preset, dict(options), placement)
    except (RulesetError, TallyError) as e:
        raise refused(422, "bad_board", str(e)) from None
    edit_key, now = secrets.token_urlsafe(18), time.time()
    record = ScoreboardRecord(
        id=board_id(edit_key),
        view_key=secrets.token_urlsafe(18),
        names=tuple(body.names),
        preset=body.preset,
        options=dict(options),
        placement=placement,
        created_at=now,
        updated_at=now,
    )
    try:
        await _store(state).create_scoreboard(record)
    except StoreError:
        raise refused(503, "store_unavailable", "the scoreboard cannot be saved now") from None
    return _edited(state, record, board, edit_key)


class BoardOptions(TypedDict, total=False):
    """What a board changes of its preset's ruleset (only what its creator asked for)."""

    rounds: int
    sudden_death: bool


def _options(body: CreateBoard) -> BoardOptions:
    options: BoardOptions = {}
    if body.rounds is not None:
        options["rounds"] = body.rounds
    if body.sudden_death:
        options["sudden_death"] = True
    return options


@router.get("/api/scoreboards/{edit_key}", response_model=EditedBoard)
async def get_board(edit_key: BoardKey, state: State, where: Address) -> EditedBoard:
    record = await _find(state, _store(state).get_scoreboard, board_id(edit_key), where)
    return _edited(state, record, _board(record), edit_key)


@router.post("/api/scoreboards/{edit_key}/rounds", response_model=EditedBoard)
async def add_round(
    edit_key: BoardKey,
    body: Annotated[RoundIn, body_of(examples.ADD_ROUND)],
    state: State,
    where: Address,
) -> EditedBoard:
    def change(rounds: list[PaperRound]) -> None:
        if len(rounds) >= MAX_ROUNDS:
            raise refused(422, "bad_round", f"a board keeps at most {MAX_ROUNDS} rounds")
        rounds.append(body.paper())

    return await _edit(state, edit_key, body.base, where, change)


@router.put("/api/scoreboards/{edit_key}/rounds/{number}", response_model=EditedBoard)
async def edit_round(
    edit_key: BoardKey,
    number: RoundNumber,
    body: Annotated[RoundIn, body_of(examples.ADD_ROUND)],
    state: State,
    where: Address,
) -> EditedBoard:
    def change(rounds: list[PaperRound]) -> None:
        _check_number(number, rounds)
        rounds[number - 1] = body.paper()

    return await _edit(state, edit_key, body.base, where, change)


@router.delete("/api/scoreboards/{edit_key}/rounds/{number}", response_model=EditedBoard)
async def undo_round(
    edit_key: BoardKey,
    number: RoundNumber,
    base: Annotated[int, Query(ge=0, le=MAX_REVISION)],
    state: State,
    where: Address,
) -> EditedBoard:
    def change(rounds: list[PaperRound]) -> None:
        _check_number(number, rounds)
        del rounds[number - 1]

    return await _edit(state, edit_key, base, where, change)


@router.get("/api/scoreboards/view/{view_key}", response_model=SharedBoard)
async def view_board(view_key: BoardKey, state: State, where: Address) -> SharedBoard:
    record = await _find(state, _store(state).find_scoreboard, view_key, where)
    return _shared(state, record, _board(record))


@router.get("/api/scoreboards/view/{view_key}/csv")
async def board_csv(view_key: BoardKey, state: State, where: Address) -> Response:
    record = await _find(state, _store(state).find_scoreboard, view_key, where)
    return Response(
        _board(record).csv_text(),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": 'attachment; filename="scoreboard.csv"'},
    )


def _check_number(number: int, rounds: list[PaperRound]) -> None:
    if number > len(rounds):
        raise refused(404, "no_round", f"the board has {len(rounds)} rounds, not {number}")


def _conflict(revision: int, base: int) -> HTTPException:
    message = (
        f"the board changed on another device (it is at revision {revision}, this edit was "
        f"made on {base}): nothing was changed"
    )
    return refused(409, "revision_conflict", message, revision=revision)
