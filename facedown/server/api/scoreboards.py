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
from typing import Annotated, Any, cast

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from ...engine import MAX_PLAYERS, MIN_PLAYERS, PRESETS, PaperRound, RulesetError, TallyError
from ...records.paperboard import MAX_ROUNDS, Board
from ...store import RevisionConflict, ScoreboardRecord, ScoreboardStore, StoreError
from ..base import examples
from ..base.examples import body as body_of
from ..base.text import Name
from ..edge.state import ServerState

MAX_REVISION = 2**31 - 1
BoardKey = Annotated[str, PathParam(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
RoundNumber = Annotated[int, PathParam(ge=1, le=MAX_ROUNDS)]
HandTotal = Annotated[int, Field(ge=-999, le=999)]
PlacePoints = Annotated[int, Field(ge=-1000, le=1000)]


class PlacementIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    points: list[PlacePoints] = Field(
        min_length=MIN_PLAYERS, max_length=MAX_PLAYERS, description="points for 1st, 2nd, ..."
    )
    rounds: int = Field(ge=1, le=100, description="rounds in the match")


class CreateBoard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: list[Name] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    preset: str = Field("cabo", max_length=32, description="boyo, cabo, kivo or kaboom scoring")
    rounds: int | None = Field(None, ge=1, le=100, description="rounds, if not the preset's")
    sudden_death: bool = Field(False, description="one more round when tied after the rounds")
    placement: PlacementIn | None = Field(None, description="score by placement points instead")


class RoundIn(BaseModel):
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


def _refused(status: int, code: str, message: str, **more: Any) -> HTTPException:
    return HTTPException(status, {"code": code, "message": message, **more})


def _board(record: ScoreboardRecord) -> Board:
    return Board.make(record.names, record.preset, record.options, record.placement, record.rounds)


def scoreboard_routes(app: FastAPI, state: ServerState) -> None:  # noqa: C901 - flat: one small nested handler per route
    """Create, read, edit and share scoreboards; the CSV export."""
    limits = state.limits

    def address(request: Request) -> str:
        return state.address(request.client.host if request.client else None, request.headers)

    def store() -> ScoreboardStore:
        used = state.lobby().store
        if not hasattr(used, "get_scoreboard"):  # a store that keeps tables only
            raise _refused(503, "store_unavailable", "this server keeps no scoreboards")
        return cast(ScoreboardStore, used)

    def links(edit_key: str | None, view_key: str) -> dict[str, str]:
        base = state.settings.public_url
        out = {"share_link": f"{base}/scoreboard/view/{view_key}", "view_key": view_key}
        if edit_key is not None:
            out["link"] = f"{base}/scoreboard/{edit_key}"
        return out

    def answer(record: ScoreboardRecord, board: Board, edit_key: str | None) -> dict[str, Any]:
        return {
            "revision": record.revision,
            **links(edit_key, record.view_key),
            "board": board.to_json(),
        }

    async def find(
        get: Callable[[str], Awaitable[ScoreboardRecord | None]], key: str, request: Request
    ) -> ScoreboardRecord:
        where = address(request)
        if limits.lookups.exhausted(where):
            raise _refused(429, "rate_limited", "too many unknown board keys from your address")
        try:
            record = await get(key)
        except StoreError:
            raise _refused(503, "store_unavailable", "the scoreboards cannot be read now") from None
        if record is None:
            limits.lookups.charge(where)
            raise _refused(404, "unknown_board", "no scoreboard has this link")
        return record

    async def edit(
        edit_key: str, base: int, request: Request, change: Callable[[list[PaperRound]], None]
    ) -> dict[str, Any]:
        if not limits.board_edits.allow(address(request)):
            raise _refused(429, "rate_limited", "too many scoreboard edits from your address")
        record = await find(store().get_scoreboard, board_id(edit_key), request)
        if base != record.revision:
            raise _conflict(record.revision, base)
        rounds = list(_board(record).rounds)
        change(rounds)
        try:
            board = _board(record).with_rounds(rounds)
        except TallyError as e:
            raise _refused(422, "bad_round", str(e)) from None
        changed = ScoreboardRecord(
            id=record.id,
            view_key=record.view_key,
            names=record.names,
            preset=record.preset,
            options=record.options,
            placement=record.placement,
            rounds=tuple(board.rounds_json()),
            revision=record.revision + 1,
            created_at=record.created_at,
            updated_at=time.time(),
        )
        try:
            await store().update_scoreboard(changed, base)
        except RevisionConflict:
            now = await find(store().get_scoreboard, record.id, request)
            raise _conflict(now.revision, base) from None
        except StoreError:
            raise _refused(503, "store_unavailable", "the scoreboard cannot be saved now") from None
        return answer(changed, board, edit_key)

    @app.post("/api/scoreboards", status_code=201)
    async def create_board(
        body: Annotated[CreateBoard, body_of(examples.CREATE_BOARD)], request: Request
    ) -> dict[str, Any]:
        if not limits.boards.allow(address(request)):
            raise _refused(429, "rate_limited", "too many scoreboards from your address: try later")
        if body.preset not in PRESETS:
            raise _refused(422, "bad_board", f"preset must be one of {', '.join(PRESETS)}")
        if len({n.casefold() for n in body.names}) != len(body.names):
            raise _refused(422, "bad_board", "each player needs a name of their own")
        options: dict[str, Any] = {}
        if body.rounds is not None:
            options["rounds"] = body.rounds
        if body.sudden_death:
            options["sudden_death"] = True
        placement = body.placement.model_dump() if body.placement else None
        try:
            board = Board.make(body.names, body.preset, options, placement)
        except (RulesetError, TallyError) as e:
            raise _refused(422, "bad_board", str(e)) from None
        edit_key, now = secrets.token_urlsafe(18), time.time()
        record = ScoreboardRecord(
            id=board_id(edit_key),
            view_key=secrets.token_urlsafe(18),
            names=tuple(body.names),
            preset=body.preset,
            options=options,
            placement=placement,
            created_at=now,
            updated_at=now,
        )
        try:
            await store().create_scoreboard(record)
        except StoreError:
            raise _refused(503, "store_unavailable", "the scoreboard cannot be saved now") from None
        return answer(record, board, edit_key)

    @app.get("/api/scoreboards/{edit_key}")
    async def get_board(edit_key: BoardKey, request: Request) -> dict[str, Any]:
        record = await find(store().get_scoreboard, board_id(edit_key), request)
        return answer(record, _board(record), edit_key)

    @app.post("/api/scoreboards/{edit_key}/rounds")
    async def add_round(
        edit_key: BoardKey, body: Annotated[RoundIn, body_of(examples.ADD_ROUND)], request: Request
    ) -> dict[str, Any]:
        def change(rounds: list[PaperRound]) -> None:
            if len(rounds) >= MAX_ROUNDS:
                raise _refused(422, "bad_round", f"a board keeps at most {MAX_ROUNDS} rounds")
            rounds.append(body.paper())

        return await edit(edit_key, body.base, request, change)

    @app.put("/api/scoreboards/{edit_key}/rounds/{number}")
    async def edit_round(
        edit_key: BoardKey,
        number: RoundNumber,
        body: Annotated[RoundIn, body_of(examples.ADD_ROUND)],
        request: Request,
    ) -> dict[str, Any]:
        def change(rounds: list[PaperRound]) -> None:
            _check_number(number, rounds)
            rounds[number - 1] = body.paper()

        return await edit(edit_key, body.base, request, change)

    @app.delete("/api/scoreboards/{edit_key}/rounds/{number}")
    async def undo_round(
        edit_key: BoardKey,
        number: RoundNumber,
        request: Request,
        base: Annotated[int, Query(ge=0, le=MAX_REVISION)],
    ) -> dict[str, Any]:
        def change(rounds: list[PaperRound]) -> None:
            _check_number(number, rounds)
            del rounds[number - 1]

        return await edit(edit_key, base, request, change)

    @app.get("/api/scoreboards/view/{view_key}")
    async def view_board(view_key: BoardKey, request: Request) -> dict[str, Any]:
        record = await find(store().find_scoreboard, view_key, request)
        return answer(record, _board(record), None)

    @app.get("/api/scoreboards/view/{view_key}/csv")
    async def board_csv(view_key: BoardKey, request: Request) -> Response:
        record = await find(store().find_scoreboard, view_key, request)
        return Response(
            _board(record).csv_text(),
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="scoreboard.csv"'},
        )


def _check_number(number: int, rounds: list[PaperRound]) -> None:
    if number > len(rounds):
        raise _refused(404, "no_round", f"the board has {len(rounds)} rounds, not {number}")


def _conflict(revision: int, base: int) -> HTTPException:
    message = (
        f"the board changed on another device (it is at revision {revision}, this edit was "
        f"made on {base}): nothing was changed"
    )
    return _refused(409, "revision_conflict", message, revision=revision)
