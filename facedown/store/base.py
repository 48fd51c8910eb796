"""The store's interface: the one async API the server persists its tables, accounts, ranked
play, mail and scoreboards with (:class:`Store` and its companions).  The records it stores and
the errors it raises are in :mod:`.records`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any, Protocol

from .records import (
    Lease,
    LogEntry,
    MailAccount,
    QueueEntry,
    RankedMatchRecord,
    RatingRecord,
    ScoreboardRecord,
    SessionRecord,
    TableRecord,
    UserRecord,
)


def mail_room(cap: int, before: int, carried: float) -> int:
    """A mail cap's room in the current hour: ``cap`` less the share ``carried`` of the
    hour before's count ``before``, rounded up (see ``take_mail``)."""
    return cap - math.ceil(before * carried)


class Store(Protocol):
    """Async persistence of tables and their logs. Every method is atomic and durable on return.

    Rules, settings and payloads must be JSON (no NaN or infinity) and come back as a JSON round
    trip returns them (tuples as lists, keys as strings); the seed must be -2**63 to
    2**128 - 1 and seq be 1 to 2**31 - 1.  Anything refused, and any database failure, raises
    StoreError and changes nothing.  Implementations: ``sql.SqlStore`` (SQLite, PostgreSQL)
    and ``memory.MemoryStore`` (tests).
    """

    # Whether several server processes may share it (a cluster): PostgreSQL, and the memory
    # store for the apps of one test process; not a SQLite file, which has one writer.
    shared: bool

    async def create_table(self, record: TableRecord) -> None:
        """Insert a new table with its seats; raise TableExists when its id or code is taken.

        Codes are stored upper-case, and a record read back carries the upper-case code.
        """

    async def get_table(self, table_id: str) -> TableRecord | None: ...

    async def find_by_code(self, code: str) -> TableRecord | None:
        """The table with this join code (codes are case-insensitive)."""

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        """Replace the table's mutable fields: settings, status, seats, deadline, damage, ...

        Every field but ``id``, ``code`` and ``created_at`` is rewritten (so preset, rules, seed
        and host_id too), and the seats are replaced as a whole, in one transaction.  Raise
        StoreError when there is no such table.  With ``lease`` the write is fenced: in the
        same transaction the stored lease must still have that owner and fence, else
        LeaseLost and nothing is written (so for every fenced write below).
        """

    async def update_settings(
        self, table_id: str, settings: dict[str, Any], *, lease: Lease | None = None
    ) -> None:
        """Replace the table's settings, and nothing else: ``updated_at``, the seats and every
        other field stay as stored (one column written, for bookkeeping a table keeps in its
        settings that is no change of the table to those who read ``updated_at``: whose
        moment is over).  Raise StoreError when there is no such table; fenced with ``lease``
        as :meth:`update_table` is.
        """

    async def append(self, table_id: str, entry: LogEntry, *, lease: Lease | None = None) -> None:
        """Append a log entry; raise SequenceConflict when ``entry.seq`` is taken.

        Raise StoreError when there is no such table.  The store does not check for gaps:
        numbering is the table actor's job.
        """

    async def append_and_update(
        self, record: TableRecord, entry: LogEntry, *, lease: Lease | None = None
    ) -> None:
        """Append ``entry`` to the log of ``record.id`` and update the table to ``record``, in
        one transaction: both are durable on return, or neither happened.

        A change of a table's state that has a log entry (a match starts, a match ends) is
        written so, and a crash can never leave the record and the log disagreeing.  Raise
        SequenceConflict when ``entry.seq`` is taken and StoreError when there is no such
        table; the record is rewritten as :meth:`update_table` does.
        """

    async def log(self, table_id: str, after: int = 0) -> list[LogEntry]:
        """The table's log entries with seq > ``after``, in order."""

    async def active_tables(self) -> list[TableRecord]:
        """Tables in the lobby or playing: what a restarted server must bring back.

        Ordered by ``created_at``, then ``id``.
        """

    async def broken_tables(self) -> list[TableRecord]:
        """Tables marked broken (status ``broken``), ordered as :meth:`active_tables`."""

    async def ping(self) -> None:
        """Return once the database answers a trivial query; raise StoreError when it does not
        (the readiness check: the store is reachable)."""

    async def player_tables(self, player_ids: Sequence[str], limit: int) -> list[TableRecord]:
        """Tables where one of ``player_ids`` holds a seat, most recently updated first (then by
        id), at most ``limit`` of them."""

    # ------------------------------------------------------------------ leases

    async def take_lease(self, name: str, owner: str, seconds: float) -> Lease | None:
        """Take the lease ``name`` for ``owner`` until ``seconds`` from now, in one statement:
        when nobody held it (fence 1), when it expired (fence one higher), or when ``owner``
        holds it already (renewed, the same fence).  None when another owner holds it."""

    async def renew_leases(self, owner: str, names: Sequence[str], seconds: float) -> set[str]:
        """Extend each of ``names`` that ``owner`` still holds (expired or not, as long as
        nobody took it over) to ``seconds`` from now; the names renewed."""

    async def release_leases(self, owner: str, names: Sequence[str]) -> None:
        """End ``owner``'s hold of ``names`` now (they expire: anyone may take them at once)."""

    async def get_lease(self, name: str) -> tuple[Lease, bool] | None:
        """The stored lease and whether it is still valid (unexpired) by the store's clock."""

    async def cluster_id(self) -> int:
        """A random number made once for this database and kept in it: the processes sharing
        the database are one cluster, and name their Redis channels by it."""

    async def unowned_tables(self, limit: int) -> list[str]:
        """Ids of tables in the lobby or playing whose lease is missing or expired (at most
        ``limit``, oldest tables first): what a cluster's processes take over."""

    # ------------------------------------------------------------------ accounts

    async def create_user(self, user: UserRecord, guest_ids: Sequence[str] = ()) -> None:
        """Insert an account holding ``user.player_id`` and each of ``guest_ids`` not held by
        another account yet (those are skipped), in one transaction.

        Raise UserExists when the id, ``name_key`` or ``name_skeleton`` is taken, and
        PlayerTaken when ``user.player_id`` belongs to another account; nothing is written
        then."""

    async def get_user(self, user_id: str) -> UserRecord | None: ...

    async def find_user(self, name_key: str) -> UserRecord | None:
        """The account whose folded name is ``name_key``."""

    async def find_lookalike(self, name_skeleton: str) -> UserRecord | None:
        """The account whose name has this skeleton (looks the same), if any."""

    async def owner_of_player(self, player_id: str) -> str | None:
        """The id of the account holding ``player_id``, if any."""

    async def link_players(self, user_id: str, player_ids: Sequence[str], at: float) -> list[str]:
        """Give the account each of ``player_ids`` that no account holds yet; return those it
        holds now that it did not before.  Raise StoreError when there is no such account."""

    async def user_players(self, user_id: str) -> list[str]:
        """Every player id the account holds: its own first, then the others (any order);
        empty when there is no such account."""

    async def set_password(
        self,
        user_id: str,
        password_hash: str,
        at: float,
        *,
        end_sessions: bool = True,
        keep_session: str | None = None,
    ) -> None:
        """Replace the account's password hash and (with ``end_sessions``) end every session of
        the account but ``keep_session``, in one transaction.  A rehash of the same password
        (new argon2 parameters) passes ``end_sessions=False``.  Raise StoreError when there is
        no such account."""

    async def set_email(self, user_id: str, email: str | None, at: float) -> None:
        """Set (or with None remove) the account's e-mail address.  Raise StoreError when there
        is no such account."""

    async def create_session(self, session: SessionRecord) -> None:
        """Insert a session (and drop the account's sessions that have expired by
        ``session.created_at``).  Raise StoreError when the account does not exist or the
        token hash or id is taken."""

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        """The session whose token has this SHA-256, expired or not (the caller checks)."""

    async def touch_session(self, session_id: str, last_seen: float) -> None:
        """Note that the session was used at ``last_seen`` (no error when it is gone)."""

    async def user_sessions(self, user_id: str) -> list[SessionRecord]:
        """The account's sessions, newest first (then by id)."""

    async def live_sessions(self, session_ids: Collection[str], now: float) -> dict[str, str]:
        """Of these sessions, the ones that exist and expire after ``now``: each one's id with
        its account's id (one read for many accounts: what the check of open seats asks)."""

    async def delete_session(self, user_id: str, session_id: str) -> bool:
        """End one session of this account; False when the account has no such session (a
        session of another account is never touched)."""

    async def delete_sessions(self, user_id: str, keep: str | None = None) -> int:
        """End every session of the account but ``keep``; how many ended."""

    async def token_floors(self) -> dict[str, int]:
        """Every guest who rotated their session token, with the earliest issue time (unix
        milliseconds) still valid for them: what a restarted server must keep refusing."""

    async def set_token_floor(self, player_id: str, valid_from: int) -> None:
        """Refuse the tokens of ``player_id`` issued before ``valid_from`` (ms), for good.

        A floor only rises: a lower one than stored changes nothing."""

    async def close(self) -> None:
        """Release connections; any later call raises StoreError."""


