"""The tables' HTTP API: presets and modes, creating, looking up and joining tables, seat tokens.

``POST /api/tables`` opens a table with its creator in seat 0; ``POST /api/tables/{code}/join``
seats another player; both answer a seat token (:class:`Seated`).  A signed-in account sits
with its own player id, a guest with the one of their bearer token (or a new one).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from ...engine import PRESETS
from ...engine.presets import MODES
from ...records.matches import TABLE_SEED_BITS
from ...store import StoreError
from ..accounts.accounts import SignedIn
from ..base import examples
from ..base.bodies import RequestBody
from ..base.errors import UNPROCESSABLE, TableError
from ..base.examples import body as body_of
from ..base.limits import MAX_PLAYERS, MAX_SEAT, MIN_PLAYERS, BotLevel
from ..base.testhooks import StackedDealSpec, refuse_test_hooks
from ..base.text import CODE_PATTERN, Name
from ..edge.state import AnyTable, ServerState
from ..modes.modes import TURN_BASED, TableSettings
from ..modes.turnbased import DEFAULT_DEADLINE, MOVE_DEADLINES, turn_based_settings
from ..transport.protocol import TableInfo
from .account_routes import SIGNED_OUT_HTTP, signed_in
from .deps import BEARER, Address, State, refused

T = TypeVar("T")

TableCode = Annotated[str, PathParam(max_length=16, pattern=CODE_PATTERN)]

router = APIRouter()


class CreateTable(RequestBody):
    preset: str = Field("cabo", max_length=32, description="boyo, cabo, kivo or kaboom")
    # Free-form on purpose: the engine's ruleset checks these fields (RulesetError: 400).
    options: dict[str, Any] = Field(
        default_factory=dict, max_length=64, description="ruleset fields to change"
    )
    seats: int = Field(4, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    name: Name = Field("Host", description="the host's display name")
    peek_seconds: float = Field(20, ge=3, le=600, allow_inf_nan=False)
    turn_seconds: float = Field(60, ge=5, le=86400 * 3, allow_inf_nan=False)
    bots: list[BotLevel | None] = Field(
        default_factory=list,
        max_length=MAX_SEAT,
        description="seats 1, 2, ... in order: a bot level, or null to keep the seat open for "
        "a person (seats after the list stay open)",
    )
    mode: Literal["turn_based"] | None = Field(
        None,
        description="turn_based: a table that lives for days (docs/turn-based.md); "
        "absent: a Live Private table",
    )
    move_deadline: int | None = Field(
        None,
        description="turn-based tables: seconds a player has for each move, one of "
        + ", ".join(str(d) for d in MOVE_DEADLINES)
        + f" (default {DEFAULT_DEADLINE}); peek_seconds and turn_seconds are then ignored",
    )
    seed: int | None = Field(
        None, ge=0, lt=2**TABLE_SEED_BITS, description="test hooks only: the table's secret seed"
    )
    deal: StackedDealSpec | None = Field(
        None, description="test hooks only: the first deal of the first match"
    )


class JoinTable(RequestBody):
    name: Name = Field(description="your display name")


class Session(BaseModel):
    token: str = Field(description="the new session token: every earlier one no longer works")
    expires: float = Field(description="the unix time this token stops working")


class Seated(BaseModel):
    code: str
    link: str
    token: str = Field(description="session token: keep it to rejoin from this or another device")
    seat: int | None
    table: TableInfo


# A ruleset and a mode in the engine's JSON form (engine.Ruleset.to_json, engine.presets.Mode):
# the engine owns their fields, and the web client reads them as docs/rulesets.md describes.
RulesJson = dict[str, Any]


@router.get("/api/presets")
async def presets() -> dict[str, RulesJson]:
    return {name: rules.to_json() for name, rules in PRESETS.items()}


@router.get("/api/modes")
async def modes() -> dict[str, dict[str, RulesJson]]:
    """Each preset's modes (the engine's table): the ruleset fields a mode sets, and the
    match options (``rounds``, ``score_limit``) its host may choose."""
    return {
        preset: {name: mode.to_json() for name, mode in table.items()}
        for preset, table in MODES.items()
    }


@router.post("/api/tables", response_model=Seated)
async def create_table(
    body: Annotated[CreateTable, body_of(examples.CREATE_TABLE)],
    request: Request,
    state: State,
    address: Address,
    authorization: str | None = BEARER,
) -> Seated:
    if not state.limits.creates.allow(address):
        raise _rate_limited("too many tables created from your address: try again later")
    made = False
    try:
        seated = await _create_table(state, body, request, authorization)
        made = True
        return seated
    finally:
        if not made:  # a refused creation does not count against the address
            state.limits.creates.refund(address)


def table_settings(body: CreateTable) -> TableSettings:
    """A new table's settings, from the request: its mode and timers."""
    if body.mode == TURN_BASED:
        return turn_based_settings(body.move_deadline)
    return {"peek_seconds": body.peek_seconds, "turn_seconds": body.turn_seconds}


async def _create_table(
    state: ServerState, body: CreateTable, request: Request, authorization: str | None
) -> Seated:
    refuse_test_hooks(state.settings.test_hooks, body.seed, body.deal)
    account = await signed_in(state, request)
    if account is not None:  # a signed-in player sits with the account's player id
        player = account.user.player_id
    else:
        guest = await state.guest_from(authorization)
        player = guest.player_id if guest else secrets.token_hex(8)
    try:
        table = await state.lobby().create(
            player,
            body.name,
            body.preset,
            body.options,
            body.seats,
            table_settings(body),
            body.bots,
            seed=body.seed,
            deal=body.deal.model_dump() if body.deal is not None else None,
        )
    except TableError as e:
        raise refused(422 if e.code in UNPROCESSABLE else 400, e.code, e.message) from None
    code = table.record.code
    token = _seat_token(state, account, body.name, player, table.record.id)
    info = TableInfo.model_validate(table.table_info())
    return Seated(code=code, link=state.link(code), token=token, seat=0, table=info)


