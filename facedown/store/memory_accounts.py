"""Accounts in memory (mixed into :class:`~facedown.store.memory.MemoryStore`): users, the
player ids they hold, and their sessions; the same contract as :mod:`.sql.accounts`, in dicts,
every method atomic."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from .records import PlayerTaken, SessionRecord, StoreError, UserExists, UserRecord


class AccountsMemory:
    """The account methods of :class:`~facedown.store.base.Store` in the memory store."""

    def _check_open(self) -> None:
        raise NotImplementedError

    def __init__(self) -> None:
        super().__init__()
        self._users: dict[str, UserRecord] = {}
        self._names: dict[str, str] = {}  # name_key -> user id
        self._skeletons: dict[str, str] = {}  # name_skeleton -> user id
        self._players: dict[str, str] = {}  # player id -> user id (in link order)
        self._sessions: dict[str, SessionRecord] = {}

    async def create_user(self, user: UserRecord, guest_ids: Sequence[str] = ()) -> None:
        self._check_open()
        if user.id in self._users or user.name_key in self._names:
            raise UserExists(f"an account named {user.name!r} already exists")
        if user.name_skeleton is not None and user.name_skeleton in self._skeletons:
            raise UserExists(f"an account whose name looks like {user.name!r} already exists")
        if user.player_id in self._players:
            raise PlayerTaken(f"player {user.player_id!r} belongs to another account")
        self._users[user.id] = user
        self._names[user.name_key] = user.id
        if user.name_skeleton is not None:
            self._skeletons[user.name_skeleton] = user.id
        for player in (user.player_id, *guest_ids):
            self._players.setdefault(player, user.id)

    async def get_user(self, user_id: str) -> UserRecord | None:
        self._check_open()
        return self._users.get(user_id)

    async def find_user(self, name_key: str) -> UserRecord | None:
        self._check_open()
        user_id = self._names.get(name_key)
        return None if user_id is None else self._users[user_id]

    async def find_lookalike(self, name_skeleton: str) -> UserRecord | None:
        self._check_open()
        user_id = self._skeletons.get(name_skeleton)
        return None if user_id is None else self._users[user_id]

    async def owner_of_player(self, player_id: str) -> str | None:
        self._check_open()
        return self._players.get(player_id)

    async def link_players(self, user_id: str, player_ids: Sequence[str], at: float) -> list[str]:
        self._check_open()
        if user_id not in self._users:
            raise StoreError(f"no account {user_id!r}")
        linked = []
        for player in dict.fromkeys(player_ids):
            if player not in self._players:
                self._players[player] = user_id
                linked.append(player)
        return linked

    async def user_players(self, user_id: str) -> list[str]:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            return []
        others = [p for p, u in self._players.items() if u == user_id and p != user.player_id]
        return [user.player_id, *others]

    async def set_password(
        self,
        user_id: str,
        password_hash: str,
        at: float,
        *,
        end_sessions: bool = True,
        keep_session: str | None = None,
    ) -> None:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            raise StoreError(f"no account {user_id!r}")
        self._users[user_id] = replace(user, password_hash=password_hash, updated_at=at)
        if end_sessions:
            self._drop_sessions(user_id, keep_session)

    async def set_email(self, user_id: str, email: str | None, at: float) -> None:
        self._check_open()
        user = self._users.get(user_id)
        if user is None:
            raise StoreError(f"no account {user_id!r}")
        self._users[user_id] = replace(user, email=email, updated_at=at)

    async def create_session(self, session: SessionRecord) -> None:
        self._check_open()
        if session.user_id not in self._users:
            raise StoreError(f"no account {session.user_id!r}")
        taken = any(s.token_hash == session.token_hash for s in self._sessions.values())
        if session.id in self._sessions or taken:
            raise StoreError("a session with this id or token already exists")
        expired = [
            s.id
            for s in self._sessions.values()
            if s.user_id == session.user_id and s.expires_at <= session.created_at
        ]
        for old in expired:
            del self._sessions[old]
        self._sessions[session.id] = session

    async def find_session(self, token_hash: str) -> SessionRecord | None:
        self._check_open()
        return next((s for s in self._sessions.values() if s.token_hash == token_hash), None)

    async def touch_session(self, session_id: str, last_seen: float) -> None:
        self._check_open()
        session = self._sessions.get(session_id)
        if session is not None:
            self._sessions[session_id] = replace(session, last_seen=last_seen)

    async def user_sessions(self, user_id: str) -> list[SessionRecord]:
        self._check_open()
        mine = [s for s in self._sessions.values() if s.user_id == user_id]
        mine.sort(key=lambda s: (-s.created_at, s.id))
        return mine

    async def live_sessions(self, session_ids: Collection[str], now: float) -> dict[str, str]:
        self._check_open()
        found = (self._sessions.get(i) for i in session_ids)
        return {s.id: s.user_id for s in found if s is not None and s.expires_at > now}

    async def delete_session(self, user_id: str, session_id: str) -> bool:
        self._check_open()
        session = self._sessions.get(session_id)
        if session is None or session.user_id != user_id:
            return False
        del self._sessions[session_id]
        return True

    async def delete_sessions(self, user_id: str, keep: str | None = None) -> int:
        self._check_open()
        return self._drop_sessions(user_id, keep)

    def _drop_sessions(self, user_id: str, keep: str | None) -> int:
        ended = [s.id for s in self._sessions.values() if s.user_id == user_id and s.id != keep]
        for session_id in ended:
            del self._sessions[session_id]
        return len(ended)