class ScoreboardStore(Protocol):
    """Async persistence of the scoreboards of paper games (``sql.SqlStore`` and
    ``memory.MemoryStore`` are both a Store and a ScoreboardStore).  Atomic and durable on
    return, like :class:`Store`; anything refused raises StoreError and changes nothing."""

    async def create_scoreboard(self, record: ScoreboardRecord) -> None:
        """Insert a new scoreboard; raise TableExists when its id or view key is taken."""

    async def get_scoreboard(self, board_id: str) -> ScoreboardRecord | None: ...

    async def find_scoreboard(self, view_key: str) -> ScoreboardRecord | None:
        """The scoreboard whose read-only link has this key (keys are case-sensitive)."""

    async def update_scoreboard(self, record: ScoreboardRecord, base: int) -> None:
        """Replace the board's names, rounds and revision, only if its stored revision is still
        ``base``: raise RevisionConflict when it is not, StoreError when there is no board."""


class RankedStore(Protocol):
    """Async persistence of ranked play: the queues, the ranked matches and the ratings
    (``sql.SqlStore`` and ``memory.MemoryStore`` are both).  Atomic and durable on return, like
    :class:`Store`.  Which process matches is not the queues' business: the matchmaker runs
    under a lease of the :class:`Store` (``once:ranked``), and fences its matches with it."""

    async def enqueue(self, user_id: str, queue: str, joined_at: float) -> None:
        """The account waits in ``queue`` from ``joined_at`` (it leaves any other queue: one
        queue at a time; joining the same queue again keeps its place), seen then.  Raise
        StoreError when there is no such account."""

    async def dequeue(self, user_id: str) -> bool:
        """The account leaves its queue; False when it waited in none."""

    async def touch_queue(self, user_id: str, seen_at: float) -> None:
        """The account still waits (its page asked at ``seen_at``); nothing when it waits in no
        queue."""

    async def drop_unseen(self, queue: str, before: float) -> list[str]:
        """Take out of ``queue`` everyone not seen since ``before`` (their page is gone); the
        user ids taken out."""

    async def queue_entry(self, user_id: str) -> QueueEntry | None:
        """Where the account waits, if anywhere (with its rating in that queue)."""

    async def queue_entries(self, queue: str) -> list[QueueEntry]:
        """Everyone waiting in ``queue``, longest waiting first (then by user id)."""

    async def waiting(self) -> dict[str, int]:
        """How many wait in each queue that has anyone waiting."""

    async def create_ranked_match(
        self, record: TableRecord, match: RankedMatchRecord, *, lease: Lease | None = None
    ) -> None:
        """In one transaction: create the table ``record`` (as :meth:`Store.create_table`), take
        each seat's account out of ``match.queue`` and store the ranked match.  Raise
        QueueChanged when one of them no longer waits in that queue and TableExists when the
        table's id or code is taken; nothing is written then.  With ``lease`` (the
        matchmaker's) the write is fenced as :meth:`Store.update_table` is: LeaseLost, and
        nothing written, once the stored lease has another owner or fence."""

    async def ranked_match(self, table_id: str) -> RankedMatchRecord | None: ...

    async def unrated_matches(self, user_id: str | None = None) -> list[RankedMatchRecord]:
        """Ranked matches not rated yet (every one, or those with ``user_id`` in a seat),
        oldest first."""

    async def rated_matches(
        self, user_id: str, queue: str, since: float
    ) -> list[RankedMatchRecord]:
        """The ranked matches of ``queue`` with ``user_id`` in a seat that were rated at
        ``since`` or later, oldest first (what one opponent gave another lately)."""

    async def rate_match(
        self, table_id: str, at: float, result: dict[str, Any], ratings: Sequence[RatingRecord]
    ) -> bool:
        """Mark the match rated with ``result`` and write the seats' new ratings, in one
        transaction, once: False (and nothing written) when it was rated already."""

    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        """The account's ratings, one per queue it played, by queue."""

    async def ratings_in(self, queue: str, user_ids: Sequence[str]) -> list[RatingRecord]:
        """The ratings of these accounts in ``queue`` (those that have one)."""

    async def leaderboard(self, queue: str, limit: int, offset: int = 0) -> list[RatingRecord]:
        """The queue's ratings, highest score first (then more matches, then by user id), with
        the accounts' names."""

    async def rated_players(self, queue: str) -> int:
        """How many accounts have a rating in ``queue``."""

    async def recent_waits(self, queue: str, limit: int) -> list[float]:
        """How long the players of the queue's latest ``limit`` matched seats waited."""


