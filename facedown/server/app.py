"""The ASGI app: the HTTP API for the lobby and tables, and the WebSocket for play."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from fastapi import FastAPI, Header, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots import Bot, make_bot
from ..engine import PRESETS
from ..engine.presets import MODES
from ..records.matches import TABLE_SEED_BITS
from ..store import Store, StoreError
from .accounts.accounts import Accounts, SignedIn
from .accounts.auth import Tokens
from .accounts.history import History
from .accounts.mail import Mailer
from .accounts.notify import Notifier
from .accounts.passwords import Passwords
from .accounts.postbox import Postbox
from .api.account_routes import SIGNED_OUT_HTTP, account_routes, signed_in
from .api.games import games_routes
from .api.mail_routes import mail_routes
from .api.ops import ops_routes
from .api.passplay import passplay_routes
from .api.ranked_routes import ranked_routes
from .api.replays import replay_routes
from .api.scoreboards import scoreboard_routes
from .base import examples
from .base.clock import Clock, SystemClock
from .base.crashhook import ENV as CRASH_ENV
from .base.crashhook import CrashAt
from .base.errors import UNPROCESSABLE, TableError
from .base.examples import body as body_of
from .base.limits import MAX_PLAYERS, MAX_SEAT, MIN_PLAYERS, BotLevel
from .base.testhooks import StackedDealSpec, refuse_test_hooks
from .base.text import CODE_PATTERN, Name
from .cluster.cluster import Node
from .cluster.ownership import LeaseOwnership, SoleOwner
from .edge.apidocs import api_docs_page
from .edge.guards import (
    BodyLimit,
    ForwardedHeaders,
    SecurityHeaders,
    invalid_request,
    unreadable_body,
)
from .edge.relay import ClusterHub, Relays
from .edge.settings import ServerSettings
from .edge.sockets import SocketEndpoint, handle, leave
from .edge.state import AnyTable, ServerState
from .modes.modes import TURN_BASED
from .modes.turnbased import DEFAULT_DEADLINE, MOVE_DEADLINES, turn_based_settings
from .play.context import TableContext
from .play.lobby import Lobby
from .play.ranked import Ranked
from .play.thinking import Thinker
from .transport.hub import Hub, LocalHub

# The built web client (web/ builds into it; the package ships it).
WEB_DIST = Path(__file__).resolve().parent.parent / "web_dist"
_NOT_BUILT = (
    "<!doctype html><title>Facedown</title><h1>Facedown</h1>"
    "<p>The game server is running. The web client is not built: run ./scripts/run.sh.</p>"
)

T = TypeVar("T")

# An Authorization header longer than this is no session token of ours.
BEARER = Header(None, max_length=600)
TableCode = Annotated[str, PathParam(max_length=16, pattern=CODE_PATTERN)]


def bot_for_seat(level: str, seed: int) -> Bot:
    """A bot of the given level for one seat (the bots package decides what a level is)."""
    return make_bot(level, seed)


class CreateTable(BaseModel):
    preset: str = Field("cabo", max_length=32, description="boyo, cabo, kivo or kaboom")
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


class JoinTable(BaseModel):
    name: Name = Field(description="your display name")


class Session(BaseModel):
    token: str = Field(description="the new session token: every earlier one no longer works")
    expires: float = Field(description="the unix time this token stops working")


class Seated(BaseModel):
    code: str
    link: str
    token: str = Field(description="session token: keep it to rejoin from this or another device")
    seat: int | None
    table: dict[str, Any]


def create_app(
    settings: ServerSettings | None = None,
    store: Store | None = None,
    hub: Hub | None = None,
    clock: Clock | None = None,
) -> FastAPI:
    """Build the app.  ``store`` and ``hub`` default to SQLite in the data folder and LocalHub,
    ``clock`` to the wall clock (tests pass a FakeClock to move time by hand)."""
    settings = settings or ServerSettings()
    state = ServerState(settings, Tokens(settings.resolved_secret(), settings.token_lifetime))
    crash = _crash_hook(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = store is None
        used: Store
        if store is None:
            from ..store import open_store

            dies = crash.before_commit if crash is not None else None
            used = await open_store(settings.resolved_database_url(), before_commit=dies)
        else:
            used = store
        cluster = await _cluster(settings, used, state) if settings.redis_url else None
        fanout = hub or (cluster[1] if cluster is not None else LocalHub())
        mail = settings.mail()
        ticking = clock or SystemClock()
        postbox = Postbox(
            used,
            Mailer(mail) if mail else None,
            settings.public_url,
            settings.resolved_secret(),
            settings.mail_limits,
            ticking.now,
        )
        state.notifier = notifier = Notifier(used, postbox, fanout.present)
        ctx = TableContext(
            used,
            fanout,
            bot_for_seat,
            settings.table,
            ticking,
            metrics=state.metrics,
            crash=crash,
            notifier=notifier,
            ownership=cluster[2] if cluster is not None else SoleOwner(),
            thinker=Thinker(settings.bot_processes),
        )
        app.state.loop = asyncio.get_running_loop()  # tests run a FakeClock's work on it
        state.tokens.load_floors(await used.token_floors())  # rotations outlive a restart
        state.live_lobby = lobby = _lobby(ctx, settings, cluster[0] if cluster else None)
        state.metrics.watch_tables(lambda: (t.record.status for t in lobby.tables.values()))
        state.accounts = Accounts(
            used,
            Passwords(settings.password_cost),
            state.tokens,
            state.limits,
            settings.account_lifetime,
        )
        state.history = History(used)
        # Before the tables come back: a ranked match that ends is rated from the first.
        state.ranked = ranked = Ranked(
            lobby, state.tokens, ctx.clock, settings.ranked, test_hooks=settings.test_hooks
        )
        if cluster is not None:
            relays = Relays(state, cluster[0], handle, leave)
            state.node, state.relays = cluster[0], relays
            await cluster[0].start(relays)
        await state.live_lobby.recover()
        await ranked.start()
        yield
        await ranked.close()
        if state.relays is not None:
            await state.relays.close()  # relayed and remote clients are told to reconnect
        await state.live_lobby.close()  # in a cluster its leases go: others take over at once
        if state.node is not None:
            await state.node.close()
        await notifier.close()
        ctx.thinker.close()
        if owned:
            await used.close()

    docs = settings.api_docs  # the interactive API pages: off unless asked for
    app = FastAPI(
        title="Facedown",
        version="1",
        lifespan=lifespan,
        # FastAPI's Swagger UI and ReDoc pages load their scripts from a CDN (blank offline):
        # /docs is our own page instead (server/edge/apidocs.py), made from /openapi.json.
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if docs else None,
    )
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(StarletteHTTPException, unreadable_body)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body)
    app.add_middleware(SecurityHeaders, hsts=settings.public_url.startswith("https://"))
    # Outermost: no route sees a forwarded header that no trusted proxy sent.
    app.add_middleware(ForwardedHeaders, behind_proxy=settings.behind_proxy, proxies=state.proxies)
    ops_routes(app, state)
    _api_routes(app, state)
    passplay_routes(app, state)
    account_routes(app, state)
    mail_routes(app, state)
    ranked_routes(app, state)
    games_routes(app, state)
    replay_routes(app, state)
    if docs:

        @app.get("/docs", include_in_schema=False)
        async def api_docs() -> HTMLResponse:
            return HTMLResponse(api_docs_page(app.openapi()))

    scoreboard_routes(app, state)

    # A plain ASGI application, which Starlette's route takes as it is (FastAPI's signature
    # names only a function of a WebSocket).
    app.router.add_websocket_route("/ws", SocketEndpoint(state))  # type: ignore[arg-type]

    _serve_client(app, WEB_DIST)
    app.state.lobby = state.lobby
    return app


def _table_settings(body: CreateTable) -> dict[str, Any]:
    """A new table's settings: its mode and timers."""
    if body.mode == TURN_BASED:
        return turn_based_settings(body.move_deadline)
    return {"peek_seconds": body.peek_seconds, "turn_seconds": body.turn_seconds}


