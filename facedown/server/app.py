"""The ASGI app: the HTTP API for the lobby and tables, and the WebSocket for play."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..bots import Bot, make_bot
from ..engine import PRESETS
from ..store.base import Store
from . import protocol as P
from .auth import Guest, Tokens
from .connection import NO_HELLO, TOO_MANY, Connection, RateLimit
from .hub import Hub, LocalHub
from .limits import MAX_PLAYERS, MAX_SEAT, MIN_PLAYERS, BotLevel
from .lobby import Lobby
from .settings import ServerSettings
from .table import Table, TableError

# The built web client (web/ builds into it; the package ships it).
WEB_DIST = Path(__file__).resolve().parent.parent / "web_dist"
_NOT_BUILT = (
    "<!doctype html><title>Facedown</title><h1>Facedown</h1>"
    "<p>The game server is running. The web client is not built: run ./scripts/run.sh.</p>"
)


STRIKES_FORGIVEN = 10.0  # seconds without a rate-limited message that wipe the strikes

# Refusals of a table the engine or the bots cannot play (a well-formed request, so 422).
_UNPROCESSABLE = frozenset({"bad_seats", "bad_bot_level"})


def bot_for_seat(level: str, seed: int) -> Bot:
    """A bot of the given level for one seat (the bots package decides what a level is)."""
    return make_bot(level, seed)


class StackedDealSpec(BaseModel):
    """A stacked first deal, by card names (refused unless the server runs with test hooks)."""

    model_config = ConfigDict(extra="forbid")

    hands: list[list[str]] = Field(description="each seat's cards, slot by slot")
    discard: str = Field(description="the first card of the discard pile")
    draw: list[str] = Field(default_factory=list, description="the top of the draw pile, in order")
    first: int | None = Field(None, ge=0, le=MAX_SEAT, description="the seat that starts")


class CreateTable(BaseModel):
    preset: str = Field("cabo", description="boyo, cabo, kivo or kaboom")
    options: dict[str, Any] = Field(default_factory=dict, description="ruleset fields to change")
    seats: int = Field(4, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    name: str = Field("Host", min_length=1, max_length=32, description="the host's display name")
    peek_seconds: float = Field(20, ge=3, le=600)
    turn_seconds: float = Field(60, ge=5, le=86400 * 3)
    bots: list[BotLevel] = Field(default_factory=list, description="bot levels for seats 1, 2, ...")
    seed: int | None = Field(
        None, ge=0, lt=2**48, description="test hooks only: the table's secret seed"
    )
    deal: StackedDealSpec | None = Field(
        None, description="test hooks only: the first deal of the first match"
    )


class JoinTable(BaseModel):
    name: str = Field(min_length=1, max_length=32)


class Seated(BaseModel):
    code: str
    link: str
    token: str = Field(description="session token: keep it to rejoin from this or another device")
    seat: int | None
    table: dict[str, Any]


def create_app(
    settings: ServerSettings | None = None, store: Store | None = None, hub: Hub | None = None
) -> FastAPI:
    """Build the app.  ``store`` and ``hub`` default to SQLite in the data folder and LocalHub."""
    settings = settings or ServerSettings()
    tokens = Tokens(settings.resolved_secret())
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        nonlocal store
        if store is None:
            from ..store.sql import open_store

            store = await open_store(settings.resolved_database_url())
            owned = True
        else:
            owned = False
        lobby = Lobby(store, hub or LocalHub(), bot_for_seat, settings.table)
        state["lobby"] = lobby
        await lobby.recover()
        yield
        await lobby.close()
        if owned:
            await store.close()

    app = FastAPI(title="Facedown", version="1", lifespan=lifespan)

    def lobby() -> Lobby:
        found: Lobby = state["lobby"]
        return found

    def guest_from(authorization: str | None) -> Guest | None:
        if authorization and authorization.lower().startswith("bearer "):
            return tokens.check(authorization[7:].strip())
        return None

    def link(code: str) -> str:
        return f"{settings.public_url}/t/{code}"

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "tables": len(lobby().tables)}

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        return {name: rules.to_json() for name, rules in PRESETS.items()}

    @app.post("/api/tables", response_model=Seated)
    async def create_table(body: CreateTable, authorization: str | None = Header(None)) -> Seated:
        if (body.seed is not None or body.deal is not None) and not settings.test_hooks:
            message = (
                "seed and deal are test hooks: this server was not started with --test-hooks "
                "(FACEDOWN_TEST_HOOKS=1)"
            )
            raise HTTPException(403, {"code": "test_hooks_off", "message": message})
        guest = guest_from(authorization)
        guest, token = tokens.issue(body.name, guest.player_id if guest else None)
        settings_ = {"peek_seconds": body.peek_seconds, "turn_seconds": body.turn_seconds}
        try:
            table = await lobby().create(
                guest.player_id,
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
            status = 422 if e.code in _UNPROCESSABLE else 400
            raise HTTPException(status, {"code": e.code, "message": e.message}) from None
        code = table.record.code
        return Seated(code=code, link=link(code), token=token, seat=0, table=table.table_info())

    @app.get("/api/tables/{code}")
    async def get_table(code: str) -> dict[str, Any]:
        table = await _find(code)
        return table.table_info()

    @app.post("/api/tables/{code}/join", response_model=Seated)
    async def join_table(
        code: str, body: JoinTable, authorization: str | None = Header(None)
    ) -> Seated:
        table = await _find(code)
        guest = guest_from(authorization)
        guest, token = tokens.issue(body.name, guest.player_id if guest else None)
        try:
            seat = await table.join(guest.player_id, body.name)
        except TableError as e:
            raise HTTPException(409, {"code": e.code, "message": e.message}) from None
        c = table.record.code
        return Seated(code=c, link=link(c), token=token, seat=seat, table=table.table_info())

    async def _find(code: str) -> Table:
        try:
            return await lobby().find(code)
        except TableError as e:
            status = 503 if e.code == "table_unavailable" else 404
            raise HTTPException(status, {"code": e.code, "message": e.message}) from None

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        conn = Connection(ws, settings.send_queue)
        try:
            await _serve(conn)
        finally:
            await _leave(conn)
            await conn.finish()

    async def _serve(conn: Connection) -> None:
        """Read and answer frames until the client leaves or the connection is closed."""
        limit = RateLimit(settings.rate, settings.burst)
        strikes = 0
        last_strike = 0.0
        hello_by = time.monotonic() + settings.hello_timeout
        while True:
            wait = None if conn.table is not None else max(0.0, hello_by - time.monotonic())
            try:
                raw = await conn.receive(wait)
            except TimeoutError:
                conn.send(P.error_message("hello_timeout", "no hello in time: closing"))
                conn.close(NO_HELLO, "no hello in time")
                return
            if raw is None:
                return
            if limit.allow():
                await _handle(conn, raw)
                continue
            now = time.monotonic()
            if now - last_strike > STRIKES_FORGIVEN:
                strikes = 0  # an old burst is forgiven: only sustained flooding closes
            strikes += 1
            last_strike = now
            conn.send(P.error_message("rate_limited", "too many messages: slow down"))
            if strikes >= settings.strikes:
                conn.close(TOO_MANY, "too many messages")
                return

    async def _leave(conn: Connection) -> None:
        """The connection is over: the table stops sending to it, and learns who left."""
        table = conn.table
        if table is None:
            return
        lobby().hub.unsubscribe(table.record.id, conn)
        seat = conn.seat
        if seat is not None:
            await table.disconnected(seat)

    async def _handle(conn: Connection, raw: str | bytes) -> None:
        try:
            msg = P.parse_client_message(raw)
        except P.ProtocolError as e:
            conn.send(P.error_message(e.code, e.message))
            return
        try:
            await _dispatch(conn, msg)
        except TableError as e:
            extra: dict[str, Any] = {}
            if isinstance(msg, P.ActionMessage):
                extra["id"] = msg.id
            conn.send(P.error_message(e.code, e.message, **extra))
            if e.code == "stale" and conn.table is not None and conn.table.game is not None:
                conn.send(conn.table.render(conn.seat))  # the resync

    async def _dispatch(conn: Connection, msg: Any) -> None:
        if isinstance(msg, P.Ping):
            conn.send({"type": "pong"})
            return
        if isinstance(msg, P.Hello):
            await _hello(conn, msg)
            return
        table = conn.table
        if table is None:
            raise TableError("no_hello", "say hello with a table code first")
        player = conn.player_id
        seat = conn.seat
        if isinstance(msg, P.ActionMessage):
            if seat is None:
                raise TableError("not_seated", "spectators cannot act")
            data = msg.action.model_dump(exclude_none=True)
            seq = await table.act(seat, data, msg.id, msg.seq)
            conn.send({"type": "ack", "id": msg.id, "seq": seq})
        elif isinstance(msg, P.Ready):
            conn.send({"type": "ack", "seq": table.seq})
        elif player is None:
            raise TableError("not_host", "only the host can do that")
        elif isinstance(msg, P.AddBot):
            await table.add_bot(player, msg.level, msg.seat)
        elif isinstance(msg, P.RemoveSeat):
            await table.remove_seat(player, msg.seat)
        elif isinstance(msg, P.Start):
            await table.start(player)
        elif isinstance(msg, P.Rematch):
            await table.rematch(player)

    async def _hello(conn: Connection, msg: P.Hello) -> None:
        if conn.table is not None:
            raise TableError("already_hello", "this connection is already at a table")
        table = await lobby().find(msg.table)
        guest = tokens.check(msg.token)
        if msg.token and guest is None:
            raise TableError("bad_token", "the session token is not valid")
        conn.player_id = None if msg.spectate or guest is None else guest.player_id
        conn.table = table
        seat = conn.seat
        async with table.lock:
            lobby().hub.subscribe(table.record.id, conn)
            conn.send({"type": "welcome", "v": P.VERSION, "seat": seat, "seq": table.seq})
            catch_up = table.catch_up(seat, msg.last_seq)
            if len(catch_up) > conn.room():
                # More missed events than the send queue holds would drop the client at once
                # (and again at each reconnection): a fresh snapshot instead.
                catch_up = table.catch_up(seat, None)
            for item in catch_up:
                conn.send(item)
        if seat is not None:
            await table.connected(seat)

    _serve_client(app, WEB_DIST)
    app.state.lobby = lobby
    _ = asyncio  # the event loop is the server's; nothing here blocks it
    return app


def _serve_client(app: FastAPI, dist: Path) -> None:
    """Serve the built client below every API route: its files, and index.html for the
    client's own routes (/t/CODE, /new, /howto/...) so that a link or a reload opens the app."""
    root = dist.resolve()

    @app.get("/{path:path}", include_in_schema=False)
    async def client(path: str) -> Response:
        if path == "api" or path.startswith(("api/", "ws")):
            raise HTTPException(404, {"code": "not_found", "message": f"no route /{path}"})
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