class MailStore(Protocol):
    """Async persistence of what turn e-mails need (``sql.SqlStore`` and
    ``memory.MemoryStore`` are both): each account's mail settings and confirmation, and the
    hourly counts of mail sent.  Atomic and durable on return, like :class:`Store`."""

    async def mail_account(self, user_id: str) -> MailAccount | None:
        """The account's mail settings; None when it never had any."""

    async def save_mail_account(self, record: MailAccount) -> None:
        """Insert or replace the account's mail settings.  Raise StoreError when there is no
        such account."""

    async def confirm_mail(self, token_hash: str, at: float) -> MailAccount | None:
        """Use the confirmation whose token has this SHA-256, once: it is cleared whatever
        happens; when it has not expired by ``at`` and its address is still the account's,
        that address is now the verified one.  The record as it was before (None when no
        confirmation has this token, or it was used already)."""

    async def unsubscribe_mail(self, user_id: str, address: str, at: float) -> bool:
        """Remove the account's e-mail address if it is still ``address``; whether it was.
        Every confirmation of the account is forgotten with it, made or on its way (whatever
        its spelling: ``Ann@`` and ``ann+x@`` reach the same mailbox): the account naming an
        address again sends a new one, which the mailbox must take up itself."""

    async def take_mail(
        self, caps: Sequence[tuple[str, int]], hour: int, carried: float = 0.0
    ) -> bool:
        """Count one mail against every key of ``caps`` in the hour ``hour`` (unix hours), if
        each key's count is below its cap; else count nothing and answer False (two stores
        of one database counting at once may leave one key counted for a refused mail, never
        one past its cap).  ``carried``: the share (0 to 1) of the hour before's count that
        still counts against the cap, rounded up (the part of that hour still within the last
        60 minutes), so that a new clock hour does not give the caps again at once.  The
        counts of the hours before that may go."""