async def _cluster(
    settings: ServerSettings, store: Store, state: ServerState
) -> tuple[Node, ClusterHub, LeaseOwnership]:
    """This process's part of a cluster: its node on Redis, its hub and its table leases."""
    if not store.shared:
        raise StoreError(
            "a cluster (--redis-url) needs a database every process shares: "
            "give --database-url postgresql://..."
        )
    node = Node(str(settings.redis_url), await store.cluster_id())
    hub = ClusterHub()
    hub.node = node
    ownership = LeaseOwnership(
        store,
        node.id,
        settings.lease_seconds,
        alive=node.alive,
        on_takeover=state.metrics.takeovers.inc,
    )
    return node, hub, ownership


def _lobby(ctx: TableContext, settings: ServerSettings, node: Node | None) -> Lobby:
    """This process's lobby; in a cluster it knows the other processes' tables, and tells
    them how many it owns (in each heartbeat of its node)."""
    if node is None:
        return Lobby(ctx, rebalance=settings.rebalance)
    lobby = Lobby(ctx, node.live_nodes, node.loads, settings.rebalance)
    node.owned = lobby.owned
    return lobby


def _crash_hook(settings: ServerSettings) -> CrashAt | None:
    """The crash test hook (server/base/crashhook.py), only on a server with test hooks."""
    if settings.crash_at is None:
        return None
    if not settings.test_hooks:
        raise ValueError(f"{CRASH_ENV} is a test hook: it needs --test-hooks")
    return CrashAt.parse(settings.crash_at)


