"""Accounts: sign-up and sign-in with a name and a password, and server-side sessions.

A session is an opaque random token (``secrets.token_urlsafe``, 256 bits) handed to the browser
in an HttpOnly cookie; the store keeps only its SHA-256, so a copy of the database signs no one
in.  Sessions can be listed and ended one by one or all at once; a password change ends every
session but the one that made it.

An account sits at tables with a player id of its own, which no guest token ever named.  A guest
who signs up (or signs in) sends the seat tokens their browser holds: the player ids those
tokens name, when no account holds them yet, become the account's too.  So a guest's seats,
tables and history are the account's from then on, and the old seat tokens keep working at the
old tables (and only there: the account takes new seats with its own id).

The seat tokens an account holder is given are bound to the session that obtained them and to
one table (:meth:`Accounts.seat_holder`): a copied one opens neither the account's other tables
nor anything once that session has ended.

Sign-in answers a wrong password and an unknown name with the same refusal, after the same
work (an argon2 verification against a dummy hash), and is limited per address and per (folded
name, address): someone who keeps trying a name from one address makes only that address wait,
never the name's owner elsewhere.  Sign-up is limited per address.  When as many password hashes
run and wait as :class:`~.passwords.PasswordCost` allows, a sign-up, sign-in or password change
is refused at once with 429 ``rate_limited`` rather than queued.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, replace

from ...names import name_skeleton
from ...store import PlayerTaken, SessionRecord, Store, UserExists, UserRecord
from ..base.addresses import Limits, network_of
from ..base.text import escaped, name_key
from .auth import Guest, Tokens
from .passwords import Passwords, PasswordsBusy
from .postbox import BadAddress, single_mailbox

TOUCH_EVERY = 300.0  # seconds: a session's "last seen" is written at most this often
AGENT_LENGTH = 120  # characters of a User-Agent kept with a session
MAX_GUEST_TOKENS = 32  # seat tokens a sign-up or sign-in may hand over


class AccountError(Exception):
    """A refused account request: ``status`` for HTTP, ``code`` stable, the message readable."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


BAD_CREDENTIALS = AccountError(401, "bad_credentials", "wrong user name or password")
SIGNED_OUT = AccountError(401, "signed_out", "you are not signed in")
BUSY = AccountError(429, "rate_limited", "the server is busy checking passwords: try again soon")


def signin_key(name_key: str, address: str) -> str:
    """The sign-in bucket of one folded name tried from one address (or IPv6 /64)."""
    return f"{network_of(address)} {name_key}"


@dataclass(frozen=True)
class SignedIn:
    """Who a request's session names."""

    user: UserRecord
    session: SessionRecord


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def agent_label(user_agent: str | None) -> str:
    """A User-Agent fit to show in the sessions list: printable and short."""
    return escaped((user_agent or "").strip(), AGENT_LENGTH)


