"""Ranked play's HTTP API under /api/ranked (see :mod:`.ranked` and docs/ranked.md).

Queueing needs a signed-in account (the session cookie, docs/accounts.md): a guest's request is
refused with 401 ``account_required``.  The queues and the leaderboards are public.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from ...records.matches import TABLE_SEED_BITS
from ...store import UserRecord
from ..base import examples
from ..base.bodies import RequestBody
from ..base.examples import body as body_of
from ..base.limits import MAX_PLAYERS, MIN_PLAYERS
from ..base.testhooks import DealJson
from ..base.text import CODE_PATTERN
from ..edge.state import ServerState
from ..modes import ratings
from ..play.ranked import Matched, RankedError, StackedHooks, Status, Waiting
from .account_routes import signed_in
from .deps import State, refused

QueueName = Annotated[str, PathParam(max_length=40, pattern=r"^[a-z]{1,32}-\d{1,2}$")]


class JoinQueue(RequestBody):
    preset: str = Field(max_length=32, description="boyo, cabo, kivo or kaboom")
    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS, description="players per match")
    seed: int | None = Field(
        default=None,
        ge=0,
        lt=2**TABLE_SEED_BITS,
        description="test hooks only: the seed of the next match's table",
    )
    # Test hooks only, and free-form here: Ranked checks it as the stacked deal it must be.
    deal: DealJson | None = Field(
        default=None, max_length=8, description="test hooks only: the next match's first deal"
    )


class QueueInfo(BaseModel):
    queue: str = Field(description="<preset>-<players>")
    preset: str
    players: int
    waiting: int = Field(description="players waiting now")
    expected_wait: float | None = Field(
        description="seconds: the median of the queue's recent waits (null before any match)"
    )


class Queues(BaseModel):
    queues: list[QueueInfo]
    provisional_matches: int = Field(description="rated matches before a rating is settled")


class QueueStatus(BaseModel):
    """Where the account is in ranked play: idle, waiting in a queue, or matched (playing)."""

    state: Literal["idle", "waiting", "matched"]
    queue: str | None = None
    preset: str | None = None
    players: int | None = None
    joined_at: float | None = Field(default=None, description="waiting: since when")
    waited: float | None = Field(default=None, description="waiting: seconds so far")
    expected_wait: float | None = Field(
        default=None, description="waiting: the median of the queue's recent waits, in seconds"
    )
    window: int | None = Field(
        default=None,
        description="waiting: how far from your rating (in rating points) a match may be now; "
        "null once any rating will do",
    )
    waiting: int | None = Field(
        default=None, description="waiting: players in the queue, you included"
    )
    code: str | None = Field(default=None, description="matched: the table's code")
    token: str | None = Field(default=None, description="matched: a seat token for your seat")
    seat: int | None = Field(default=None, description="matched: your seat")


class LeaderboardEntry(BaseModel):
    place: int
    name: str
    rating: int = Field(description="the shown rating: 1000 + 40 x (mu - 3 sigma)")
    matches: int
    provisional: bool


class Leaderboard(BaseModel):
    queue: str
    preset: str
    players: int
    total: int = Field(description="rated players in the queue")
    entries: list[LeaderboardEntry]


class SeatResult(BaseModel):
    seat: int
    place: int = Field(description="1 for the lowest total; seats with equal totals share one")
    before: int = Field(description="the shown rating before the match")
    after: int = Field(description="the shown rating after it")


class MatchResult(BaseModel):
    """How a ranked match changed its players' ratings (``rated`` false until it is rated,
    moments after its end; ``seats`` empty then)."""

    code: str
    queue: str
    rated: bool
    draw: bool = Field(description="every seat shares the first place")
    seats: list[SeatResult]


TableCodeParam = Annotated[str, PathParam(max_length=16, pattern=CODE_PATTERN)]


router = APIRouter()


async def _user(state: ServerState, request: Request) -> tuple[UserRecord, str]:
    """The signed-in account and its session's id (seat tokens are bound to it)."""
    who = await signed_in(state, request)
    if who is None:
        message = "ranked play needs an account: sign in or make one first"
        raise refused(401, "account_required", message)
    return who.user, who.session.id