def _api_routes(app: FastAPI, state: ServerState) -> None:  # noqa: C901 - flat: one small nested handler per route
    """The HTTP API: presets, creating, looking up and joining tables."""
    settings, tokens = state.settings, state.tokens

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {name: rules.to_json() for name, rules in PRESETS.items()}

    @app.get("/api/modes")
    async def modes() -> dict[str, Any]:
        """Each preset's modes (the engine's table): the ruleset fields a mode sets, and the
        match options (``rounds``, ``score_limit``) its host may choose."""
        return {
            preset: {name: mode.to_json() for name, mode in table.items()}
            for preset, table in MODES.items()
        }

    def _address(request: Request) -> str:
        return state.address(request.client.host if request.client else None, request.headers)

    @app.post("/api/tables", response_model=Seated)
    async def create_table(
        body: Annotated[CreateTable, body_of(examples.CREATE_TABLE)],
        request: Request,
        authorization: str | None = BEARER,
    ) -> Seated:
        address = _address(request)
        if not state.limits.creates.allow(address):
            raise _rate_limited("too many tables created from your address: try again later")
        made = False
        try:
            seated = await _create_table(body, request, authorization)
            made = True
            return seated
        finally:
            if not made:  # a refused creation does not count against the address
                state.limits.creates.refund(address)

    async def _create_table(
        body: CreateTable, request: Request, authorization: str | None
    ) -> Seated:
        refuse_test_hooks(settings.test_hooks, body.seed, body.deal)
        account = await signed_in(state, request)
        if account is not None:  # a signed-in player sits with the account's player id
            player = account.user.player_id
        else:
            guest = await state.guest_from(authorization)
            player = guest.player_id if guest else secrets.token_hex(8)
        try:
            settings_ = _table_settings(body)
            table = await state.lobby().create(
                player,
                body.name,
                body.preset,
                body.options,
                body.seats,
                settings_,
                body.bots,
                seed=body.seed,
                deal=body.deal.model_dump() if body.deal is not None else None,
            )
        except TableError as e:
            status = 422 if e.code in UNPROCESSABLE else 400
            raise HTTPException(status, {"code": e.code, "message": e.message}) from None
        code = table.record.code
        token = _seat_token(account, body.name, player, table.record.id)
        return Seated(
            code=code, link=state.link(code), token=token, seat=0, table=table.table_info()
        )

    @app.get("/api/tables/{code}")
    async def get_table(code: TableCode, request: Request) -> dict[str, Any]:
        table = await _find(code, _address(request))
        return (await _at(state.table_info(table)))[0]

    @app.post("/api/tables/{code}/join", response_model=Seated)
    async def join_table(
        code: TableCode,
        body: Annotated[JoinTable, body_of(examples.JOIN_TABLE)],
        request: Request,
        authorization: str | None = BEARER,
    ) -> Seated:
        address = _address(request)
        if not state.limits.joins.allow(address):
            raise _rate_limited("too many joins from your address: try again later")
        table = await _find(code, address)
        account, player = await _player_at(table, request, authorization)
        try:
            seat, info = await state.join(table, player, body.name)
        except TableError as e:
            status = _FIND_STATUS.get(e.code, 409)
            raise HTTPException(status, {"code": e.code, "message": e.message}) from None
        except StoreError:
            message = "the seat could not be saved: try again"
            raise HTTPException(503, {"code": "store_unavailable", "message": message}) from None
        c = table.code
        token = _seat_token(account, body.name, player, table.id)
        return Seated(code=c, link=state.link(c), token=token, seat=seat, table=info)

    @app.get("/api/tables/{code}/seat", response_model=Seated)
    async def my_seat(code: TableCode, request: Request) -> Seated:
        """The signed-in account's seat at this table, with a fresh seat token: how a second
        device of the account plays the seat (404 ``no_seat`` when the account has none)."""
        account = await signed_in(state, request)
        if account is None:
            raise SIGNED_OUT_HTTP()
        table = await _find(code, _address(request))
        ids = await state.accounts_().player_ids(account)
        held = next((p for p in ids if table.seat_of(p) is not None), None)
        if held is None:
            message = "your account holds no seat at this table"
            raise HTTPException(404, {"code": "no_seat", "message": message})
        seat = table.seat_of(held)
        name = next(s.name for s in table.record.seats if s.seat == seat)
        token = state.accounts_().seat_token(account, name, held, table.record.id)
        c = table.record.code
        info, _ = await _at(state.table_info(table))  # from its owner, in a cluster
        return Seated(code=c, link=state.link(c), token=token, seat=seat, table=info)

    @app.post("/api/session/rotate", response_model=Session)
    async def rotate_session(authorization: str | None = BEARER) -> Session:
        """A fresh session token for the one in ``Authorization: Bearer``, which stops working
        (as does every token issued to that guest before), say after a link was shared.  An
        account holder's token is renewed only while the session that obtained it lives."""
        presented = tokens.check(state.bearer(authorization))
        held = presented and await state.guest_from(authorization, presented.table)
        rotated = tokens.rotation(state.bearer(authorization)) if held else None
        if rotated is None:
            message = "send a valid session token as Authorization: Bearer <token>"
            raise HTTPException(401, {"code": "bad_token", "message": message})
        guest, token = rotated
        issued_ms = int(guest.issued * 1000)
        try:  # stored before it is handed out: the rotation outlives a restart
            await state.lobby().store.set_token_floor(guest.player_id, issued_ms)
        except StoreError:
            message = "the rotation could not be stored: try again (your token still works)"
            raise HTTPException(503, {"code": "store_unavailable", "message": message}) from None
        tokens.refuse_before(guest.player_id, issued_ms)
        return Session(token=token, expires=guest.expires(tokens.lifetime))

    async def _player_at(
        table: AnyTable, request: Request, authorization: str | None
    ) -> tuple[SignedIn | None, str]:
        """Who sits down: the account (with the id it already holds a seat with, if any),
        else the guest of the bearer token, else a new guest."""
        account = await signed_in(state, request)
        if account is None:
            return None, await _guest_at(table, authorization)
        ids = await state.accounts_().player_ids(account)
        return account, next((p for p in ids if table.seat_of(p) is not None), ids[0])

    async def _guest_at(table: AnyTable, authorization: str | None) -> str:
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

    def _seat_token(account: SignedIn | None, name: str, player: str, table_id: str) -> str:
        """A guest's seat token, or an account holder's bound to their session and the table."""
        if account is not None:
            return state.accounts_().seat_token(account, name, player, table_id)
        return tokens.issue(name, player)[1]

    async def _find(code: str, address: str) -> AnyTable:
        return await _at(state.find(code, address))


