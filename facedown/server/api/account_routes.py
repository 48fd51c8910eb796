"""The accounts' HTTP API under /api/account (see :mod:`.accounts` and docs/accounts.md).

The session travels in the ``facedown_session`` cookie: HttpOnly (no script reads it),
SameSite=Strict (no other site's page sends it), Path=/api, and Secure when the server is
reached over HTTPS.  Against cross-site requests, on top of SameSite: every request that
changes something and carries the cookie must come from this origin (``Sec-Fetch-Site``, and
``Origin`` when the browser sends it), and bodies are JSON only (a form of another site cannot
post JSON without asking first).  No answer carries the token in its body, and every /api
answer is ``Cache-Control: no-store``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from ..accounts.accounts import SIGNED_OUT, AccountError, Accounts, SignedIn, clean_email
from ..accounts.history import History
from ..accounts.postbox import MailLimited, Postbox
from ..base import examples
from ..base.bodies import RequestBody
from ..base.examples import body as body_of
from ..base.text import Password, SignInName, Token, UserName
from ..edge.state import ServerState
from ..modes import ratings
from .deps import Address, State, refused

COOKIE = "facedown_session"
SessionId = Annotated[str, PathParam(min_length=1, max_length=32, pattern=r"^[0-9a-f]+$")]
GuestTokens = Annotated[list[Token], Field(max_length=32)]
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class SignUp(RequestBody):
    name: UserName = Field(description="the account's name (3 to 24 characters)")
    password: Password = Field(description="8 to 128 characters")
    guest_tokens: GuestTokens = Field(
        default_factory=list,
        description="the seat tokens this browser holds: their tables become the account's",
    )


class SignIn(RequestBody):
    name: SignInName
    password: Password
    guest_tokens: GuestTokens = Field(
        default_factory=list,
        description="seat tokens of guest play to take into the account (held by no account)",
    )


class SetEmail(RequestBody):
    email: str | None = Field(
        max_length=320, description="an e-mail address for turn e-mails; null or blank: none"
    )
    language: Literal["en", "de"] = Field("en", description="the language of the e-mails")


class EmailInfo(BaseModel):
    email: str | None
    verified: bool = Field(False, description="its owner confirmed it: only then mail goes to it")
    language: str = Field("en", description="the language of the e-mails")
    sent: bool = Field(False, description="a confirmation mail went out just now")


class ChangePassword(RequestBody):
    current_password: Password
    new_password: Password


class Rating(BaseModel):
    """The account's rating in one ranked queue (docs/ranked.md)."""

    queue: str = Field(description="<preset>-<players>")
    preset: str
    players: int
    rating: int = Field(description="the shown rating: 1000 + 40 x (mu - 3 sigma)")
    mu: float = Field(description="the skill estimate (OpenSkill, Plackett-Luce)")
    sigma: float = Field(description="its uncertainty")
    matches: int = Field(description="rated matches played in the queue")
    provisional: bool = Field(description="fewer rated matches than a settled rating needs")


class AccountInfo(BaseModel):
    name: str
    created_at: float
    email: str | None = Field(
        None, description="where turn e-mails go (only ever shown to the account itself)"
    )
    email_verified: bool = Field(default=False, description="its owner confirmed the address")
    mail_language: str = Field(default="en", description="the language of the account's e-mails")
    ratings: list[Rating] = Field(
        default_factory=list, description="one per ranked queue the account has played"
    )


class SessionInfo(BaseModel):
    id: str = Field(description="names the session to end it")
    created_at: float
    last_seen: float
    expires_at: float
    agent: str = Field(description="the browser that signed in, as it described itself")
    current: bool = Field(description="the session of this request")


class Sessions(BaseModel):
    sessions: list[SessionInfo]


class Ended(BaseModel):
    ended: int = Field(description="how many sessions ended")


class HistorySeat(BaseModel):
    seat: int
    name: str
    kind: str
    bot_level: str | None


class HistoryMatch(BaseModel):
    table_id: str
    code: str
    match_no: int = Field(description="the table's matches counted from 1")
    preset: str
    finished_at: float
    seats: list[HistorySeat]
    scores: list[int] = Field(description="each seat's match total")
    winners: list[int] = Field(description="the winning seats")
    you: list[int] = Field(description="the seats you held")
    won: bool


class MatchHistory(BaseModel):
    matches: list[HistoryMatch]