class Accounts:
    def __init__(
        self,
        store: Store,
        passwords: Passwords,
        tokens: Tokens,
        limits: Limits,
        lifetime: float,
        now: Callable[[], float] = time.time,
        sessions_ended: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        """``sessions_ended(user_id)`` is awaited after sessions of that account ended here
        (sign-out, the end of one, everywhere, a password change): the server closes the
        connections those sessions' seat tokens opened (server/edge/seatsessions.py)."""
        self.store = store
        self.passwords = passwords
        self.tokens = tokens
        self.limits = limits
        self.lifetime = lifetime
        self.now = now
        self.sessions_ended = sessions_ended

    # ------------------------------------------------------------------ signing in
    async def sign_up(
        self, name: str, password: str, guest_tokens: Sequence[str], agent: str, address: str
    ) -> tuple[SignedIn, str]:
        """A new account (holding the guests' player ids, sitting with a new id of its own) and
        its first session and token."""
        if not self.limits.signups.allow(address):
            raise AccountError(429, "rate_limited", "too many accounts made from your address")
        key, looks = name_key(name), name_skeleton(name)
        if await self.store.find_user(key) is not None:
            raise _name_taken()
        if await self.store.find_lookalike(looks) is not None:
            raise _name_taken("an account with a name that looks the same exists: pick another")
        free = await self._free_guest_ids(guest_tokens)
        password_hash = await self._hash(password)
        at = self.now()
        player = secrets.token_hex(8)  # never a guest's: their tokens would open its new tables
        user = UserRecord(
            secrets.token_hex(12), name, key, password_hash, player, at, at, name_skeleton=looks
        )
        try:
            await self.store.create_user(user, free)
        except PlayerTaken:  # taken since we looked: the account sits with an id of its own
            user = replace(user, player_id=secrets.token_hex(8))
            await self._create(user, ())
        except UserExists:
            raise _name_taken() from None
        return await self._new_session(user, agent)

    async def _create(self, user: UserRecord, guest_ids: Sequence[str]) -> None:
        try:
            await self.store.create_user(user, guest_ids)
        except UserExists:
            raise _name_taken() from None

    async def sign_in(
        self, name: str, password: str, guest_tokens: Sequence[str], agent: str, address: str
    ) -> tuple[SignedIn, str]:
        """A new session for the account, when the password is right; the guests' player ids
        that no account holds become the account's too."""
        key = name_key(name)
        # Both buckets are charged on every attempt, known name or not, right or wrong.  Neither
        # is the name's alone: an attacker hammering a name from one address exhausts that
        # address's buckets, and the owner signs in from their own at once.
        by_address = self.limits.signins.allow(address)  # counted by its /64 (network_of)
        by_name = self.limits.account_signins.allow(signin_key(key, address))
        if not (by_address and by_name):
            raise AccountError(429, "rate_limited", "too many sign-in attempts: try again later")
        user = await self.store.find_user(key)
        right = await self._verify(user.password_hash if user else None, password)
        if user is None or not right:  # verify did the same work either way
            raise BAD_CREDENTIALS
        if self.passwords.needs_rehash(user.password_hash):
            rehashed = await self._hash(password)
            await self.store.set_password(user.id, rehashed, self.now(), end_sessions=False)
            user = replace(user, password_hash=rehashed)
        free = await self._free_guest_ids(guest_tokens)
        if free:
            await self.store.link_players(user.id, free, self.now())
        return await self._new_session(user, agent)

    async def _hash(self, password: str) -> str:
        try:
            return await self.passwords.hash(password)
        except PasswordsBusy:
            raise BUSY from None

    async def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return await self.passwords.verify(stored, password)
        except PasswordsBusy:
            raise BUSY from None

    async def _free_guest_ids(self, guest_tokens: Sequence[str]) -> list[str]:
        """The player ids the valid seat tokens name that no account holds, in token order."""
        ids: list[str] = []
        for token in guest_tokens[:MAX_GUEST_TOKENS]:
            guest = self.tokens.check(token)
            if guest is not None and guest.player_id not in ids:
                ids.append(guest.player_id)
        return [p for p in ids if await self.store.owner_of_player(p) is None]

    async def _new_session(self, user: UserRecord, agent: str) -> tuple[SignedIn, str]:
        token = secrets.token_urlsafe(32)
        at = self.now()
        session = SessionRecord(
            id=secrets.token_hex(8),
            user_id=user.id,
            token_hash=token_hash(token),
            created_at=at,
            last_seen=at,
            expires_at=at + self.lifetime,
            agent=agent_label(agent),
        )
        await self.store.create_session(session)
        return SignedIn(user, session), token

    # ------------------------------------------------------------------ sessions
    async def signed_in(self, token: str | None) -> SignedIn | None:
        """Who the session token names; None when it is missing, unknown, ended or expired."""
        if not token or len(token) > 128:
            return None
        session = await self.store.find_session(token_hash(token))
        now = self.now()
        if session is None or session.expires_at <= now:
            return None
        user = await self.store.get_user(session.user_id)
        if user is None:
            return None
        if now - session.last_seen >= TOUCH_EVERY:
            await self.store.touch_session(session.id, now)
            session = replace(session, last_seen=now)
        return SignedIn(user, session)

    async def sessions(self, who: SignedIn) -> list[SessionRecord]:
        """The account's sessions that have not expired (no one else's)."""
        now = self.now()
        return [s for s in await self.store.user_sessions(who.user.id) if s.expires_at > now]

    async def end_session(self, who: SignedIn, session_id: str) -> None:
        if not await self.store.delete_session(who.user.id, session_id):
            raise AccountError(404, "no_session", "you have no session with this id")
        await self._ended(who.user.id)

    async def sign_out(self, who: SignedIn) -> None:
        await self.store.delete_session(who.user.id, who.session.id)
        await self._ended(who.user.id)

    async def sign_out_everywhere(self, who: SignedIn) -> int:
        ended = await self.store.delete_sessions(who.user.id)
        await self._ended(who.user.id)
        return ended

    async def _ended(self, user_id: str) -> None:
        if self.sessions_ended is not None:
            await self.sessions_ended(user_id)

    async def change_password(
        self, who: SignedIn, current: str, new: str, address: str
    ) -> tuple[SignedIn, str]:
        """Replace the password (the current one must be right).  Every session ends, this one
        too, and with them every seat token they obtained; the browser that made the change
        gets a new session (and token) in place of its own."""
        if not self.limits.account_signins.allow(signin_key(who.user.name_key, address)):
            raise AccountError(429, "rate_limited", "too many password attempts: try again later")
        user = await self.store.get_user(who.user.id)
        if user is None or not await self._verify(user.password_hash, current):
            raise AccountError(403, "bad_password", "the current password is not right")
        new_hash = await self._hash(new)
        await self.store.set_password(user.id, new_hash, self.now())
        await self._ended(user.id)
        return await self._new_session(replace(user, password_hash=new_hash), who.session.agent)

    # ------------------------------------------------------------------ seat tokens
    def seat_token(self, who: SignedIn, name: str, player_id: str, table_id: str) -> str:
        """A seat token for the account's ``player_id`` at one table, bound to this session."""
        _, token = self.tokens.issue(name, player_id, session=who.session.id, table=table_id)
        return token

    async def seat_holder(self, token: str | None, table_id: str | None) -> Guest | None:
        """Who a seat token names, when it may be used at the table ``table_id`` (None: for a
        new seat, as the bearer of a guest's identity); None when it may not.

        A guest's token (bound to nothing) is valid as long as :meth:`Tokens.check` says so;
        once its player id is an account's, only at the tables that id already sits at (never
        for a new seat), and not at all when it is the id the account sits with.  An account
        holder's token is valid only at the table it names and while the session that obtained
        it lives: a password change, "sign out everywhere" and ending that session revoke it."""
        guest, session = await self.seat_claim(token, table_id)
        if session is not None and not await self.session_lives(*session):
            return None
        return guest

    async def seat_claim(
        self, token: str | None, table_id: str | None
    ) -> tuple[Guest | None, tuple[str, str] | None]:
        """:meth:`seat_holder` but for whether the session of an account holder's token still
        lives: the guest, and for such a token the account and session to ask
        :meth:`session_lives` about (a hello asks once it watches its connection)."""
        guest = self.tokens.check(token)
        if guest is None:
            return None, None
        owner = await self.store.owner_of_player(guest.player_id)
        if not guest.bound:
            if owner is None:
                return guest, None
            if table_id is None:  # a new seat with an account's id is the account's to take
                return None, None
            user = await self.store.get_user(owner)
            # A guest's id taken into an account still opens the guest's old tables; the id
            # the account sits with at new ones (its own) only through tokens bound to a session
            # (an account made before this rule may sit with an id a guest token named).
            taken_in = user is not None and user.player_id != guest.player_id
            return (guest if taken_in else None), None
        if owner is None or table_id is None or guest.table != table_id or guest.session is None:
            return None, None
        return guest, (owner, guest.session)

    async def session_lives(self, owner: str, session: str) -> bool:
        """Whether the session, of the account ``owner``, has not ended."""
        return (await self.live_among((session,))).get(session) == owner

    async def live_among(self, sessions: Collection[str]) -> dict[str, str]:
        """Of these sessions, the ones that have not ended, each with its account: what the
        seat tokens of open connections stand on (server/edge/seatsessions.py), in one read."""
        return await self.store.live_sessions(sessions, self.now())

    # ------------------------------------------------------------------ e-mail
    async def set_email(self, who: SignedIn, email: str | None) -> str | None:
        """Set the account's e-mail address (None, or blank: remove it); the address kept."""
        address = clean_email(email)
        await self.store.set_email(who.user.id, address, self.now())
        return address

    # ------------------------------------------------------------------ seats
    async def player_ids(self, who: SignedIn) -> list[str]:
        """Every player id the account holds, its own first."""
        return await self.store.user_players(who.user.id) or [who.user.player_id]


def clean_email(email: str | None) -> str | None:
    """An e-mail address as kept: exactly one mailbox, trimmed (:func:`.postbox.single_mailbox`);
    None for none.  AccountError ``bad_email`` (saying what is wrong) otherwise."""
    if email is None or not email.strip():
        return None
    try:
        return single_mailbox(email)
    except BadAddress as e:
        raise AccountError(422, "bad_email", str(e)) from None


def _name_taken(
    message: str = "an account with this name (or one that looks the same) exists: pick another",
) -> AccountError:
    return AccountError(409, "name_taken", message)