@router.get("/api/tables/{code}", response_model=TableInfo)
async def get_table(code: TableCode, state: State, address: Address) -> TableInfo:
    table = await _at(state.find(code, address))
    return (await _at(state.table_info(table)))[0]


@router.post("/api/tables/{code}/join", response_model=Seated)
async def join_table(
    code: TableCode,
    body: Annotated[JoinTable, body_of(examples.JOIN_TABLE)],
    request: Request,
    state: State,
    address: Address,
    authorization: str | None = BEARER,
) -> Seated:
    if not state.limits.joins.allow(address):
        raise _rate_limited("too many joins from your address: try again later")
    table = await _at(state.find(code, address))
    account, player = await _player_at(state, table, request, authorization)
    try:
        seat, info = await state.join(table, player, body.name)
    except TableError as e:
        raise refused(_FIND_STATUS.get(e.code, 409), e.code, e.message) from None
    except StoreError:
        message = "the seat could not be saved: try again"
        raise refused(503, "store_unavailable", message) from None
    c = table.code
    token = _seat_token(state, account, body.name, player, table.id)
    return Seated(code=c, link=state.link(c), token=token, seat=seat, table=info)


@router.get("/api/tables/{code}/seat", response_model=Seated)
async def my_seat(code: TableCode, request: Request, state: State, address: Address) -> Seated:
    """The signed-in account's seat at this table, with a fresh seat token: how a second
    device of the account plays the seat (404 ``no_seat`` when the account has none)."""
    account = await signed_in(state, request)
    if account is None:
        raise SIGNED_OUT_HTTP()
    table = await _at(state.find(code, address))
    ids = await state.accounts_().player_ids(account)
    held = next((p for p in ids if table.seat_of(p) is not None), None)
    if held is None:
        raise refused(404, "no_seat", "your account holds no seat at this table")
    seat = table.seat_of(held)
    name = next(s.name for s in table.record.seats if s.seat == seat)
    token = state.accounts_().seat_token(account, name, held, table.record.id)
    c = table.record.code
    info, _ = await _at(state.table_info(table))  # from its owner, in a cluster
    return Seated(code=c, link=state.link(c), token=token, seat=seat, table=info)


@router.post("/api/session/rotate", response_model=Session)
async def rotate_session(
    state: State, address: Address, authorization: str | None = BEARER
) -> Session:
    """A fresh session token for the one in ``Authorization: Bearer``, which stops working
    (as does every token issued to that guest before), say after a link was shared.  An
    account holder's token is renewed only while the session that obtained it lives.  Each
    is a write to the store: rotations are limited per address, valid or not (429)."""
    if not state.limits.rotations.allow(address):
        raise _rate_limited("too many token rotations from your address: try again later")
    tokens = state.tokens
    presented = tokens.check(state.bearer(authorization))
    held = presented and await state.guest_from(authorization, presented.table)
    rotated = tokens.rotation(state.bearer(authorization)) if held else None
    if rotated is None:
        message = "send a valid session token as Authorization: Bearer <token>"
        raise refused(401, "bad_token", message)
    guest, token = rotated
    issued_ms = int(guest.issued * 1000)
    try:  # stored before it is handed out: the rotation outlives a restart
        await state.lobby().store.set_token_floor(guest.player_id, issued_ms)
    except StoreError:
        message = "the rotation could not be stored: try again (your token still works)"
        raise refused(503, "store_unavailable", message) from None
    tokens.refuse_before(guest.player_id, issued_ms)
    return Session(token=token, expires=guest.expires(tokens.lifetime))


async def _player_at(
    state: ServerState, table: AnyTable, request: Request, authorization: str | None
) -> tuple[SignedIn | None, str]:
    """Who sits down: the account (with the id it already holds a seat with, if any),
    else the guest of the bearer token, else a new guest."""
    account = await signed_in(state, request)
    if account is None:
        return None, await _guest_at(state, table, authorization)
    ids = await state.accounts_().player_ids(account)
    return account, next((p for p in ids if table.seat_of(p) is not None), ids[0])


async def _guest_at(state: ServerState, table: AnyTable, authorization: str | None) -> str:
    """The guest's player id for a join: the bearer's, when their token may take a new seat
    or names their seat at this table (a guest's id an account has taken in: only its old
    seats); else a new guest's.  A token bound to a session is not a guest's identity."""
    guest = await state.guest_from(authorization, table.id)
    if guest is not None and not guest.bound:
        if table.seat_of(guest.player_id) is not None:
            return guest.player_id
        if await state.guest_from(authorization) is not None:
            return guest.player_id
    return secrets.token_hex(8)


def _seat_token(
    state: ServerState, account: SignedIn | None, name: str, player: str, table_id: str
) -> str:
    """A guest's seat token, or an account holder's bound to their session and the table."""
    if account is not None:
        return state.accounts_().seat_token(account, name, player, table_id)
    return state.tokens.issue(name, player)[1]


async def _at(work: Awaitable[T]) -> T:
    """``work``'s result; a refusal as the HTTP error it is."""
    try:
        return await work
    except TableError as e:
        raise refused(_FIND_STATUS.get(e.code, 404), e.code, e.message) from None


_FIND_STATUS = {
    "table_unavailable": 503,
    "cluster_unavailable": 503,
    "store_unavailable": 503,
    "rate_limited": 429,
    "table_closed": 410,
}


def _rate_limited(message: str) -> HTTPException:
    return refused(429, "rate_limited", message)
