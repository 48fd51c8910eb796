"""Replays over HTTP: a finished match step by step, for its players and whoever they share it with.

A match is named ``<table_id>/<match_no>`` (matches count from 1 at each table).  Who may watch:

- a player of the match: ``Authorization: Bearer <their table token>``, or signed in (the
  session cookie) to an account that holds the player id of one of its seats;
- anyone holding the match's **replay key**: a player asks for it (``POST .../share``, or
  ``POST /api/tables/{code}/share`` from the match-end screen) and passes the link on.  The key
  is signed with the server's secret and names one match; a forged or altered key is refused.

Nothing is served for a match that is still being played: not its steps (face up or through
any seat's eyes), not its file, not a link.  The replay is built from the table's action log
(:mod:`facedown.records.replay`), the same log the server rebuilds tables from.  Requests count
against the address's replay rate, and lookups of table ids that name nothing against its lookups.

A replay keeps a copy of the table at every step: building one is the engine playing the whole
match again, and it holds memory in proportion to the match's length.  So it is built off the
event loop (one builder thread: the tables' actions go on meanwhile, and one replay at a time is
being built), a match of more than :data:`MAX_STEPS_BUILT` steps is refused (413
``replay_too_large``) before anything is built, and the built replays kept are bounded by their
estimated bytes (:data:`CACHE_BYTES`), not by their number.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, TypedDict, cast

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from itsdangerous import BadSignature, URLSafeSerializer
from pydantic import BaseModel, Field

from ...engine import Reveal, Ruleset, SeenEvent, View
from ...records.matches import Logged, split_log
from ...records.replay import Replay, ReplayError, export
from ...store import TableRecord
from ..base.errors import TableError
from ..base.text import CODE_PATTERN
from ..edge.state import ServerState
from ..modes import ratings
from ..modes.modes import settings_of
from ..modes.ranked_mode import forfeits
from ..transport.protocol import ActionJson
from .account_routes import signed_in
from .deps import BEARER, refused

_FIND_STATUS = {
    "table_unavailable": 503,
    "cluster_unavailable": 503,
    "rate_limited": 429,
    "table_closed": 410,
}
MAX_STEPS = 200  # steps in one page
# The longest match the server builds a replay of, in steps (the deal and each action): each
# step keeps a copy of the table, about 1.8 to 2.4 KB (2 to 8 seats: benchmarks/replay_build.py),
# so a replay of 20,000 steps keeps about 50 MB.
MAX_STEPS_BUILT = 20_000
CACHE_BYTES = 128 * 2**20  # the finished replays kept built (they never change), by their size
TABLE_ID = r"^[A-Za-z0-9]{1,64}$"
KEY_PATTERN = r"^[A-Za-z0-9_.\-]{1,200}$"

TableId = Annotated[str, PathParam(max_length=64, pattern=TABLE_ID)]
MatchNo = Annotated[int, PathParam(ge=1, le=1_000_000)]
KeyParam = Annotated[str | None, Query(max_length=200, pattern=KEY_PATTERN)]


class ReplayRound(BaseModel):
    round: int
    step: int = Field(description="the step of the round's deal")


class ReplayInfo(BaseModel):
    """A finished match: who played, how many steps, where each round starts."""

    match: str = Field(description="the match id, <table_id>/<match_no>")
    table_id: str
    match_no: int
    preset: str
    players: int
    names: list[str] = Field(description="each seat's display name")
    steps: int = Field(description="steps 0 (the deal) to steps - 1 (the last action)")
    rounds: list[ReplayRound]
    winners: list[int]
    results: list[Reveal] = Field(description="every round's reveal, in order")
    exportable: bool = Field(description="the match's file can be downloaded (export)")


class ReplayStep(BaseModel):
    """One step: face up (seat null: hands, held, draw_top, and events with every card any
    player was shown) or through one seat's eyes (view, legal, sets, and the events as that seat
    was sent them)."""

    step: int
    round: int
    action: ActionJson | None = Field(description="the action that led here (null: the deal)")
    text: str | None = Field(description="that action in its text form")
    seat: int | None
    view: View
    events: list[SeenEvent]
    hands: list[list[str | None]] | None = None
    held: str | None = None
    draw_top: str | None = None
    legal: list[ActionJson] | None = None
    sets: int | None = None


class ReplayPage(BaseModel):
    match: str
    seat: int | None
    start: int
    steps: list[ReplayStep]


class ShareLink(BaseModel):
    """The link that lets anyone watch one finished match."""

    match: str
    key: str = Field(description="the signed replay key (in the link)")
    url: str


class ReplayKeys:
    """Signed keys naming one match each (itsdangerous, the server's secret)."""

    def __init__(self, secret: str) -> None:
        self._signer = URLSafeSerializer(secret, salt="facedown-replay")

    def key(self, table_id: str, match_no: int) -> str:
        return str(self._signer.dumps([table_id, match_no]))

    def read(self, key: str) -> tuple[str, int] | None:
        """The match a well-signed key names; None for anything else."""
        try:
            data = self._signer.loads(key)
        except BadSignature:
            return None
        if (
            isinstance(data, list)
            and len(data) == 2
            and isinstance(data[0], str)
            and type(data[1]) is int
        ):
            return data[0], data[1]
        return None


class Replays:
    """Finds, checks and builds the replays the routes serve."""

    def __init__(self, state: ServerState, cache_bytes: int = CACHE_BYTES) -> None:
        self.state = state
        self.keys = ReplayKeys(state.settings.resolved_secret())
        self.cache_bytes = cache_bytes
        self.cached_bytes = 0  # the estimated bytes of the replays in _built
        self._built: OrderedDict[tuple[str, int], tuple[Replay, int]] = OrderedDict()
        # Builds under way: a second request for the same match waits for the first build.
        self._building: dict[tuple[str, int], asyncio.Future[Replay]] = {}  # the builds under way
        self._builder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-build")

    def address(self, request: Request) -> str:
        address = self.state.address(
            request.client.host if request.client else None, request.headers
        )
        if not self.state.limits.replays.allow(address):
            raise refused(429, "rate_limited", "too many replay requests: try again later")
        return address

    async def record(self, table_id: str, address: str) -> TableRecord:
        lookups = self.state.limits.lookups
        if lookups.exhausted(address):
            raise refused(429, "rate_limited", "too many unknown tables from your address")
        record = await self.state.lobby().store.get_table(table_id)
        if record is None:
            lookups.charge(address)
            raise refused(404, "unknown_table", f"there is no table {table_id}")
        return record

    async def check_player(
        self, record: TableRecord, request: Request, authorization: str | None
    ) -> None:
        """A player of the table: by their table token, or signed in to an account that holds
        one of the table's seated player ids (a history link opened on another device)."""
        seated = {s.player_id for s in record.seats if s.kind == "human" and s.player_id}
        guest = await self.state.guest_from(authorization, record.id)
        if guest is not None:
            held = {guest.player_id}
        else:
            account = await signed_in(self.state, request)
            if account is None:
                raise refused(
                    401,
                    "bad_token",
                    "send your table token (Authorization: Bearer), sign in, or use a replay key",
                )
            held = set(await self.state.lobby().store.user_players(account.user.id))
        if seated.isdisjoint(held):
            raise refused(403, "not_a_player", "only the players of a match can open it")

    async def replay(self, record: TableRecord, match_no: int) -> Replay:
        """The finished match ``match_no`` of the table; refused while it is being played, and
        when it is longer than the server builds."""
        key = (record.id, match_no)
        cached = self._built.get(key)
        if cached is not None:
            self._built.move_to_end(key)
            return cached[0]
        task = self._building.get(key)
        if task is None:  # the first request for it: a build of its own, which a request that
            # goes away does not stop (the others waiting for it, and the cache, get it)
            task = asyncio.ensure_future(self._build(record, match_no))
            self._building[key] = task
            task.add_done_callback(lambda done: self._built_or_refused(key, done))
        return await asyncio.shield(task)

    async def _build(self, record: TableRecord, match_no: int) -> Replay:
        entries = await self.state.lobby().store.log(record.id)
        loop = asyncio.get_running_loop()
        built = await loop.run_in_executor(self._builder, build, record, entries, match_no)
        self._keep((record.id, match_no), built)
        return built

    def _built_or_refused(self, key: tuple[str, int], done: asyncio.Future[Replay]) -> None:
        self._building.pop(key, None)
        if not done.cancelled():
            done.exception()  # a refusal nobody waits for any more is not an error to log

    def _keep(self, key: tuple[str, int], built: Replay) -> None:
        """Cache a built replay; the least recently used go while the cache is over its bytes
        (one larger than the whole cache is not kept)."""
        size = replay_bytes(built)
        if size > self.cache_bytes:
            return
        self._built[key] = (built, size)
        self.cached_bytes += size
        while self.cached_bytes > self.cache_bytes:
            _, (_, dropped) = self._built.popitem(last=False)
            self.cached_bytes -= dropped

    async def open(
        self,
        request: Request,
        table_id: str,
        match_no: int,
        authorization: str | None,
        key: str | None,
    ) -> tuple[TableRecord, Replay]:
        """The replay, for a player of the match or the holder of its key."""
        address = self.address(request)
        if key is not None and self.keys.read(key) != (table_id, match_no):
            raise refused(403, "bad_key", "this replay key is not valid for this match")
        record = await self.record(table_id, address)
        if key is None:
            await self.check_player(record, request, authorization)
        return record, await self.replay(record, match_no)

    def link(self, table_id: str, match_no: int) -> ShareLink:
        key = self.keys.key(table_id, match_no)
        url = f"{self.state.settings.public_url}/#/replay/shared/{key}"
        return ShareLink(match=f"{table_id}/{match_no}", key=key, url=url)


# A step's copy of the table: its fixed part (the Game object, its lists and numbers) and a
# part per card and per seat, in bytes (CPython 3.11, 64 bits).  An estimate above what the
# build keeps: benchmarks/replay_build.py prints both (1.2 to 1.6 times the kept bytes).
STEP_BYTES = 1400
CARD_BYTES = 10
SEAT_BYTES = 250


def replay_bytes(replay: Replay) -> int:
    """The estimated memory of a built replay: its steps times the size of one step's copy."""
    cards = len(replay.rules.deck_cards)
    per_step = STEP_BYTES + CARD_BYTES * cards + SEAT_BYTES * replay.players
    return len(replay) * per_step


def build(record: TableRecord, entries: Sequence[Logged], match_no: int) -> Replay:
    """The replay of a table's finished match ``match_no``, from the table's log (run in the
    builder thread: the engine plays the match again).  Raises the refusals the routes send."""
    names = [s.name for s in record.seats]
    try:
        matches = split_log(record.id, Ruleset.from_json(record.rules), record.seed, entries, names)
    except ValueError as e:
        raise refused(409, "unreadable", f"the table's log cannot be read: {e}") from None
    found = [m for m in matches if m.match_no == match_no]
    if not found:
        raise refused(404, "unknown_match", f"the table has no match {match_no} (yet)")
    match = found[0]
    steps = len(match.actions) + 1
    if steps > MAX_STEPS_BUILT:
        raise refused(
            413,
            "replay_too_large",
            f"this match has {steps} steps: the server builds replays of at most {MAX_STEPS_BUILT}",
        )
    try:
        built = Replay(match)
    except ReplayError as e:
        raise refused(409, "unreadable", str(e)) from None
    if not built.finished:
        raise refused(
            409,
            "match_running",
            "this match is still being played: its replay opens when it is over",
        )
    return built


def winners_of(replay: Replay, record: TableRecord) -> list[int]:
    """The match's winners; at a ranked table, never a seat that forfeited (placed last), as
    :func:`..modes.ratings.outcome` decides them."""
    if not replay.finished:
        return list(replay.winners)
    gone = forfeits(settings_of(record))
    return list(ratings.outcome(replay.places, replay.winners, gone).winners)


def info(replay: Replay, record: TableRecord) -> ReplayInfo:
    match = replay.match
    return ReplayInfo(
        match=match.match_id,
        table_id=match.table_id,
        match_no=match.match_no,
        preset=replay.rules.name,
        players=replay.players,
        names=list(match.names),
        steps=len(replay),
        rounds=[ReplayRound(round=r, step=s) for r, s in sorted(replay.rounds.items())],
        winners=winners_of(replay, record),
        results=list(replay.results()),
        exportable=match.exportable,
    )


class PageJson(TypedDict):
    """A page of steps as it is sent (:class:`ReplayPage` documents it): each step in the
    engine's JSON form (``ReplayStep.to_json``), empty event fields left out."""

    match: str
    seat: int | None
    start: int
    steps: list[dict[str, Any]]


def page(
    replay: Replay, seat: int | None, start: int, count: int, knowledge: bool = False
) -> PageJson:
    if seat is not None and not 0 <= seat < replay.players:
        raise refused(422, "bad_seat", f"there is no seat {seat} in this match")
    if start >= len(replay):
        raise refused(422, "bad_step", f"the match has steps 0 to {len(replay) - 1}")
    end = min(len(replay), start + count)
    remember = True if knowledge else None  # None: as the table showed it live
    steps = [replay.step(seat, n, knowledge=remember).to_json() for n in range(start, end)]
    return {"match": replay.match.match_id, "seat": seat, "start": start, "steps": steps}


router = APIRouter()


def replays_of(request: Request) -> Replays:
    """The app's :class:`Replays` (``app.state.replays``: its cache, for operators and tests)."""
    return cast(Replays, request.app.state.replays)


TheReplays = Annotated[Replays, Depends(replays_of)]


@router.get("/api/replays/shared/{key}", response_model=ReplayInfo)
async def shared(
    key: Annotated[str, PathParam(max_length=200, pattern=KEY_PATTERN)],
    request: Request,
    replays: TheReplays,
) -> ReplayInfo:
    """The match a replay key names (then ask for its steps with ``?key=``)."""
    named = replays.keys.read(key)
    if named is None:
        replays.address(request)
        raise refused(403, "bad_key", "this replay key is not valid")
    record, replay = await replays.open(request, named[0], named[1], None, key)
    return info(replay, record)


@router.get("/api/replays/{table_id}/{match_no}", response_model=ReplayInfo)
async def replay_info(
    table_id: TableId,
    match_no: MatchNo,
    request: Request,
    replays: TheReplays,
    key: KeyParam = None,
    authorization: str | None = BEARER,
) -> ReplayInfo:
    record, replay = await replays.open(request, table_id, match_no, authorization, key)
    return info(replay, record)


@router.get("/api/replays/{table_id}/{match_no}/steps", response_model=ReplayPage)
async def replay_steps(
    table_id: TableId,
    match_no: MatchNo,
    request: Request,
    replays: TheReplays,
    seat: Annotated[int | None, Query(ge=0, le=16, description="null: face up")] = None,
    start: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    count: Annotated[int, Query(ge=1, le=MAX_STEPS)] = 50,
    knowledge: Annotated[
        bool, Query(description="with seat: every card the seat knew (view.knowledge)")
    ] = False,
    key: KeyParam = None,
    authorization: str | None = BEARER,
) -> JSONResponse:
    """Steps ``start`` to ``start + count - 1``, face up or through ``seat``'s eyes."""
    _, replay = await replays.open(request, table_id, match_no, authorization, key)
    # Sent as the engine writes it (empty event fields left out), as the live frames are.
    return JSONResponse(page(replay, seat, start, count, knowledge))


@router.get("/api/replays/{table_id}/{match_no}/export")
async def replay_export(
    table_id: TableId,
    match_no: MatchNo,
    request: Request,
    replays: TheReplays,
    key: KeyParam = None,
    authorization: str | None = BEARER,
) -> JSONResponse:
    """The match as a file for ``facedown replay FILE``."""
    _, replay = await replays.open(request, table_id, match_no, authorization, key)
    try:
        data = export(replay.match)
    except ReplayError as e:
        raise refused(409, "not_exportable", str(e)) from None
    name = f"facedown-{table_id[:12]}-{match_no}.json"
    return JSONResponse(data, headers={"content-disposition": f'attachment; filename="{name}"'})


@router.post("/api/replays/{table_id}/{match_no}/share", response_model=ShareLink)
async def share(
    table_id: TableId,
    match_no: MatchNo,
    request: Request,
    replays: TheReplays,
    authorization: str | None = BEARER,
) -> ShareLink:
    """A link anyone can watch the match with (players only)."""
    await replays.open(request, table_id, match_no, authorization, None)
    return replays.link(table_id, match_no)


@router.post("/api/tables/{code}/share", response_model=ShareLink)
async def share_table_match(
    code: Annotated[str, PathParam(max_length=16, pattern=CODE_PATTERN)],
    request: Request,
    replays: TheReplays,
    match: Annotated[int | None, Query(ge=1, le=1_000_000)] = None,
    authorization: str | None = BEARER,
) -> ShareLink:
    """The share link of a table's match (default: its latest), for its players."""
    state = replays.state
    address = replays.address(request)
    try:
        table = await state.find(code, address)
    except TableError as e:
        raise refused(_FIND_STATUS.get(e.code, 404), e.code, e.message) from None
    try:
        current = (await state.table_info(table))[1]
    except TableError as e:
        raise refused(_FIND_STATUS.get(e.code, 503), e.code, e.message) from None
    table_id, match_no = table.id, match or current
    if match_no < 1:
        raise refused(409, "match_running", "no match has been played at this table yet")
    await replays.open(request, table_id, match_no, authorization, None)
    return replays.link(table_id, match_no)
