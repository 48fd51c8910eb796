"""Ranked play: the queues, the matchmaker, and the ratings of finished ranked matches.

A queue per preset and player count (``cabo-4``) lives in the store, not in a process: any
server process may take a player into a queue or tell them how it goes.  The matchmaker of every
queue runs in exactly one process of a cluster at a time: it is the once-per-cluster job
``ranked`` (:meth:`.ownership.Ownership.run_once`), under the fenced lease ``once:ranked``; a
process that dies lets the lease lapse and another takes the job over.  On a single process it
just runs.  Only signed-in accounts queue; ranked tables seat no bot.

Every ``RankedConfig.tick`` seconds the matchmaker looks at each queue: players whose page
stopped asking are taken out, then :func:`.matchmaking.groups` says who plays whom.  Each match
is one store transaction, fenced by the job's lease (the table with its seats, the players out
of the queue, the ranked match): a holder that stalled past its lease makes none.  Then this
process serves the table and starts it.  A round that fails (the store is down for a moment) is
logged, and the next one tries again.  Nobody hosts a ranked table:
it starts at once, plays the ranked format (:data:`.ranked_mode.RANKED_OPTIONS`), offers no
rematch.  A player who leaves and is not back within the grace period forfeits (the table keeps
it in its settings, :meth:`Table.stood_in`): a stand-in bot plays on for them, and they are
ranked last.

When a ranked match ends, its result is read back from the stored log (as the match history
reads it) and rated with OpenSkill (:mod:`.rating`); the ratings and the match's result are one
write that happens once.  A process that starts rates whatever ended unrated (it died first).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypedDict, cast

from ...engine import PRESETS, make_ruleset
from ...records.matches import new_table_seed
from ...store import (
    Lease,
    LeaseLost,
    QueueChanged,
    QueueEntry,
    RankedMatchRecord,
    RankedSeat,
    RankedStore,
    RatingRecord,
    SeatRecord,
    TableExists,
    TableRecord,
    UserRecord,
)
from ..accounts.auth import Tokens
from ..base.clock import Clock
from ..base.limits import check_players
from ..base.testhooks import DEAL, DealJson, stacked_deal
from ..cluster.ownership import Once
from ..modes import ranked_mode, ratings
from ..modes.matchmaking import RankedConfig, expected_wait, groups, reach
from ..modes.modes import TableSettings, settings_of, stored, table_mode
from .creation import new_code
from .lobby import Lobby
from .rating import rate_match

log = logging.getLogger(__name__)

MATCHMAKER = "ranked"  # the once-per-cluster job's name: its lease is "once:ranked"
CODE_TRIES = 20  # join codes drawn for a match's table before giving up (one may be taken)


class RankedError(Exception):
    """A refused ranked request: ``code`` stable, the message readable, ``status`` for HTTP."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class StackedHooks(TypedDict, total=False):
    """Test hooks for a player's next ranked match (only on a server with test hooks)."""

    seed: int  # its table's secret seed
    # Its first deal, as records.matches.stacked_deal reads it (checked there, when it is given).
    deal: DealJson


class MatchmakerLost(LeaseLost):
    """A match refused by its fence: another process holds the matchmaker's lease now (a lost
    lease of a table is a plain LeaseLost, and only fails the round)."""


def queue_name(preset: str, players: int) -> str:
    return f"{preset}-{players}"


@dataclass(frozen=True)
class Queue:
    """A ranked queue: its preset and player count."""

    name: str
    preset: str
    players: int


@dataclass(frozen=True)
class Waiting:
    """A player waiting in a queue: since when, and what to expect."""

    queue: Queue
    joined_at: float
    waited: float
    expected_wait: float | None  # the median of the queue's recent waits (None: no match yet)
    window: int | None  # how far (in shown rating points) the match may be now; None: anyone
    waiting: int  # players waiting in the queue, this one included


@dataclass(frozen=True)
class Matched:
    """A player whose ranked match is being played: where, and a seat token for it."""

    queue: Queue
    table_id: str
    code: str
    seat: int
    token: str


Status = Waiting | Matched | None


