"""The two links of the e-mails (docs/turn-based.md): confirming an address, and unsubscribing.

Both work without signing in (a mail may be opened on any device).  Opening a link (GET) only
shows a page with a button; the button posts back to the same address, and only that changes
anything, so a mail scanner that opens every link confirms and removes nothing.  The
unsubscribe address also takes RFC 8058's one-click POST (``List-Unsubscribe=One-Click``) that
mail programs send straight from the ``List-Unsubscribe`` header.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from ..accounts import mail_text
from ..accounts.postbox import Postbox
from ..edge.state import ServerState
from .deps import State

Token = Annotated[str, Query(alias="t", max_length=128)]
UserId = Annotated[str, Query(alias="u", max_length=64)]
Signature = Annotated[str, Query(alias="s", max_length=128)]


router = APIRouter()


def _postbox(state: ServerState) -> Postbox:
    if state.notifier is None:
        raise RuntimeError("the app is not running")
    return state.notifier.postbox


def _page(lang: str, kind: str, outcome: str, status: int = 200, ask: bool = False) -> HTMLResponse:
    title = f"page.{kind}.title"
    button = f"page.{kind}.button" if ask else None
    return HTMLResponse(mail_text.page(lang, title, f"page.{kind}.{outcome}", button), status)


@router.get("/api/mail/confirm", response_class=HTMLResponse, include_in_schema=False)
async def confirm_page(request: Request, t: Token = "") -> HTMLResponse:
    """The confirmation link: a page with the button that confirms (in the browser's
    language: the token names no account until it is used)."""
    lang = mail_text.accepted(request.headers.get("accept-language", ""))
    return _page(lang, "confirm", "ask", ask=True)


@router.post("/api/mail/confirm", response_class=HTMLResponse, include_in_schema=False)
async def confirm(state: State, t: Token = "") -> HTMLResponse:
    """Confirm the address the link was sent to: once, before it expires."""
    outcome, lang = await _postbox(state).confirm(t)
    if outcome == "confirmed":
        return _page(lang, "confirm", "done")
    return _page(lang, "confirm", outcome, status=410 if outcome == "expired" else 404)


@router.get("/api/mail/unsubscribe", response_class=HTMLResponse, include_in_schema=False)
async def unsubscribe_page(state: State, u: UserId = "", s: Signature = "") -> HTMLResponse:
    """The unsubscribe link: a page with the button that removes the address."""
    lang = await _postbox(state).unsubscribe_language(u, s)
    if lang is None:
        return _page(mail_text.DEFAULT_LANGUAGE, "stop", "unknown", status=404)
    return _page(lang, "stop", "ask", ask=True)


@router.post("/api/mail/unsubscribe", response_class=HTMLResponse, include_in_schema=False)
async def unsubscribe(state: State, u: UserId = "", s: Signature = "") -> HTMLResponse:
    """Remove the address the link was signed for from its account (one click)."""
    postbox = _postbox(state)
    lang = await postbox.unsubscribe_language(u, s)
    if lang is None or not await postbox.unsubscribe(u, s):
        return _page(mail_text.DEFAULT_LANGUAGE, "stop", "unknown", status=404)
    return _page(lang, "stop", "done")
