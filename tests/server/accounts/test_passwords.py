"""Password hashing (argon2id) and the session rules of server/accounts/accounts.py, on a clock the
test moves: expiry, the "last seen" time, and the dummy hash an unknown name is checked against."""

from __future__ import annotations

import pytest

from facedown.server.accounts.accounts import TOUCH_EVERY, AccountError, Accounts, token_hash
from facedown.server.accounts.auth import Tokens
from facedown.server.accounts.passwords import PasswordCost, Passwords
from facedown.server.base.addresses import ClientLimits, Limits
from facedown.store import MemoryStore

pytestmark = pytest.mark.anyio
CHEAP = PasswordCost(time_cost=1, memory_kib=1024, parallelism=1)
PASSWORD = "correct horse"  # noqa: S105 - a test account's


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Now:
    def __init__(self, at: float = 1_700_000_000.0) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def accounts(store: MemoryStore, now: Now, lifetime: float = 3600.0) -> Accounts:
    return Accounts(store, Passwords(CHEAP), Tokens("k"), Limits(ClientLimits()), lifetime, now=now)


async def test_a_hash_is_argon2id_with_the_chosen_parameters_and_verifies() -> None:
    passwords = Passwords(CHEAP)
    stored = await passwords.hash(PASSWORD)
    assert stored.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert await passwords.hash(PASSWORD) != stored  # a salt of its own each time
    assert await passwords.verify(stored, PASSWORD)
    assert not await passwords.verify(stored, PASSWORD + " ")
    assert not await passwords.verify("not a hash", PASSWORD)
    assert not passwords.needs_rehash(stored)
    assert Passwords(PasswordCost(time_cost=2, memory_kib=1024, parallelism=1)).needs_rehash(stored)
    assert passwords.needs_rehash("not a hash")


async def test_an_unknown_account_is_checked_against_a_dummy_of_the_same_cost() -> None:
    known = Passwords(CHEAP)
    assert await known.verify(await known.hash(PASSWORD), PASSWORD)
    assert known._dummy is not None  # made at the first check of a known account too
    passwords = Passwords(CHEAP)
    assert not await passwords.verify(None, PASSWORD)
    dummy = passwords._dummy  # the hash the unknown name's password was verified against
    assert dummy is not None
    assert dummy.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert not passwords.needs_rehash(dummy)


async def test_a_session_ends_when_its_lifetime_is_over() -> None:
    store, now = MemoryStore(), Now()
    service = accounts(store, now, lifetime=3600.0)
    who, token = await service.sign_up("Ann", PASSWORD, [], "agent", "1.1.1.1")
    assert who.session.token_hash == token_hash(token)
    now.at += 3599.0
    assert await service.signed_in(token) is not None
    now.at += 1.0
    assert await service.signed_in(token) is None
    assert await service.sessions(who) == []  # an expired session is not listed


async def test_a_session_lives_only_for_its_own_account_and_its_lifetime() -> None:
    """What a seat token's session is checked by (at hello, and by the sweep of open seats): a
    live session of another account keeps no seat."""
    store, now = MemoryStore(), Now()
    service = accounts(store, now, lifetime=3600.0)
    ann, _ = await service.sign_up("Ann", PASSWORD, [], "agent", "1.1.1.1")
    bob, _ = await service.sign_up("Bob", PASSWORD, [], "agent", "1.1.1.2")
    assert await service.session_lives(ann.user.id, ann.session.id)
    assert not await service.session_lives(ann.user.id, bob.session.id)  # live, but Bob's
    assert not await service.session_lives(ann.user.id, "no-such-session")
    assert await service.live_among([ann.session.id, bob.session.id, "gone"]) == {
        ann.session.id: ann.user.id,
        bob.session.id: bob.user.id,
    }
    now.at += 3600.0
    assert not await service.session_lives(ann.user.id, ann.session.id)
    assert await service.live_among([ann.session.id, bob.session.id]) == {}


async def test_last_seen_is_written_now_and_then_not_on_every_request() -> None:
    store, now = MemoryStore(), Now()
    service = accounts(store, now)
    _, token = await service.sign_up("Ann", PASSWORD, [], "agent", "1.1.1.1")
    start = now.at
    now.at += TOUCH_EVERY - 1
    seen = await service.signed_in(token)
    assert seen is not None
    assert seen.session.last_seen == start
    now.at += 1
    seen = await service.signed_in(token)
    assert seen is not None
    stored = await store.find_session(token_hash(token))
    assert stored is not None
    assert stored.last_seen == seen.session.last_seen == now.at


async def test_a_guest_token_of_another_server_key_is_not_taken() -> None:
    store, now = MemoryStore(), Now()
    service = accounts(store, now)
    _, ours = Tokens("k").issue("Ann", "guest-ours")
    _, theirs = Tokens("other key").issue("Ann", "guest-theirs")
    who, _ = await service.sign_up("Ann", PASSWORD, [theirs, ours], "agent", "1.1.1.1")
    assert await store.owner_of_player("guest-ours") == who.user.id
    assert who.user.player_id not in ("guest-ours", "guest-theirs")  # an id of its own
    assert await store.owner_of_player("guest-theirs") is None


async def test_a_taken_name_is_refused_before_any_hash() -> None:
    store, now = MemoryStore(), Now()
    service = accounts(store, now)
    await service.sign_up("Ann", PASSWORD, [], "agent", "1.1.1.1")
    with pytest.raises(AccountError) as refused:
        await service.sign_up("ANN", PASSWORD, [], "agent", "1.1.1.2")
    assert (refused.value.status, refused.value.code) == (409, "name_taken")
