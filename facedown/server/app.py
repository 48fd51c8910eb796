"""The ASGI app: the HTTP API for the lobby and tables, and the WebSocket for play."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots import Bot, make_bot
from ..store import Store, StoreError
from .accounts.accounts import Accounts
from .accounts.auth import Tokens
from .accounts.history import History
from .accounts.mail import Mailer
from .accounts.notify import Notifier
from .accounts.passwords import Passwords
from .accounts.postbox import Postbox
from .api import (
    account_routes,
    games,
    mail_routes,
    ops,
    passplay,
    ranked_routes,
    replays,
    scoreboards,
    tables,
)
from .api.tables import CreateTable as CreateTable  # the request model, where tests look
from .base.clock import Clock, SystemClock
from .base.crashhook import ENV as CRASH_ENV
from .base.crashhook import CrashAt
from .base.text import escaped
from .cluster.cluster import Node
from .cluster.ownership import LeaseOwnership, SoleOwner
from .edge.apidocs import api_docs_page
from .edge.guards import (
    BodyLimit,
    ForwardedHeaders,
    HeaderLimit,
    SecurityHeaders,
    invalid_request,
    unreadable_body,
)
from .edge.relay import ClusterHub, Relays
from .edge.settings import ServerSettings
from .edge.sockets import SocketEndpoint, handle, leave
from .edge.state import ServerState
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


def bot_for_seat(level: str, seed: int) -> Bot:
    """A bot of the given level for one seat (the bots package decides what a level is)."""
    return make_bot(level, seed)


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
        app.state.loop = asyncio.get_running_loop()  # tests run a FakeClock's work on it
        running = await _start(state, store, hub, clock or SystemClock(), crash)
        yield
        await _stop(state, running)

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
    app.add_middleware(HeaderLimit, max_bytes=settings.max_header_bytes)
    app.add_middleware(SecurityHeaders, hsts=settings.public_url.startswith("https://"))
    # Outermost: no route sees a forwarded header that no trusted proxy sent.
    app.add_middleware(ForwardedHeaders, behind_proxy=settings.behind_proxy, proxies=state.proxies)
    app.state.server = state  # what the routes take (api/deps.py)
    app.state.replays = replays.Replays(state)  # the replays built and kept (api/replays.py)
    _routes(app, state, docs=docs)
    _serve_client(app, WEB_DIST)
    app.state.lobby = state.lobby
    return app


def _routes(app: FastAPI, state: ServerState, *, docs: bool) -> None:
    """The HTTP routes of every feature, and the WebSocket."""
    app.include_router(ops.router)
    if state.settings.metrics:
        app.include_router(ops.metrics_router)
    app.include_router(tables.router)
    app.include_router(passplay.router)
    app.include_router(account_routes.router)
    app.include_router(mail_routes.router)
    app.include_router(ranked_routes.router)
    app.include_router(games.router)
    app.include_router(replays.router)
    if docs:
        app.add_api_route("/docs", api_docs, include_in_schema=False)
    app.include_router(scoreboards.router)
    # A plain ASGI application, which Starlette's route takes as it is (FastAPI's signature
    # names only a function of a WebSocket).
    app.router.add_websocket_route("/ws", SocketEndpoint(state))  # type: ignore[arg-type]


@dataclass
class _Running:
    """What the app started and stops: the store (closed at the end when the app opened it),
    the tables' context, the turn notifier and the ranked queues."""

    store: Store
    owned: bool
    ctx: TableContext
    notifier: Notifier
    ranked: Ranked
    sessions: asyncio.Task[None]  # checks the sessions behind open seats (seatsessions.py)


async def _start(
    state: ServerState, store: Store | None, hub: Hub | None, clock: Clock, crash: CrashAt | None
) -> _Running:
    """Open the store (SQLite in the data folder unless given), join the cluster when there is
    one, build the lobby and the services around it, and bring every table back."""
    settings = state.settings
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
    postbox = Postbox(
        used,
        Mailer(mail) if mail else None,
        settings.public_url,
        settings.resolved_secret(),
        settings.mail_limits,
        clock.now,
    )
    state.notifier = notifier = Notifier(used, postbox, fanout.present)
    ctx = TableContext(
        used,
        fanout,
        bot_for_seat,
        settings.table,
        clock,
        metrics=state.metrics,
        crash=crash,
        notifier=notifier,
        ownership=cluster[2] if cluster is not None else SoleOwner(),
        thinker=Thinker(settings.bot_processes),
    )
    state.tokens.load_floors(await used.token_floors())  # rotations outlive a restart
    state.live_lobby = lobby = _lobby(ctx, settings, cluster[0] if cluster else None)
    state.metrics.watch_tables(lambda: (t.record.status for t in lobby.tables.values()))
    state.accounts = Accounts(
        used,
        Passwords(settings.password_cost),
        state.tokens,
        state.limits,
        settings.account_lifetime,
        sessions_ended=state.seat_sessions.settle,
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
    await lobby.recover()
    await ranked.start()
    sessions = asyncio.get_running_loop().create_task(
        state.seat_sessions.run(settings.session_check)
    )
    return _Running(used, store is None, ctx, notifier, ranked, sessions)


async def _stop(state: ServerState, running: _Running) -> None:
    """Stop in the order that loses nothing: ranked queues, relayed clients (told to
    reconnect), the lobby (in a cluster its leases go: others take over at once), the node."""
    running.sessions.cancel()
    await running.ranked.close()
    if state.relays is not None:
        await state.relays.close()
    await state.lobby().close()
    if state.node is not None:
        await state.node.close()
    await running.notifier.close()
    running.ctx.thinker.close()
    if running.owned:
        await running.store.close()


async def api_docs(request: Request) -> HTMLResponse:
    """The plain page of the HTTP API (``--api-docs``), made from the app's OpenAPI document."""
    return HTMLResponse(api_docs_page(request.app.openapi()))


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


def _serve_client(app: FastAPI, dist: Path) -> None:
    """Serve the built client below every API route: its files, and index.html for the
    client's own routes (/t/CODE, /new, /howto/...) so that a link or a reload opens the app."""
    root = dist.resolve()

    @app.get("/{path:path}", include_in_schema=False)
    async def client(path: str) -> Response:
        if path == "api" or path.startswith(("api/", "ws")):
            raise HTTPException(
                404, {"code": "not_found", "message": f"no route /{escaped(path, 80)}"}
            )
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            # No file has such a name (and the file system refuses a NUL outright).
            raise HTTPException(404, {"code": "not_found", "message": "no such file"})
        if path:
            target = _file_below(root, root / path)
            if target is not None:
                immutable = path.startswith("assets/")  # file names carry a content hash
                cache = "public, max-age=31536000, immutable" if immutable else "no-cache"
                return FileResponse(target, headers={"cache-control": cache})
            if path.startswith("assets/") or "." in path.rsplit("/", 1)[-1]:
                message = f"no file /{escaped(path, 80)}"
                raise HTTPException(404, {"code": "not_found", "message": message})
        index = root / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"cache-control": "no-cache"})
        return HTMLResponse(_NOT_BUILT)


def _file_below(root: Path, path: Path) -> Path | None:
    """``path`` resolved, when it is a file inside ``root`` (a name the file system refuses,
    one too long for instance, is none)."""
    try:
        target = path.resolve()
        return target if target.is_file() and root in target.parents else None
    except (OSError, ValueError):
        return None
