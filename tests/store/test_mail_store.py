"""What turn e-mails need from the store (revision 0010), on every store (memory, SQLite,
PostgreSQL): a confirmation is used once, only before it expires and only while its address is
still the account's; unsubscribing removes only the address it was for; the hourly counts take
all their keys or none.  Two processes counting against one database at once never pass a cap.
And the migration: a database of revision 0009 upgrades with its accounts kept, an address kept
from before unconfirmed, and downgrades again."""

from __future__ import annotations

import asyncio
from typing import cast

import pytest
from alembic.script import ScriptDirectory

from facedown.store import MailAccount, MailStore, Store, StoreError, UserRecord, open_store
from facedown.store.migrate import alembic_config

from .test_migration_0003 import _at_revision, _sql
from .test_migration_0009 import _down_to
from .test_sql import schema_diff

pytestmark = pytest.mark.anyio

ANN = UserRecord("u1", "Ann", "ann", "hash", "p1", 1.0, 1.0)


def _mail(store: Store) -> MailStore:
    return cast(MailStore, store)  # SqlStore and MemoryStore are both


async def test_a_confirmation_is_used_once_and_only_in_time(store: Store) -> None:
    mail = _mail(store)
    assert await mail.mail_account("u1") is None
    with pytest.raises(StoreError):
        await mail.save_mail_account(MailAccount("u1"))  # no such account
    await store.create_user(ANN)
    await store.set_email("u1", "ann@example.test", 2.0)
    pending = MailAccount("u1", "de", None, "ann@example.test", "h1", 100.0)
    await mail.save_mail_account(pending)
    assert await mail.mail_account("u1") == pending
    assert await mail.confirm_mail("nope", 50.0) is None
    assert await mail.confirm_mail("h1", 50.0) == pending  # the record as it was
    assert await mail.mail_account("u1") == MailAccount("u1", "de", "ann@example.test")
    assert await mail.confirm_mail("h1", 50.0) is None  # once

    # Expired: used up, nothing verified that was not.
    await store.set_email("u1", "new@example.test", 3.0)
    await mail.save_mail_account(
        MailAccount("u1", "de", "ann@example.test", "new@example.test", "h2", 100.0)
    )
    assert await mail.confirm_mail("h2", 100.0) is not None
    assert await mail.mail_account("u1") == MailAccount("u1", "de", "ann@example.test")

    # The address changed after the link went out: the link confirms nothing.
    await mail.save_mail_account(
        MailAccount("u1", "de", "ann@example.test", "new@example.test", "h3", 100.0)
    )
    await store.set_email("u1", "other@example.test", 4.0)
    assert await mail.confirm_mail("h3", 50.0) is not None
    found = await mail.mail_account("u1")
    assert found is not None
    assert found.verified == "ann@example.test"
    assert found.token_hash is None


async def test_unsubscribing_removes_only_the_address_it_was_for(store: Store) -> None:
    mail = _mail(store)
    await store.create_user(ANN)
    await store.set_email("u1", "ann@example.test", 2.0)
    assert not await mail.unsubscribe_mail("u1", "old@example.test", 3.0)
    assert not await mail.unsubscribe_mail("u2", "ann@example.test", 3.0)
    user = await store.get_user("u1")
    assert user is not None
    assert user.email == "ann@example.test"
    await mail.save_mail_account(
        MailAccount("u1", "de", "ann@example.test", "ann@example.test", "h1", 100.0)
    )
    assert await mail.unsubscribe_mail("u1", "ann@example.test", 3.0)
    user = await store.get_user("u1")
    assert user is not None
    assert user.email is None
    # Its confirmation is forgotten, and the link on its way confirms nothing.
    assert await mail.mail_account("u1") == MailAccount("u1", "de")
    await store.set_email("u1", "ann@example.test", 4.0)
    assert await mail.confirm_mail("h1", 50.0) is None
    assert await mail.mail_account("u1") == MailAccount("u1", "de")