class Ranked:
    """The ranked queues and ratings of one server process (see the module docstring)."""

    def __init__(
        self,
        lobby: Lobby,
        tokens: Tokens,
        clock: Clock,
        config: RankedConfig | None = None,
        *,
        test_hooks: bool = False,
    ) -> None:
        self.lobby = lobby
        self.store = cast(RankedStore, lobby.store)
        self.tokens = tokens
        self.clock = clock
        self.config = config or RankedConfig()
        self.test_hooks = test_hooks
        self.queues = _queues(self.config.sizes)
        self._stacked: dict[str, StackedHooks] = {}  # test hooks: user id -> seed, deal
        self._matchmaker: Once | None = None
        self._ticking = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()  # ratings under way
        self._serving: set[asyncio.Task[Any]] = set()  # matches being written and started
        self._closed = False
        lobby.ctx.hooks.finished.append(self._finished)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Rate what ended unrated, start ranked tables a crash left unstarted, then match (in
        this process while it holds the matchmaker's lease: see the module docstring)."""
        await self.resume()
        if not self._closed:
            self._matchmaker = self.lobby.ownership.run_once(MATCHMAKER, self.matchmaker)

    async def close(self) -> None:
        self._closed = True
        if self._matchmaker is not None:
            await self._matchmaker.stop()  # in a cluster its lease goes: another takes over
        for task in list(self._serving):  # a match written is served before this one stops
            try:
                await task
            except (asyncio.CancelledError, Exception):
                log.debug("a ranked match failed while closing", exc_info=True)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            try:
                await task
            except (asyncio.CancelledError, Exception):
                log.debug("a ranked task ended while closing", exc_info=True)

    async def matchmaker(self, lease: Lease | None) -> None:
        """The matchmaking job: a round every ``tick`` seconds, for as long as it runs.

        It runs until it is stopped (the lease was lost, or the process closes), never ending
        by itself.  A round that fails is logged and the next one tries again; only a refused
        fence (:class:`MatchmakerLost`: another process holds the job now) ends it, so that
        :meth:`~.ownership.Ownership.run_once` waits for the lease again."""
        while True:
            await self._pause(self.config.tick)
            try:
                await self.tick(lease)
            except MatchmakerLost:
                log.warning("ranked matchmaking: the lease was taken over; it stops here")
                raise
            except Exception:  # the store may be down for a moment: the next round tries again
                log.exception("ranked matchmaking failed; trying again at the next tick")

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` on this service's clock (a test's clock moves by hand)."""
        woken = asyncio.get_running_loop().create_future()

        async def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        alarm = self.clock.call_at(self.clock.now() + seconds, wake)
        try:
            await woken
        finally:
            alarm.cancel()

    async def resume(self) -> None:
        for match in await self.store.unrated_matches():
            record = await self.lobby.store.get_table(match.table_id)
            if record is None:
                continue
            if record.status == "finished":
                await self.rate(match.table_id)
            elif record.status == "lobby":  # made, but the process died before it started
                table = await self.lobby.find(record.code)
                await table.start(ranked_mode.RANKED_HOST)

    # ------------------------------------------------------------------ the queue
    def queue(self, preset: str, players: int) -> Queue:
        found = self.queues.get(queue_name(preset, players))
        if found is None:
            offered = ", ".join(sorted(self.queues))
            message = f"there is no ranked queue {preset}-{players}: the queues are {offered}"
            raise RankedError("bad_queue", message, 422)
        return found

    async def join(
        self,
        user: UserRecord,
        preset: str,
        players: int,
        hooks: StackedHooks | None = None,
        *,
        session: str,
    ) -> Status:
        """The account waits in the queue (leaving any other); its status (a seat token in it
        is bound to the account's ``session``)."""
        queue = self.queue(preset, players)
        old_enough = user.created_at + self.config.min_account_age
        if self.clock.now() < old_enough:
            hours = max(1, -(-int(old_enough - self.clock.now()) // 3600))
            message = (
                "a new account plays ranked once it is "
                f"{self.config.min_account_age / 3600:g} hours old: {hours} more hour(s)"
            )
            raise RankedError("account_too_new", message, 403)
        if hooks:
            self._stacked[user.id] = self._checked_hooks(queue, hooks)
        if await self._playing(user, session) is not None:
            message = "you are in a ranked match: finish it before queueing again"
            raise RankedError("in_ranked_match", message, 409)
        await self.store.enqueue(user.id, queue.name, self.clock.now())
        return await self.status(user, session=session)

    async def leave(self, user: UserRecord) -> None:
        await self.store.dequeue(user.id)
        self._stacked.pop(user.id, None)

    async def status(self, user: UserRecord, *, session: str) -> Status:
        """Where the account is: playing a ranked match (with a seat token bound to the
        account's ``session``), waiting in a queue, or neither.  A waiting player's asking is
        what keeps them in the queue."""
        playing = await self._playing(user, session)
        if playing is not None:
            return playing
        entry = await self.store.queue_entry(user.id)
        if entry is None:
            # A match may have been made between the two reads (in one transaction it takes the
            # player out of the queue and stores the match): look again, or the player would
            # be told they wait nowhere.
            return await self._playing(user, session)
        if entry.queue not in self.queues:
            return None
        now = self.clock.now()
        if now - entry.seen_at >= self.config.touch_every:
            await self.store.touch_queue(user.id, now)
        return await self._waiting(entry, now)

    async def _waiting(self, entry: QueueEntry, now: float) -> Waiting:
        waited = max(now - entry.joined_at, 0.0)
        far = reach(waited, self.config.window)
        waits = await self.store.recent_waits(entry.queue, self.config.waits_kept)
        counts = await self.store.waiting()
        return Waiting(
            queue=self.queues[entry.queue],
            joined_at=entry.joined_at,
            waited=waited,
            expected_wait=expected_wait(waits),
            window=None if far == float("inf") else round(far * ratings.SHOWN_SCALE),
            waiting=counts.get(entry.queue, 0),
        )

    async def _playing(self, user: UserRecord, session: str) -> Matched | None:
        """The account's ranked match being played, if any (the newest)."""
        for match in reversed(await self.store.unrated_matches(user.id)):
            table = self.lobby.tables.get(match.table_id)
            record = (
                table.record
                if table is not None
                else await self.lobby.store.get_table(match.table_id)
            )
            if record is None or record.status not in ("lobby", "playing"):
                continue
            seat = next(s.seat for s in match.seats if s.user_id == user.id)
            _, token = self.tokens.issue(
                user.name, user.player_id, session=session, table=match.table_id
            )
            queue = self.queues.get(match.queue) or Queue(match.queue, record.preset, 0)
            return Matched(queue, match.table_id, record.code, seat, token)
        return None

    async def expected(self, queue: Queue) -> float | None:
        return expected_wait(await self.store.recent_waits(queue.name, self.config.waits_kept))

    # ------------------------------------------------------------------ matchmaking
    async def tick(self, lease: Lease | None = None) -> int:
        """One round of matchmaking over every queue; the matches made.  ``lease`` is the
        matchmaker's (None on a single process): each match is fenced by it, so once another
        process has taken the job over, the first match tried raises MatchmakerLost (a
        LeaseLost) and none is made.  Taking out the unseen players is left unfenced: a stale
        round applies the holder's rule to the same stored times, so it takes out only whom
        the holder would."""
        made = 0
        async with self._ticking:
            now = self.clock.now()
            for name in sorted(await self.store.waiting()):
                queue = self.queues.get(name)
                if queue is None:
                    continue
                for gone in await self.store.drop_unseen(name, now - self.config.unseen_after):
                    self._stacked.pop(gone, None)
                entries = await self.store.queue_entries(name)
                for group in groups(entries, queue.players, now, self.config.window):
                    if await self._make_match(queue, group, now, lease):
                        made += 1
        return made

    async def _make_match(
        self, queue: Queue, group: list[QueueEntry], now: float, lease: Lease | None
    ) -> bool:
        users: list[UserRecord] = []
        for entry in group:
            user = await self.lobby.store.get_user(entry.user_id)
            if user is None:
                return False
            users.append(user)
        joined = {e.user_id: e.joined_at for e in group}
        hooks = next((self._stacked[u.id] for u in users if u.id in self._stacked), StackedHooks())
        secrets.SystemRandom().shuffle(users)  # who sits where (the engine says who starts)
        rules = make_ruleset(queue.preset, ranked_mode.RANKED_OPTIONS)
        settings: TableSettings = {
            "peek_seconds": self.config.peek_seconds,
            "turn_seconds": self.config.turn_seconds,
            ranked_mode.MODE: ranked_mode.RANKED,
        }
        if "deal" in hooks:
            settings[DEAL] = hooks["deal"]
        seats = tuple(SeatRecord(i, "human", u.name, u.player_id) for i, u in enumerate(users))
        ranked_seats = tuple(
            RankedSeat(i, u.id, max(now - joined[u.id], 0.0)) for i, u in enumerate(users)
        )
        seed = hooks.get("seed")

        def draft(table_id: str) -> TableRecord:  # a new code (and seed) at each try
            return TableRecord(
                id=table_id,
                code=new_code(),
                preset=queue.preset,
                rules=rules.to_json(),
                seed=seed if seed is not None else new_table_seed(),
                host_id=ranked_mode.RANKED_HOST,
                settings=stored(settings),
                status="lobby",
                seats=seats,
                created_at=now,
                updated_at=now,
            )

        match = RankedMatchRecord("", queue.name, now, ranked_seats)
        # Not to be cancelled half-way (a lost lease stops the job at once): a table whose
        # lease was taken is stored, or let go, and a table stored is served and started here.
        task = asyncio.get_running_loop().create_task(self._write_and_serve(draft, match, lease))
        self._serving.add(task)
        task.add_done_callback(self._serving.discard)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(_log_failure)  # nobody waits for it now
            raise

    async def _write_and_serve(
        self, draft: Callable[[str], TableRecord], match: RankedMatchRecord, lease: Lease | None
    ) -> bool:
        """Store the match with its table (fenced by the matchmaker's ``lease``), then serve
        and start the table; False when a player left meanwhile (the others wait on)."""
        table_id, table_lease = await self.lobby.reserve()
        match = replace(match, table_id=table_id)
        try:
            for attempt in range(CODE_TRIES):
                record = draft(table_id)
                try:
                    await self.store.create_ranked_match(record, match, lease=lease)
                    break
                except LeaseLost as e:  # the only lease this write is fenced by: the job's
                    raise MatchmakerLost(str(e)) from None
                except TableExists:
                    if attempt == CODE_TRIES - 1:
                        raise
        except QueueChanged:
            self.lobby.release(table_id)
            return False
        except BaseException:
            self.lobby.release(table_id)
            raise
        for seat in match.seats:  # their test hooks were for this match
            self._stacked.pop(seat.user_id, None)
        table = await self.lobby.adopt(record, table_lease)
        await table.start(ranked_mode.RANKED_HOST)
        return True

    def _checked_hooks(self, queue: Queue, hooks: StackedHooks) -> StackedHooks:
        """A seed and a stacked deal for the next match of this player (test hooks only)."""
        if not self.test_hooks:
            raise RankedError("test_hooks_off", "seed and deal are test hooks", 403)
        checked = StackedHooks()
        if hooks.get("seed") is not None:
            checked["seed"] = hooks["seed"]
        if hooks.get("deal") is not None:
            rules = make_ruleset(queue.preset, ranked_mode.RANKED_OPTIONS)
            try:
                stacked_deal(rules, queue.players, hooks["deal"])
            except ValueError as e:
                raise RankedError("bad_deal", str(e), 400) from None
            checked["deal"] = hooks["deal"]
        return checked

    # ------------------------------------------------------------------ ratings
    def _finished(self, record: TableRecord) -> None:
        """A table's match ended (under its lock): a ranked one is rated soon after."""
        if not table_mode(settings_of(record)).rated or self._closed:
            return
        task = asyncio.get_running_loop().create_task(self._rate_logged(record.id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _rate_logged(self, table_id: str) -> None:
        try:
            await self.rate(table_id)
        except Exception:  # the next start rates it (it stays unrated in the store)
            log.exception("ranked match %s could not be rated now", table_id)

    async def rate(self, table_id: str) -> bool:
        """Rate a finished ranked match from its stored log, once; True when this did it."""
        return await rate_match(self.lobby.store, self.store, table_id, self.clock, self.config)

    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        return await self.store.ratings_of(user_id)


def _log_failure(task: asyncio.Task[bool]) -> None:
    """A match whose round was stopped before it ended: its failure, if any, is logged."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a ranked match failed", exc_info=task.exception())


def _queues(sizes: tuple[int, ...]) -> dict[str, Queue]:
    """Every preset's queue for each player count its ranked rules deal for."""
    found: dict[str, Queue] = {}
    for preset in PRESETS:
        rules = make_ruleset(preset, ranked_mode.RANKED_OPTIONS)
        for players in sizes:
            try:
                check_players(rules, players)
            except ValueError:
                continue
            name = queue_name(preset, players)
            found[name] = Queue(name, preset, players)
    return found