def _account(state: ServerState) -> Accounts:
    if state.accounts is None:
        raise RuntimeError("the app is not running")
    return state.accounts


def same_origin(request: Request, public_url: str = "") -> bool:
    """The request was made by a page of this server (or by no page at all: a script, curl):
    an ``Origin`` must name the request's ``Host`` (or the host of ``public_url``)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    hosts = {request.headers.get("host", "").lower(), urlsplit(public_url).netloc.lower()}
    return urlsplit(origin).netloc.lower() in hosts - {""}


async def signed_in(state: ServerState, request: Request) -> SignedIn | None:
    """The account of the request's session cookie; None when there is none or it is not
    valid.  A request that changes something with the cookie from another origin: 403."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    if request.method not in _SAFE_METHODS and not same_origin(request, state.settings.public_url):
        message = "a request from another site may not use your session"
        raise HTTPException(403, {"code": "cross_site", "message": message})
    return await _account(state).signed_in(token)


router = APIRouter()


def _secure(state: ServerState, request: Request) -> bool:
    if state.settings.public_url.startswith("https://"):
        return True
    if state.settings.behind_proxy:
        return request.headers.get("x-forwarded-proto", "").lower() == "https"
    return request.url.scheme == "https"


def _set_cookie(state: ServerState, request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(state.settings.account_lifetime),
        path="/api",
        httponly=True,
        samesite="strict",
        secure=_secure(state, request),
    )


def _clear_cookie(state: ServerState, request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE, path="/api", httponly=True, samesite="strict", secure=_secure(state, request)
    )


async def _who(state: ServerState, request: Request) -> SignedIn:
    who = await signed_in(state, request)
    if who is None:
        raise _http(SIGNED_OUT)
    return who


async def _enter(
    state: ServerState,
    how: Callable[..., Awaitable[tuple[SignedIn, str]]],
    body: SignUp | SignIn,
    request: Request,
    response: Response,
    address: str,
) -> AccountInfo:
    """Sign up or sign in (``how``), then set the session cookie."""
    if not same_origin(request, state.settings.public_url):
        message = "sign-up and sign-in come from this site's pages only"
        raise HTTPException(403, {"code": "cross_site", "message": message})
    try:
        who, token = await how(
            body.name,
            body.password,
            body.guest_tokens,
            request.headers.get("user-agent", ""),
            address,
        )
    except AccountError as e:
        raise _http(e) from None
    _set_cookie(state, request, response, token)
    return await _with_mail(state, who)


@router.post("/api/account/signup", response_model=AccountInfo, status_code=201)
async def sign_up(
    body: Annotated[SignUp, body_of(examples.SIGN_UP)],
    request: Request,
    response: Response,
    state: State,
    address: Address,
) -> AccountInfo:
    """Make an account and sign in (the session is set as a cookie)."""
    return await _enter(state, _account(state).sign_up, body, request, response, address)


@router.post("/api/account/signin", response_model=AccountInfo)
async def sign_in(
    body: Annotated[SignIn, body_of(examples.SIGN_IN)],
    request: Request,
    response: Response,
    state: State,
    address: Address,
) -> AccountInfo:
    """Sign in: a wrong password and an unknown name get the same 401 ``bad_credentials``."""
    return await _enter(state, _account(state).sign_in, body, request, response, address)


@router.get("/api/account", response_model=AccountInfo)
async def account(request: Request, state: State) -> AccountInfo:
    """The signed-in account, with its ratings (401 ``signed_out`` when there is none)."""
    who = await _who(state, request)
    info = await _with_mail(state, who)
    if state.ranked is not None:
        queues = state.ranked.queues
        info.ratings = [
            Rating(
                queue=r.queue,
                preset=queues[r.queue].preset,
                players=queues[r.queue].players,
                rating=ratings.shown(r.score),
                mu=r.mu,
                sigma=r.sigma,
                matches=r.matches,
                provisional=ratings.provisional(r.matches),
            )
            for r in await state.ranked.ratings_of(who.user.id)
            if r.queue in queues
        ]
    return info


@router.post("/api/account/signout", response_model=Ended)
async def sign_out(request: Request, response: Response, state: State) -> Ended:
    """End this session (answers 200 even when it had ended already)."""
    who = await signed_in(state, request)
    _clear_cookie(state, request, response)
    if who is None:
        return Ended(ended=0)
    await _account(state).sign_out(who)
    return Ended(ended=1)


