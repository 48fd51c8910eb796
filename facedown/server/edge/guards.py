"""What stands between the open network and the routes: errors that never echo what was sent,
a bound on request bodies, forwarded headers dropped unless a trusted proxy sent them, and the
security headers of every response."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..base.addresses import Network, from_trusted_proxy
from ..base.text import escaped, shown

MESSAGE_LENGTH = 200  # characters of an error message at most


def _where(loc: Sequence[Any]) -> str:
    parts = [str(p) if isinstance(p, int) else shown(str(p), 24).strip("'\"") for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:] if len(parts) > 1 else parts
    return ".".join(parts)


def describe(errors: Sequence[Any]) -> str:
    """One readable sentence for a request's first validation error, built from where it is
    and what is wrong, not from the input (which may be huge, or not even encodable): only a
    word refused for not being one of a list is quoted back, shortened and escaped."""
    if not errors:
        return "the request is not valid"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return "the body is not valid JSON"
    message = str(first.get("msg", "is not valid")).removeprefix("Value error, ")
    text = f"{_where(first.get('loc', ()))}: {message}"
    given = first.get("input")
    if first.get("type") == "literal_error" and isinstance(given, str):
        text += f", not {shown(given, 24)}"  # a short word, quoted and escaped
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more)"
    # The message is the validator's own words, yet escape anything unprintable all the same.
    return escaped(text, MESSAGE_LENGTH)


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    """422 with ``{"detail": {"code": "invalid_request", "message": ...}}`` like every other
    refusal of the API (FastAPI's default echoes the input back, and fails on some)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = {"code": "invalid_request", "message": describe(errors)}
    return JSONResponse({"detail": detail}, status_code=422)


async def unreadable_body(request: Request, exc: Exception) -> Response:
    """FastAPI's and Starlette's own refusals with a code like every other refusal of the API:
    400 for a body it could not read as JSON (not UTF-8, a number too long to read, JSON nested
    deeper than the decoder's stack) is ``malformed_json``, the routing's 404 (a request line
    naming no path of this server) ``not_found``, its 405 ``method_not_allowed``.  The
    routes' own refusals (a ``{"code", "message"}`` detail) are answered as they are."""
    if not isinstance(exc, StarletteHTTPException):  # never: registered for these only
        raise exc
    if isinstance(exc.detail, str):
        status = exc.status_code
        if status == 400:
            message = "the body could not be read as JSON (not UTF-8, too deep or too long)"
            detail = {"code": "malformed_json", "message": message}
            return JSONResponse({"detail": detail}, status_code=400)
        said = escaped(exc.detail, MESSAGE_LENGTH)
        if status == 404:
            detail = {"code": "not_found", "message": said}
        elif status == 405:
            detail = {"code": "method_not_allowed", "message": said}
        else:
            return await http_exception_handler(request, exc)
        return JSONResponse({"detail": detail}, status_code=status, headers=exc.headers)
    return await http_exception_handler(request, exc)


class BodyLimit:
    """ASGI middleware: an HTTP request body is read up to ``max_bytes`` and no further.

    A request whose Content-Length says more is answered 413 before any of its body is read;
    one without (chunked) is cut off with 413 at the first chunk past the limit.  Either way
    the connection is closed after the answer, so the rest of the body is never read."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
            response = JSONResponse(
                {"detail": self._detail()}, status_code=413, headers={"connection": "close"}
            )
            await response(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # Raised inside the route's reading of the body: FastAPI answers it.
                    raise HTTPException(413, self._detail(), headers={"connection": "close"})
            return message

        await self.app(scope, limited, send)

    def _detail(self) -> dict[str, str]:
        message = f"request bodies are limited to {self.max_bytes} bytes"
        return {"code": "too_large", "message": message}


class HeaderLimit:
    """ASGI middleware: a request whose request line and headers together hold more than
    ``max_bytes`` is answered 431 ``too_large`` (a WebSocket's upgrade: closed before it is
    accepted).  The HTTP parser's own limit (uvicorn's ``h11_max_incomplete_event_size``) counts
    only what is still incomplete: headers that arrive in one piece pass it up to the size of
    one read (64 KiB)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or _head_size(scope) <= self.max_bytes:
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "headers too large"})
            return
        message = f"the request line and headers are limited to {self.max_bytes} bytes"
        response = JSONResponse(
            {"detail": {"code": "too_large", "message": message}},
            status_code=431,
            headers={"connection": "close"},
        )
        await response(scope, receive, send)


def _head_size(scope: Scope) -> int:
    """About the bytes of a request's line and headers as they came (each header's name,
    value, ": " and line end; the path and query as sent)."""
    size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 16
    for name, value in scope.get("headers", ()):
        size += len(name) + len(value) + 4
    return size


# The built client is one module script and one style sheet from this origin, a data: icon,
# and the WebSocket back to this origin ('self' covers ws: and wss: of the same host).
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


# A year, the usual figure (and what preload lists ask for); not includeSubDomains: the other
# hosts of the domain are not this server's to decide.
HSTS = "max-age=31536000"
FORWARDED = (b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"forwarded")


class ForwardedHeaders:
    """ASGI middleware: the forwarded headers (``X-Forwarded-For``, ``X-Forwarded-Proto``,
    ``X-Forwarded-Host``, ``Forwarded``) are removed from every HTTP request and WebSocket whose
    TCP peer is not a trusted proxy (or from all of them when the server is not behind one), so
    that no route, now or later, can believe one a client made up (server/base/addresses.py)."""

    def __init__(self, app: ASGIApp, behind_proxy: bool, proxies: Collection[Network]) -> None:
        self.app = app
        self.behind_proxy = behind_proxy
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            peer = scope.get("client")
            if not from_trusted_proxy(peer[0] if peer else None, self.behind_proxy, self.proxies):
                headers = scope["headers"]
                if any(name in FORWARDED for name, _ in headers):
                    kept = [(n, v) for n, v in headers if n not in FORWARDED]
                    scope = {**scope, "headers": kept}
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: the headers every HTTP response carries.

    The Content-Security-Policy (no inline script, nothing from other origins, no framing),
    ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``,
    ``Cache-Control: no-store`` on the API, whose answers carry session tokens, and with
    ``hsts`` (the public URL is https) ``Strict-Transport-Security``: a browser that has been
    here once never again asks for the site over plain http, where the session cookie and
    tokens could be read or the page changed on the way."""

    def __init__(self, app: ASGIApp, hsts: bool = False) -> None:
        self.app = app
        self.hsts = hsts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        extra = {
            "content-security-policy": CONTENT_SECURITY_POLICY,
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
            "x-frame-options": "DENY",
            "cross-origin-opener-policy": "same-origin",
        }
        if self.hsts:
            extra["strict-transport-security"] = HSTS
        api = path == "/api" or path.startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    headers[name] = value
                if api:
                    headers["cache-control"] = "no-store"
            await send(message)

        await self.app(scope, receive, with_headers)
