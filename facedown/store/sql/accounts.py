"""Accounts on SQL: users, the player ids they hold, and their sessions.

The writes follow the rule of :mod:`facedown.store.writer`: each refuses (StoreError) only
before it has changed anything.  Taking over guest ids skips the ones another account holds with
the dialect's ``INSERT ... ON CONFLICT DO NOTHING`` (SQLite and PostgreSQL both have it), so a
taken id never fails, and never aborts, the transaction it is in.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import partial
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..database import integrity_kind
from ..models import SessionRow, UserPlayerRow, UserRow
from ..records import PlayerTaken, SessionRecord, StoreError, UserExists, UserRecord
from .core import SqlBase

# Ids in one IN list: well under SQLite's bound of parameters a statement (32,766 since 3.32).
IDS_A_QUERY = 500


class AccountsSql(SqlBase):
    """The account methods of :class:`~facedown.store.base.Store` on SQL."""

    async def create_user(self, user: UserRecord, guest_ids: Sequence[str] = ()) -> None:
        write = partial(_create_user, user=user, guest_ids=guest_ids, at=user.created_at)
        await self._write(write)

    async def get_user(self, user_id: str) -> UserRecord | None:
        async with self._session() as session:
            row = await session.get(UserRow, user_id)
            return None if row is None else _user_record(row)

    async def find_user(self, name_key: str) -> UserRecord | None:
        async with self._session() as session:
            row = await session.scalar(select(UserRow).where(UserRow.name_key == name_key))
            return None if row is None else _user_record(row)

    async def find_lookalike(self, name_skeleton: str) -> UserRecord | None:
        query = select(UserRow).where(UserRow.name_skeleton == name_skeleton)
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else _user_record(row)

    async def owner_of_player(self, player_id: str) -> str | None:
        query = select(UserPlayerRow.user_id).where(UserPlayerRow.player_id == player_id)
        async with self._session() as session:
            found: str | None = await session.scalar(query)
            return found

    async def link_players(self, user_id: str, player_ids: Sequence[str], at: float) -> list[str]:
        linked: list[str] = []

        def write(connection: Connection) -> None:
            _user_exists(connection, user_id)
            linked[:] = _link_players(connection, user_id, player_ids, at)

        await self._write(write)
        return linked

    async def user_players(self, user_id: str) -> list[str]:
        async with self._session() as session:
            return list(await session.scalars(_user_players_query(user_id)))

    async def set_password(
        self,
        user_id: str,
        password_hash: str,
        at: float,
        *,
        end_sessions: bool = True,
        keep_session: str | None = None,
    ) -> None:
        write = partial(
            _set_password,
            user_id=user_id,
            password_hash=password_hash,
            at=at,
            end_sessions=end_sessions,
            keep=keep_session,
        )
        await self._write(write)

    async def set_email(self, user_id: str, email: str | None, at: float) -> None:
        await self._write(partial(_set_email, user_id=user_id, email=email, at=at))

    async def create_session(self, session: SessionRecord) -> None:
        await self._write(partial(_create_session, session=session))

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        query = select(SessionRow).where(SessionRow.token_hash == token_hash)
        async with self._session() as session:
            row = await session.scalar(query)
            return None if row is None else _session_record(row)

    async def touch_session(self, session_id: str, last_seen: float) -> None:
        write = partial(_touch_session, session_id=session_id, last_seen=last_seen)
        await self._write(write)

    async def user_sessions(self, user_id: str) -> list[SessionRecord]:
        query = (
            select(SessionRow)
            .where(SessionRow.user_id == user_id)
            .order_by(SessionRow.created_at.desc(), SessionRow.id)
        )
        async with self._session() as session:
            return [_session_record(row) for row in await session.scalars(query)]

    async def live_sessions(self, session_ids: Collection[str], now: float) -> dict[str, str]:
        ids, live = sorted(set(session_ids)), dict[str, str]()
        async with self._session() as session:
            for at in range(0, len(ids), IDS_A_QUERY):
                query = select(SessionRow.id, SessionRow.user_id).where(
                    SessionRow.id.in_(ids[at : at + IDS_A_QUERY]), SessionRow.expires_at > now
                )
                live.update((row.id, row.user_id) for row in await session.execute(query))
        return live

    async def delete_session(self, user_id: str, session_id: str) -> bool:
        ended: list[int] = []

        def write(connection: Connection) -> None:
            ended.append(_delete_session(connection, user_id, session_id))

        await self._write(write)
        return sum(ended) > 0

    async def delete_sessions(self, user_id: str, keep: str | None = None) -> int:
        ended: list[int] = []

        def write(connection: Connection) -> None:
            ended.append(_delete_sessions(connection, user_id, keep))

        await self._write(write)
        return sum(ended)


def _create_user(
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
    _link_players(connection, user.id, [user.player_id, *guest_ids], at)


def _link_players(
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


def _user_exists(connection: Connection, user_id: str) -> None:
    found = connection.execute(select(UserRow.id).where(UserRow.id == user_id)).first()
    if found is None:
        raise StoreError(f"no account {user_id!r}")


def _set_password(
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
        _delete_sessions(connection, user_id, keep)


def _set_email(connection: Connection, user_id: str, email: str | None, at: float) -> None:
    result = connection.execute(
        update(UserRow).where(UserRow.id == user_id).values(email=email, updated_at=at)
    )
    if result.rowcount == 0:
        raise StoreError(f"no account {user_id!r}")


def _create_session(connection: Connection, session: SessionRecord) -> None:
    _user_exists(connection, session.user_id)
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


def _touch_session(connection: Connection, session_id: str, last_seen: float) -> None:
    connection.execute(
        update(SessionRow).where(SessionRow.id == session_id).values(last_seen=last_seen)
    )


def _delete_session(connection: Connection, user_id: str, session_id: str) -> int:
    result = connection.execute(
        delete(SessionRow).where(SessionRow.user_id == user_id, SessionRow.id == session_id)
    )
    return int(result.rowcount)


def _delete_sessions(connection: Connection, user_id: str, keep: str | None) -> int:
    where = [SessionRow.user_id == user_id]
    if keep is not None:
        where.append(SessionRow.id != keep)
    return int(connection.execute(delete(SessionRow).where(*where)).rowcount)


def _user_players_query(user_id: str) -> Any:
    """The account's player ids: its own first, then the others in link order."""
    own = select(UserRow.player_id).where(UserRow.id == user_id).scalar_subquery()
    return (
        select(UserPlayerRow.player_id)
        .where(UserPlayerRow.user_id == user_id)
        .order_by(UserPlayerRow.player_id != own, UserPlayerRow.linked_at, UserPlayerRow.player_id)
    )


def _user_record(row: UserRow) -> UserRecord:
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


def _session_record(row: SessionRow) -> SessionRecord:
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
