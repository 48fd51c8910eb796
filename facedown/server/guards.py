"""What stands between the open network and the routes: errors that never echo what was sent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from .text import escaped, shown

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
