"""What the store holds: its records (tables, logs, leases, accounts, ranked play, mail,
scoreboards) and the errors its operations raise.

A table is stored as its ruleset, its secret seed, its settings and seats, and an append-only log
of commands (actions and table commands) numbered by the table's sequence number.  Replaying the
log rebuilds the table exactly; that is how a restarted server recovers every game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

TableStatus = Literal["lobby", "playing", "finished", "closed", "broken"]
SeatKind = Literal["open", "human", "bot"]
ACTIVE_STATUSES: tuple[TableStatus, ...] = ("lobby", "playing")  # what active_tables returns
# "broken": the server could not rebuild the table from its record and log; it is kept, with why
# (``damage``), for an operator, and not served or loaded again until someone repairs it.


class StoreError(Exception):
    """A storage operation failed (not found, conflict, or the database is unreachable)."""


class DatabaseDamaged(StoreError):
    """The database file fails its integrity check: it must not be served (restore a backup)."""


class SequenceConflict(StoreError):
    """A log entry with this sequence number already exists for the table (another writer)."""


class LeaseBusy(StoreError):
    """A lease could not be taken now: its row is locked by a write under way (on PostgreSQL, a
    stalled owner's open transaction), and a takeover never waits on a lock.  Nothing changed;
    the caller may try again (the database ends a stalled transaction within
    ``IDLE_IN_TRANSACTION_SECONDS``, :mod:`facedown.store.database`)."""


class LeaseLost(StoreError):
    """A fenced write refused: its lease is no longer held as it was (another process took the
    table over, whose fence is higher).  Nothing was written."""


class TableExists(StoreError):
    """A table with this id or join code already exists (pick another code and retry)."""


class UserExists(StoreError):
    """An account with this name (as compared: ``name_key``) or this id already exists."""


class PlayerTaken(StoreError):
    """The player id an account was to sit with already belongs to another account."""


@dataclass(frozen=True)
class SeatRecord:
    """One seat at a table."""

    seat: int
    kind: SeatKind = "open"
    name: str = ""
    player_id: str | None = None  # the guest (or later the account) holding the seat
    bot_level: str | None = None


@dataclass(frozen=True)
class TableRecord:
    """A table's durable description. ``seed`` is secret: it never leaves the server."""

    id: str
    code: str
    preset: str
    rules: dict[str, Any]  # Ruleset.to_json()
    seed: int
    host_id: str
    settings: dict[str, Any] = field(default_factory=dict)  # timers, rounds, mode, ...
    status: TableStatus = "lobby"
    seats: tuple[SeatRecord, ...] = ()
    deadline: float | None = None  # unix time of the running timer, if any
    deadline_kind: str | None = None  # what the timer is for ("peek", "turn", "grace:<seat>")
    created_at: float = 0.0
    updated_at: float = 0.0
    damage: str | None = None  # why a broken table could not be rebuilt (for operators only)


class RevisionConflict(StoreError):
    """A scoreboard changed since the revision an edit was based on (another device edited it)."""


@dataclass(frozen=True)
class ScoreboardRecord:
    """A paper game's scoreboard: who plays, how it scores, and the rounds as entered.

    ``id`` is the SHA-256 (hex) of the board's secret edit key, which is never stored;
    ``view_key`` is the secret of its read-only link.  ``rounds`` are the paper rounds as
    entered (``{"hand_totals": [...], "caller": -1, "moon": -1}``): the scores are the engine's
    to compute, never stored.  ``revision`` counts the changes (0 when created).
    """

    id: str
    view_key: str
    names: tuple[str, ...]
    preset: str
    options: dict[str, Any] = field(default_factory=dict)  # ruleset fields changed
    placement: dict[str, Any] | None = None  # {"points": [...], "rounds": n}
    rounds: tuple[dict[str, Any], ...] = ()
    revision: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0


TABLE_LEASE = "table:"  # the lease of a table is named TABLE_LEASE + its id


def table_lease(table_id: str) -> str:
    """The name of the lease that says which process owns the table."""
    return TABLE_LEASE + table_id


@dataclass(frozen=True)
class Lease:
    """``owner`` holds the lease ``name`` until ``expires_at`` (unix seconds on the store's clock:
    PostgreSQL's on PostgreSQL, so that the processes' own clocks never decide who owns what).
    ``fence`` grows by one at each takeover: a write made with a lease is refused
    (:class:`LeaseLost`) once the stored lease has another owner or fence."""

    name: str
    owner: str
    fence: int
    expires_at: float


@dataclass(frozen=True)
class LogEntry:
    """One command in a table's log, in the order it was applied."""

    seq: int  # 1, 2, 3, ... per table, no gaps
    kind: str  # "action", "start", "rematch", "seat", ...
    payload: dict[str, Any]
    created_at: float = 0.0


@dataclass(frozen=True)
class UserRecord:
    """An account.  ``password_hash`` is an argon2 hash; it never leaves the server."""

    id: str
    name: str  # as the player wrote it (NFKC since revision 0011, NFC before)
    name_key: str  # the name folded for comparison: unique
    password_hash: str
    player_id: str  # the player id the account sits with at new tables
    created_at: float = 0.0
    updated_at: float = 0.0
    email: str | None = None  # where turn e-mails go (revision 0007); only its owner sees it
    # What the name looks like (revision 0011, facedown/names.py): no two accounts
    # share one.
    name_skeleton: str | None = None


@dataclass(frozen=True)
class MailAccount:
    """What turn e-mails need besides ``UserRecord.email`` (revision 0010): the language the
    account's mails are written in, the address its owner confirmed (mail goes out only while
    it is still the account's address), and the pending confirmation: the address a link was
    mailed for, the SHA-256 of that link's token, and when the link expires."""

    user_id: str
    language: str = "en"
    verified: str | None = None
    pending: str | None = None
    token_hash: str | None = None
    token_expires: float | None = None


@dataclass(frozen=True)
class SessionRecord:
    """A signed-in session.  The token is never stored: ``token_hash`` is its SHA-256 (hex)."""

    id: str  # public: how the account's owner names the session to revoke it
    user_id: str
    token_hash: str
    created_at: float = 0.0
    last_seen: float = 0.0
    expires_at: float = 0.0
    agent: str = ""  # the browser, from its User-Agent (shortened)


class QueueChanged(StoreError):
    """A ranked match was to take players who no longer wait in its queue (one left, or moved)."""


@dataclass(frozen=True)
class QueueEntry:
    """An account waiting in a ranked queue, with its rating there (None: never rated)."""

    user_id: str
    queue: str  # "<preset>-<players>", e.g. "cabo-4"
    joined_at: float
    seen_at: float = 0.0  # the last time the player said it still waits (its page asked)
    mu: float | None = None
    sigma: float | None = None


@dataclass(frozen=True)
class RatingRecord:
    """An account's rating in one ranked queue.  ``score`` is the conservative rating the
    leaderboard sorts by (mu - 3 sigma); ``name`` is filled in on reads, for showing."""

    user_id: str
    queue: str
    mu: float
    sigma: float
    score: float
    matches: int
    updated_at: float = 0.0
    name: str = ""


@dataclass(frozen=True)
class RankedSeat:
    """A seat of a ranked match: the account in it, and how long it waited to be matched."""

    seat: int
    user_id: str
    waited: float


@dataclass(frozen=True)
class RankedMatchRecord:
    """A ranked match: the table it is played at, its queue, its seats; once it is rated, when
    and with what result (each seat's place and rating before and after)."""

    table_id: str
    queue: str
    created_at: float
    seats: tuple[RankedSeat, ...] = ()
    rated_at: float | None = None
    result: dict[str, Any] | None = None
