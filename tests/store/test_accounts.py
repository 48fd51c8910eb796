"""The accounts' part of the Store contract, on every store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from facedown.store import (
    PlayerTaken,
    SeatRecord,
    SessionRecord,
    Store,
    StoreError,
    UserExists,
    UserRecord,
)

from .test_contract import table

pytestmark = pytest.mark.anyio


def user(user_id: str = "u1", name: str = "Ann", player_id: str = "p-ann") -> UserRecord:
    return UserRecord(
        id=user_id,
        name=name,
        name_key=name.casefold(),
        password_hash="$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA",
        player_id=player_id,
        created_at=1_700_000_000.5,
        updated_at=1_700_000_000.5,
    )


def session(
    session_id: str = "s1", user_id: str = "u1", created_at: float = 1_700_000_100.0
) -> SessionRecord:
    return SessionRecord(
        id=session_id,
        user_id=user_id,
        token_hash=f"hash-of-{session_id}",
        created_at=created_at,
        last_seen=created_at,
        expires_at=created_at + 1000,
        agent="Firefox — ünïcode",
    )


async def test_a_user_comes_back_by_id_and_by_folded_name(store: Store) -> None:
    await store.create_user(user())
    assert await store.get_user("u1") == user()
    assert await store.find_user("ann") == user()
    assert await store.find_user("Ann") is None  # the caller folds; the store compares keys
    assert await store.get_user("nobody") is None


async def test_a_name_key_is_one_account(store: Store) -> None:
    await store.create_user(user())
    with pytest.raises(UserExists):
        await store.create_user(user("u2", "ANN", "p-other"))
    with pytest.raises(UserExists):
        await store.create_user(user("u1", "Bob", "p-bob"))
    assert await store.get_user("u2") is None
    assert await store.find_user("bob") is None


async def test_a_name_skeleton_is_one_account(store: Store) -> None:
    ann = replace(user(), name_skeleton="ann")
    await store.create_user(ann)
    assert await store.find_lookalike("ann") == ann
    assert await store.find_lookalike("bob") is None
    with pytest.raises(UserExists):  # another name (and key) that looks the same
        await store.create_user(replace(user("u2", "Ann2", "p-2"), name_skeleton="ann"))
    assert await store.get_user("u2") is None
    # Accounts without one (from before revision 0011) are any number.
    await store.create_user(user("u3", "Cid", "p-3"))
    await store.create_user(user("u4", "Dee", "p-4"))
    assert (await store.get_user("u4")) == user("u4", "Dee", "p-4")


async def test_a_player_id_belongs_to_one_account(store: Store) -> None:
    await store.create_user(user(), guest_ids=["g1", "g2"])
    assert await store.owner_of_player("p-ann") == "u1"
    assert await store.owner_of_player("g2") == "u1"
    assert await store.owner_of_player("g3") is None
    for taken in ("p-ann", "g1"):
        with pytest.raises(PlayerTaken):
            await store.create_user(user("u2", "Bob", taken))
    assert await store.find_user("bob") is None  # nothing written
    # Guest ids another account holds are skipped, not taken over.
    await store.create_user(user("u2", "Bob", "p-bob"), guest_ids=["g2", "g3", "g3"])
    assert set(await store.user_players("u2")) == {"p-bob", "g3"}
    assert (await store.user_players("u1"))[0] == "p-ann"
    assert set(await store.user_players("u1")) == {"p-ann", "g1", "g2"}
    assert await store.user_players("nobody") == []


async def test_linking_takes_only_ids_no_account_holds(store: Store) -> None:
    await store.create_user(user())
    await store.create_user(user("u2", "Bob", "p-bob"))
    linked = await store.link_players("u1", ["g1", "p-bob", "g1", "p-ann", "g2"], 5.0)
    assert linked == ["g1", "g2"]
    assert await store.link_players("u1", ["g1"], 6.0) == []
    assert await store.owner_of_player("p-bob") == "u2"
    assert set(await store.user_players("u1")) == {"p-ann", "g1", "g2"}
    with pytest.raises(StoreError):
        await store.link_players("nobody", ["g9"], 7.0)
    assert await store.owner_of_player("g9") is None


async def test_sessions_are_listed_per_account_newest_first(store: Store) -> None:
    await store.create_user(user())
    await store.create_user(user("u2", "Bob", "p-bob"))
    await store.create_session(session("s1"))
    await store.create_session(session("s2", created_at=1_700_000_200.0))
    await store.create_session(session("s3", "u2"))
    assert [s.id for s in await store.user_sessions("u1")] == ["s2", "s1"]
    assert [s.id for s in await store.user_sessions("u2")] == ["s3"]
    assert await store.find_session("hash-of-s1") == session("s1")
    assert await store.find_session("hash-of-nothing") is None
    with pytest.raises(StoreError):
        await store.create_session(session("s9", "nobody"))
    with pytest.raises(StoreError):  # the same token hash twice
        await store.create_session(replace(session("s4"), token_hash="hash-of-s1"))


async def test_a_new_session_drops_the_accounts_expired_ones(store: Store) -> None:
    await store.create_user(user())
    await store.create_user(user("u2", "Bob", "p-bob"))
    await store.create_session(session("old", created_at=1000.0))
    await store.create_session(session("bobs", "u2", created_at=1000.0))
    await store.create_session(session("new", created_at=5000.0))
    assert [s.id for s in await store.user_sessions("u1")] == ["new"]
    assert [s.id for s in await store.user_sessions("u2")] == ["bobs"]


async def test_ending_sessions_never_touches_another_account(store: Store) -> None:
    await store.create_user(user())
    await store.create_user(user("u2", "Bob", "p-bob"))
    for s in (session("a1"), session("a2"), session("a3"), session("b1", "u2")):
        await store.create_session(s)
    assert await store.delete_session("u1", "b1") is False
    assert await store.delete_session("u1", "a1") is True
    assert await store.delete_session("u1", "a1") is False
    assert await store.delete_sessions("u1", keep="a2") == 1
    assert [s.id for s in await store.user_sessions("u1")] == ["a2"]
    assert await store.delete_sessions("u1") == 1
    assert await store.user_sessions("u1") == []
    assert [s.id for s in await store.user_sessions("u2")] == ["b1"]


async def test_live_sessions_are_read_for_many_accounts_at_once(store: Store) -> None:
    await store.create_user(user())
    await store.create_user(user("u2", "Bob", "p-bob"))
    await store.create_session(session("a1"))  # expires at 1_700_001_100
    await store.create_session(session("a2", created_at=1_700_000_900.0))
    await store.create_session(session("b1", "u2"))
    ids = ["a1", "a2", "b1", "gone", "a1"]
    assert await store.live_sessions(ids, 1_700_000_500.0) == {"a1": "u1", "a2": "u1", "b1": "u2"}
    assert await store.live_sessions(ids, 1_700_001_100.0) == {"a2": "u1"}  # the others ran out
    await store.delete_session("u1", "a2")
    assert await store.live_sessions(ids, 1_700_000_500.0) == {"a1": "u1", "b1": "u2"}
    assert await store.live_sessions([], 0.0) == {}
    # Past one query's list of ids (500): a live session in each list, the ids read sorted.
    await store.create_session(session("x0700", "u2"))
    await store.create_session(session("x1100", "u2"))
    many = [f"x{i:04}" for i in range(1_200)] + ["b1"]
    live = {"b1": "u2", "x0700": "u2", "x1100": "u2"}
    assert await store.live_sessions(many, 0.0) == live


async def test_touching_a_session_moves_its_last_seen(store: Store) -> None:
    await store.create_user(user())
    await store.create_session(session("s1"))
    await store.touch_session("s1", 1_700_000_500.0)
    await store.touch_session("gone", 1_700_000_500.0)  # no error
    found = await store.find_session("hash-of-s1")
    assert found is not None
    assert found.last_seen == 1_700_000_500.0


async def test_a_password_change_ends_the_other_sessions_at_once(store: Store) -> None:
    await store.create_user(user())
    for s in (session("s1"), session("s2"), session("s3")):
        await store.create_session(s)
    await store.set_password("u1", "new-hash", 9.0, keep_session="s2")
    changed = await store.get_user("u1")
    assert changed is not None
    assert (changed.password_hash, changed.updated_at) == ("new-hash", 9.0)
    assert [s.id for s in await store.user_sessions("u1")] == ["s2"]
    await store.set_password("u1", "rehashed", 10.0, end_sessions=False)
    assert [s.id for s in await store.user_sessions("u1")] == ["s2"]
    with pytest.raises(StoreError):
        await store.set_password("nobody", "x", 1.0)


async def test_player_tables_are_the_tables_with_one_of_the_ids_seated(store: Store) -> None:
    seats = (SeatRecord(0, "human", "Ann", player_id="g1"), SeatRecord(1, "bot", "Bot"))
    await store.create_table(table("t1", "AAAA", seats=seats, updated_at=10.0))
    other = (SeatRecord(0, "human", "Cy", player_id="g9"), SeatRecord(1, "human", "Ann", "g2"))
    await store.create_table(table("t2", "BBBB", seats=other, updated_at=30.0))
    await store.create_table(table("t3", "CCCC", updated_at=20.0))  # guest-1 only
    found = await store.player_tables(["g1", "g2"], 10)
    assert [t.id for t in found] == ["t2", "t1"]
    assert found[0].seats == other
    assert [t.id for t in await store.player_tables(["g1", "g2"], 1)] == ["t2"]
    assert await store.player_tables([], 10) == []
    assert await store.player_tables(["nobody"], 10) == []
