"""The database schema, declared once for the store and for the migrations.

``tables`` holds a table's durable description, ``seats`` its seats, and ``table_log`` its
append-only command log, whose primary key (table_id, seq) is what makes a second writer of the
same sequence number fail instead of forking the game.  Accounts (revision 0003): ``users``
(a name, an argon2 hash, the player id the account sits with), ``user_players`` (every player
id the account holds: its own and the guest ids it took over) and ``sessions`` (only the
SHA-256 of each session token).  ``store_meta`` counts commits (store/commits.py) and
``token_floors`` keeps session-token rotations (server/accounts/auth.py), revision 0004;
``scoreboards`` holds the scoreboards of paper games (revision 0005).  Ranked play (revision
0006): ``ranked_queue`` (who waits in which queue), ``ranked_matches`` and ``ranked_seats``
(the matches made, who sat where, how long each waited) and ``ratings`` (one per account and
queue).  ``users.email`` is where a player's turn e-mails go (revision 0007).  ``leases`` says
which server process owns each table of a cluster, or runs a once-per-cluster job such as the
ranked matchmaker (revision 0008; revision 0009 dropped 0006's ``queue_leases``, which the
matchmaker no longer needs).  Turn e-mails (revision 0010): ``mail_accounts`` (an account's
mail language, its confirmed address and its pending confirmation) and ``mail_counts`` (mail
sent per account and per address in each hour, for the hourly caps).  Times are unix seconds
(floats), as in the records of :mod:`facedown.store.base`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

# Explicit constraint names, so migrations and every backend agree on them.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class SeedText(TypeDecorator[int]):
    """A table's seed as decimal text: 128 bits, which no integer column of SQLite or
    PostgreSQL holds (BIGINT stops at 64).  Python sees an int."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(int(value))

    def process_result_value(self, value: object, dialect: Dialect) -> int | None:
        return None if value is None else int(str(value))


class TableRow(Base):
    """One game table. ``code`` is stored upper-case; ``seed`` is secret."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    code: Mapped[str] = mapped_column(String, unique=True)
    preset: Mapped[str] = mapped_column(String)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(SeedText)  # decimal text (0012): 128 bits
    host_id: Mapped[str] = mapped_column(String)
    settings: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String, index=True)
    deadline: Mapped[float | None] = mapped_column(Float)
    deadline_kind: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    damage: Mapped[str | None] = mapped_column(String)  # why a broken table cannot be rebuilt

    seats: Mapped[list[SeatRow]] = relationship(order_by="SeatRow.seat", lazy="raise")


class SeatRow(Base):
    """One seat at a table."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String)
    player_id: Mapped[str | None] = mapped_column(String)
    bot_level: Mapped[str | None] = mapped_column(String)


class LogRow(Base):
    """One entry of a table's command log."""

    __tablename__ = "table_log"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)


class UserRow(Base):
    """An account. ``name_key`` (the name folded for comparison) is what must be unique."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    name: Mapped[str] = mapped_column(String)
    name_key: Mapped[str] = mapped_column(String, unique=True)
    password_hash: Mapped[str] = mapped_column(String)
    player_id: Mapped[str] = mapped_column(String, unique=True)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    email: Mapped[str | None] = mapped_column(String)  # revision 0007: turn e-mails go here
    # Revision 0011: what the name looks like (facedown/names.py); a unique index, so
    # two accounts never look alike.  NULL for an older account whose name looks like an older
    # one's.
    name_skeleton: Mapped[str | None] = mapped_column(String, index=True, unique=True)


class UserPlayerRow(Base):
    """A player id an account holds (a player id belongs to one account at most)."""

    __tablename__ = "user_players"

    player_id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    linked_at: Mapped[float] = mapped_column(Float)


class SessionRow(Base):
    """A signed-in session: the token itself is never stored, only its SHA-256."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String, unique=True)
    created_at: Mapped[float] = mapped_column(Float)
    last_seen: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)
    agent: Mapped[str] = mapped_column(String)  # the browser, as its User-Agent says (bounded)


# The seats of a player: what the match history looks up.
Index("ix_seats_player_id", SeatRow.player_id)


class MetaRow(Base):
    """A named counter of the store (``commits``: the SQLite writer's transactions)."""

    __tablename__ = "store_meta"

    key: Mapped[str] = mapped_column(String, primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


class TokenFloorRow(Base):
    """A guest who rotated their session token: tokens issued before ``valid_from`` (unix
    milliseconds) are refused."""

    __tablename__ = "token_floors"

    player_id: Mapped[str] = mapped_column(String, primary_key=True)
    valid_from: Mapped[int] = mapped_column(BigInteger)


class ScoreboardRow(Base):
    """A paper game's scoreboard; ``id`` is the hash of its edit key, ``rounds`` as entered."""

    __tablename__ = "scoreboards"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    view_key: Mapped[str] = mapped_column(String, unique=True)
    names: Mapped[list[str]] = mapped_column(JSON)
    preset: Mapped[str] = mapped_column(String)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    placement: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    rounds: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    revision: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class QueueRow(Base):
    """An account waiting in a ranked queue (one queue at a time)."""

    __tablename__ = "ranked_queue"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    queue: Mapped[str] = mapped_column(String, index=True)
    joined_at: Mapped[float] = mapped_column(Float)
    seen_at: Mapped[float] = mapped_column(Float)  # the player's page last asked then


class RankedMatchRow(Base):
    """A ranked match at a table; ``rated_at`` and ``result`` once its ratings are written."""

    __tablename__ = "ranked_matches"

    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    queue: Mapped[str] = mapped_column(String, index=True)
    created_at: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[float | None] = mapped_column(Float)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class RankedSeatRow(Base):
    """The account in a seat of a ranked match, and how long it waited in the queue."""

    __tablename__ = "ranked_seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("ranked_matches.table_id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    waited: Mapped[float] = mapped_column(Float)


class RatingRow(Base):
    """An account's rating in one queue; ``score`` (mu - 3 sigma) orders the leaderboard."""

    __tablename__ = "ratings"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    queue: Mapped[str] = mapped_column(String, primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    score: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)


# The leaderboard of a queue: its ratings by score.
Index("ix_ratings_queue_score", RatingRow.queue, RatingRow.score)


class LeaseRow(Base):
    """A lease: ``owner`` (a server process) holds ``name`` until ``expires_at`` (the store's
    clock); ``fence`` grows by one at each takeover, and a fenced write checks it."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String, primary_key=True)
    owner: Mapped[str] = mapped_column(String)
    fence: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[float] = mapped_column(Float)


class MailAccountRow(Base):
    """An account's mail settings (revision 0010): its language, the address it confirmed, and
    the confirmation under way (only the SHA-256 of the link's token)."""

    __tablename__ = "mail_accounts"

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id"), primary_key=True)
    language: Mapped[str] = mapped_column(String)
    verified: Mapped[str | None] = mapped_column(String)
    pending: Mapped[str | None] = mapped_column(String)
    token_hash: Mapped[str | None] = mapped_column(String, unique=True)
    token_expires: Mapped[float | None] = mapped_column(Float)


class MailCountRow(Base):
    """Mail sent in one hour (unix hours) against one key: ``account:<id>`` or a digest of an
    address (revision 0010)."""

    __tablename__ = "mail_counts"

    key: Mapped[str] = mapped_column(String, primary_key=True)
    hour: Mapped[int] = mapped_column(Integer, primary_key=True)
    sent: Mapped[int] = mapped_column(Integer)