@router.post("/api/account/signout-everywhere", response_model=Ended)
async def sign_out_everywhere(request: Request, response: Response, state: State) -> Ended:
    """End every session of the account, this one included."""
    who = await _who(state, request)
    ended = await _account(state).sign_out_everywhere(who)
    _clear_cookie(state, request, response)
    return Ended(ended=ended)


@router.get("/api/account/sessions", response_model=Sessions)
async def sessions(request: Request, state: State) -> Sessions:
    """The account's sessions (only the signed-in account's own)."""
    who = await _who(state, request)
    listed = await _account(state).sessions(who)
    return Sessions(
        sessions=[
            SessionInfo(
                id=s.id,
                created_at=s.created_at,
                last_seen=s.last_seen,
                expires_at=s.expires_at,
                agent=s.agent,
                current=s.id == who.session.id,
            )
            for s in listed
        ]
    )


@router.delete("/api/account/sessions/{session_id}", response_model=Ended)
async def end_session(
    session_id: SessionId, request: Request, response: Response, state: State
) -> Ended:
    """End one of the account's sessions (404 ``no_session`` for any other id)."""
    who = await _who(state, request)
    try:
        await _account(state).end_session(who, session_id)
    except AccountError as e:
        raise _http(e) from None
    if session_id == who.session.id:
        _clear_cookie(state, request, response)
    return Ended(ended=1)


@router.post("/api/account/password", response_model=Ended)
async def change_password(
    body: Annotated[ChangePassword, body_of(examples.CHANGE_PASSWORD)],
    request: Request,
    response: Response,
    state: State,
    address: Address,
) -> Ended:
    """Change the password; every other session of the account ends, and this one is
    replaced by a new session (a new cookie): the seat tokens every old session obtained
    stop working.  ``ended`` counts the other sessions."""
    who = await _who(state, request)
    before = len(await _account(state).sessions(who))
    try:
        _, token = await _account(state).change_password(
            who, body.current_password, body.new_password, address
        )
    except AccountError as e:
        raise _http(e) from None
    _set_cookie(state, request, response, token)
    return Ended(ended=max(before - 1, 0))


@router.put("/api/account/email", response_model=EmailInfo)
async def set_email(
    body: Annotated[SetEmail, body_of(examples.SET_EMAIL)], request: Request, state: State
) -> EmailInfo:
    """Give the account an e-mail address for turn e-mails (or remove it with null), and
    their language.  A new address gets a confirmation mail, and nothing else until it is
    confirmed; 429 ``mail_limit`` (and nothing changed) past the hourly caps."""
    who = await _who(state, request)
    try:
        mail = await _postbox(state).set_address(who.user, clean_email(body.email), body.language)
    except AccountError as e:
        raise _http(e) from None
    except MailLimited:
        message = "too many e-mails to this account or address: try again in an hour"
        raise _http(AccountError(429, "mail_limit", message)) from None
    return EmailInfo(
        email=mail.email, verified=mail.verified, language=mail.language, sent=mail.sent
    )


@router.get("/api/account/history", response_model=MatchHistory)
async def history(request: Request, state: State) -> MatchHistory:
    """The finished matches of the tables the account sat at, newest first (no cards)."""
    who = await _who(state, request)
    ids = await _account(state).player_ids(who)
    rows = await _history(state).of(ids)
    return MatchHistory(matches=[HistoryMatch.model_validate(row.to_json()) for row in rows])


async def _with_mail(state: ServerState, who: SignedIn) -> AccountInfo:
    """The account as its owner sees it, with whether its address is confirmed."""
    info = _info(who)
    mail = await _postbox(state).state(who.user)
    info.email_verified, info.mail_language = mail.verified, mail.language
    return info


def _postbox(state: ServerState) -> Postbox:
    if state.notifier is None:
        raise RuntimeError("the app is not running")
    return state.notifier.postbox


def _history(state: ServerState) -> History:
    if state.history is None:
        raise RuntimeError("the app is not running")
    return state.history


def _info(who: SignedIn) -> AccountInfo:
    return AccountInfo(name=who.user.name, created_at=who.user.created_at, email=who.user.email)


def SIGNED_OUT_HTTP() -> HTTPException:
    """The refusal of a request that needs a signed-in account."""
    return _http(SIGNED_OUT)


def _http(error: AccountError) -> HTTPException:
    return refused(error.status, error.code, error.message)