@router.get("/api/ranked/queues", response_model=Queues)
async def queues(state: State) -> Queues:
    """Every ranked queue: how many wait there, how long a wait usually is."""
    ranked = state.ranked_()
    counts = await ranked.store.waiting()
    listed = [
        QueueInfo(
            queue=q.name,
            preset=q.preset,
            players=q.players,
            waiting=counts.get(q.name, 0),
            expected_wait=await ranked.expected(q),
        )
        for q in ranked.queues.values()
    ]
    return Queues(queues=listed, provisional_matches=ratings.PROVISIONAL_MATCHES)


@router.get("/api/ranked/queue", response_model=QueueStatus)
async def status(request: Request, state: State) -> QueueStatus:
    """Where you are: waiting (asking is what keeps you in the queue), matched, or idle."""
    user, session = await _user(state, request)
    return _status(await state.ranked_().status(user, session=session))


@router.post("/api/ranked/queue", response_model=QueueStatus)
async def join(
    body: Annotated[JoinQueue, body_of(examples.JOIN_QUEUE)], request: Request, state: State
) -> QueueStatus:
    """Wait in a queue (leaving any other).  Signed-in accounts only."""
    user, session = await _user(state, request)
    hooks = StackedHooks()
    if body.seed is not None:
        hooks["seed"] = body.seed
    if body.deal is not None:
        hooks["deal"] = body.deal
    try:
        joined = await state.ranked_().join(
            user,
            body.preset,
            body.players,
            hooks if any(hooks.values()) else None,
            session=session,
        )
    except RankedError as e:
        raise refused(e.status, e.code, e.message) from None
    return _status(joined)


@router.delete("/api/ranked/queue", response_model=QueueStatus)
async def leave(request: Request, state: State) -> QueueStatus:
    """Leave the queue (a match already made is not left this way)."""
    ranked = state.ranked_()
    user, session = await _user(state, request)
    await ranked.leave(user)
    return _status(await ranked.status(user, session=session))


@router.get("/api/ranked/leaderboard/{queue}", response_model=Leaderboard)
async def leaderboard(
    queue: QueueName,
    state: State,
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Leaderboard:
    """The queue's ratings, highest first."""
    ranked = state.ranked_()
    found = ranked.queues.get(queue)
    if found is None:
        raise refused(404, "bad_queue", f"there is no ranked queue {queue}")
    board = await ranked.store.leaderboard(queue, limit, offset)
    entries = [
        LeaderboardEntry(
            place=offset + i + 1,
            name=r.name,
            rating=ratings.shown(r.score),
            matches=r.matches,
            provisional=ratings.provisional(r.matches),
        )
        for i, r in enumerate(board)
    ]
    total = await ranked.store.rated_players(queue)
    return Leaderboard(
        queue=queue, preset=found.preset, players=found.players, total=total, entries=entries
    )


@router.get("/api/ranked/match/{code}", response_model=MatchResult)
async def match_result(code: TableCodeParam, state: State) -> MatchResult:
    """The rating change of each seat of the ranked match at table ``code`` (its last
    match), once it is rated.  Public, as the leaderboard is: seats, places and ratings."""
    return await _match_result(state, code)


async def _match_result(state: ServerState, code: str) -> MatchResult:
    ranked = state.ranked_()
    record = await ranked.lobby.store.find_by_code(code)
    match = None if record is None else await ranked.store.ranked_match(record.id)
    if record is None or match is None:
        raise refused(404, "not_found", f"there is no ranked match at table {code}")
    result = match.result or {}
    seats = [
        SeatResult(seat=s["seat"], place=s["place"], before=s["before"], after=s["after"])
        for s in result.get("seats", ())
    ]
    draw = len(seats) > 1 and all(s.place == 1 for s in seats)
    return MatchResult(
        code=record.code,
        queue=match.queue,
        rated=match.rated_at is not None,
        draw=draw,
        seats=sorted(seats, key=lambda s: s.seat),
    )


def _status(status: Status) -> QueueStatus:
    if isinstance(status, Waiting):
        q = status.queue
        return QueueStatus(
            state="waiting",
            queue=q.name,
            preset=q.preset,
            players=q.players,
            joined_at=status.joined_at,
            waited=status.waited,
            expected_wait=status.expected_wait,
            window=status.window,
            waiting=status.waiting,
        )
    if isinstance(status, Matched):
        q = status.queue
        return QueueStatus(
            state="matched",
            queue=q.name,
            preset=q.preset,
            players=q.players,
            code=status.code,
            token=status.token,
            seat=status.seat,
        )
    return QueueStatus(state="idle")