async def _at(work: Awaitable[T]) -> T:
    """``work``'s result; a refusal as the HTTP error it is."""
    try:
        return await work
    except TableError as e:
        status = _FIND_STATUS.get(e.code, 404)
        raise HTTPException(status, {"code": e.code, "message": e.message}) from None


_FIND_STATUS = {
    "table_unavailable": 503,
    "cluster_unavailable": 503,
    "store_unavailable": 503,
    "rate_limited": 429,
    "table_closed": 410,
}


def _rate_limited(message: str) -> HTTPException:
    return HTTPException(429, {"code": "rate_limited", "message": message})


def _serve_client(app: FastAPI, dist: Path) -> None:
    """Serve the built client below every API route: its files, and index.html for the
    client's own routes (/t/CODE, /new, /howto/...) so that a link or a reload opens the app."""
    root = dist.resolve()

    @app.get("/{path:path}", include_in_schema=False)
    async def client(path: str) -> Response:
        if path == "api" or path.startswith(("api/", "ws")):
            raise HTTPException(404, {"code": "not_found", "message": f"no route /{path}"})
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            # No file has such a name (and the file system refuses a NUL outright).
            raise HTTPException(404, {"code": "not_found", "message": "no such file"})
        if path:
            target = (root / path).resolve()
            if target.is_file() and root in target.parents:
                immutable = path.startswith("assets/")  # file names carry a content hash
                cache = "public, max-age=31536000, immutable" if immutable else "no-cache"
                return FileResponse(target, headers={"cache-control": cache})
            if path.startswith("assets/") or "." in path.rsplit("/", 1)[-1]:
                raise HTTPException(404, {"code": "not_found", "message": f"no file /{path}"})
        index = root / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"cache-control": "no-cache"})
        return HTMLResponse(_NOT_BUILT)