async def test_unsubscribing_forgets_every_confirmation_of_the_account(store: Store) -> None:
    """Another spelling of the mailbox (``Ann@``) confirmed before is the same mailbox's yes:
    it goes too, as does a confirmation on its way."""
    mail = _mail(store)
    await store.create_user(ANN)
    await store.set_email("u1", "ann+games@example.test", 2.0)
    other = MailAccount("u1", "en", "Ann@example.test", "ann+games@example.test", "h1", 100.0)
    await mail.save_mail_account(other)
    assert not await mail.unsubscribe_mail("u1", "Ann@example.test", 3.0)  # not its address
    assert await mail.mail_account("u1") == other
    assert await mail.unsubscribe_mail("u1", "ann+games@example.test", 3.0)
    assert await mail.mail_account("u1") == MailAccount("u1", "en")


async def test_the_hourly_counts_take_every_key_or_none(store: Store) -> None:
    mail = _mail(store)
    both = [("account:u1", 3), ("address:a", 2)]
    assert [await mail.take_mail(both, 10) for _ in range(3)] == [True, True, False]
    assert await mail.take_mail([("account:u1", 3)], 10)  # the refusal counted nothing
    assert not await mail.take_mail([("account:u1", 3)], 10)
    assert await mail.take_mail(both, 11)  # a new hour
    assert await mail.take_mail([("account:u2", 1)], 10)


async def test_the_hour_before_counts_in_the_share_carried(store: Store) -> None:
    mail = _mail(store)
    cap = [("address:a", 4)]
    assert [await mail.take_mail(cap, 20) for _ in range(5)] == [True] * 4 + [False]
    # All of the hour before still counts (its last seconds): nothing in the new hour.
    assert not await mail.take_mail(cap, 21, carried=1.0)
    # Half of it counts: 4 less 2 in the new hour (the refusal above counted nothing).
    assert [await mail.take_mail(cap, 21, carried=0.5) for _ in range(3)] == [True, True, False]
    # A hundredth of it: 0.04 rounded up, so 3 in the new hour.
    assert [await mail.take_mail(cap, 21, carried=0.01) for _ in range(2)] == [True, False]
    # Hour 20 is two hours back from 22: it counts no more, and hour 21's 3 count in full.
    assert [await mail.take_mail(cap, 22, carried=1.0) for _ in range(2)] == [True, False]


async def test_two_processes_counting_at_once_never_pass_a_cap(database_url: str) -> None:
    first, second = await open_store(database_url), await open_store(database_url)
    try:
        stores = [_mail(first), _mail(second)]
        caps = [("account:u1", 7), ("address:a", 50)]
        taken = await asyncio.gather(*(stores[n % 2].take_mail(caps, 5) for n in range(40)))
        assert taken.count(True) == 7
        rows = await _sql(database_url, "SELECT key, sent FROM mail_counts ORDER BY key")
        assert rows[0] == ("account:u1", 7)
        assert rows[1][0] == "address:a"
        assert int(str(rows[1][1])) <= 8  # it may count the one that lost the race, no more
    finally:
        await first.close()
        await second.close()


async def test_revision_0010_upgrades_and_downgrades(database_url: str) -> None:
    await _at_revision(database_url, "0009")
    await _sql(
        database_url,
        "INSERT INTO users (id, name, name_key, password_hash, player_id, created_at,"
        " updated_at, email) VALUES ('u1', 'Ann', 'ann', 'hash', 'p1', 1.0, 1.0,"
        " 'ann@example.test')",
    )
    store = await open_store(database_url)  # migrates to the newest revision
    try:
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [(head,)]
        assert await schema_diff(database_url) == []
        user = await store.get_user("u1")
        assert user is not None
        assert user.email == "ann@example.test"  # kept, but never confirmed:
        assert await _mail(store).mail_account("u1") is None
    finally:
        await store.close()
    await _down_to(database_url, "0009")
    tables = await _sql(database_url, "SELECT COUNT(*) FROM users")
    assert tables == [(1,)]
    assert await _sql(database_url, "SELECT version_num FROM alembic_version") == [("0009",)]
