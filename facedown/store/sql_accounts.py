"""The accounts' writes and reads on SQL (users, the player ids they hold, sessions).

The writes follow the rule of :mod:`.writer`: each refuses (StoreError) only before it has
changed anything.  Taking over guest ids skips the ones another account holds with the
dialect's ``INSERT ... ON CONFLICT DO NOTHING`` (SQLite and PostgreSQL both have it), so a taken
id never fails, and never aborts, the transaction it is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .base import PlayerTaken, SessionRecord, StoreError, UserExists, UserRecord
from .database import integrity_kind
from .models import SessionRow, UserPlayerRow, UserRow


def create_user(
    connection: Connection, user: UserRecord, guest_ids: Sequence[str], at: float
) -> None:
    held = connection.execute(
        select(UserPlayerRow.player_id).where(UserPlayerRow.player_id == user.player_id)
    ).first()
    if held is not None:
        raise PlayerTaken(f"player {user.player_id!r} belongs to another account")
    try:
        connection.execute(insert(UserRow).values(**_user_fields(user)))
    except IntegrityError as e:
        if integrity_kind(e) != "unique":
            raise
        if "player_id" in str(e.orig):
            raise PlayerTaken(f"player {user.player_id!r} belongs to another account") from None
        raise UserExists(f"an account named {user.name!r} already exists") from None
    link_players(connection, user.id, [user.player_id, *guest_ids], at)


def link_players(
    connection: Connection, user_id: str, player_ids: Sequence[str], at: float
) -> list[str]:
    """Link the ids no account holds; those that were linked."""
    unique = list(dict.fromkeys(player_ids))
    if not unique:
        return []
    statement: Any
    if connection.dialect.name == "postgresql":
        statement = postgresql.insert(UserPlayerRow).on_conflict_do_nothing()
    else:
        statement = sqlite.insert(UserPlayerRow).on_conflict_do_nothing()
    linked: list[str] = []
    for player in unique:  # one by one: rowcount says which were new
        row = {"player_id": player, "user_id": user_id, "linked_at": at}
        if connection.execute(statement, row).rowcount:
            linked.append(player)
    return linked


def user_exists(connection: Connection, user_id: str) -> None:
    found = connection.execute(select(UserRow.id).where(UserRow.id == user_id)).first()
    if found is None:
        raise StoreError(f"no account {user_id!r}")


def set_password(
    connection: Connection,
    user_id: str,
    password_hash: str,
    at: float,
    end_sessions: bool,
    keep: str | None,
) -> None:
    result = connection.execute(
        update(UserRow)
        .where(UserRow.id == user_id)
        .values(password_hash=password_hash, updated_at=at)
    )
    if result.rowcount == 0:
        raise StoreError(f"no account {user_id!r}")
    if end_sessions:
        delete_sessions(connection, user_id, keep)


def set_email(connection: Connection, user_id: str, email: str | None, at: float) -> None:
    result = connection.execute(
        update(UserRow).where(UserRow.id == user_id).values(email=email, updated_at=at)
    )
    if result.rowcount == 0:
        raise StoreError(f"no account {user_id!r}")


def create_session(connection: Connection, session: SessionRecord) -> None:
    user_exists(connection, session.user_id)
    try:
        connection.execute(insert(SessionRow).values(**_session_fields(session)))
    except IntegrityError as e:
        if integrity_kind(e) != "unique":
            raise
        raise StoreError("a session with this id or token already exists") from None
    connection.execute(
        delete(SessionRow).where(
            SessionRow.user_id == session.user_id, SessionRow.expires_at <= session.created_at
        )
    )


def touch_session(connection: Connection, session_id: str, last_seen: float) -> None:
    connection.execute(
        update(SessionRow).where(SessionRow.id == session_id).values(last_seen=last_seen)
    )


def delete_session(connection: Connection, user_id: str, session_id: str) -> int:
    result = connection.execute(
        delete(SessionRow).where(SessionRow.user_id == user_id, SessionRow.id == session_id)
    )
    return int(result.rowcount)


def delete_sessions(connection: Connection, user_id: str, keep: str | None) -> int:
    where = [SessionRow.user_id == user_id]
    if keep is not None:
        where.append(SessionRow.id != keep)
    return int(connection.execute(delete(SessionRow).where(*where)).rowcount)


def user_players_query(user_id: str) -> Any:
    """The account's player ids: its own first, then the others in link order."""
    own = select(UserRow.player_id).where(UserRow.id == user_id).scalar_subquery()
    return (
        select(UserPlayerRow.player_id)
        .where(UserPlayerRow.user_id == user_id)
        .order_by(UserPlayerRow.player_id != own, UserPlayerRow.linked_at, UserPlayerRow.player_id)
    )


def user_record(row: UserRow) -> UserRecord:
    return UserRecord(
        id=row.id,
        name=row.name,
        name_key=row.name_key,
        password_hash=row.password_hash,
        player_id=row.player_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        email=row.email,
        name_skeleton=row.name_skeleton,
    )


def session_record(row: SessionRow) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        user_id=row.user_id,
        token_hash=row.token_hash,
        created_at=row.created_at,
        last_seen=row.last_seen,
        expires_at=row.expires_at,
        agent=row.agent,
    )


def _user_fields(user: UserRecord) -> dict[str, Any]:
    return {
        "id": user.id,
        "name": user.name,
        "name_key": user.name_key,
        "password_hash": user.password_hash,
        "player_id": user.player_id,
        "created_at": user.created_at,
        "updated_at": user.updated_at,
        "email": user.email,
        "name_skeleton": user.name_skeleton,
    }


def _session_fields(session: SessionRecord) -> dict[str, Any]:
    return {
        "id": session.id,
        "user_id": session.user_id,
        "token_hash": session.token_hash,
        "created_at": session.created_at,
        "last_seen": session.last_seen,
        "expires_at": session.expires_at,
        "agent": session.agent,
    }
