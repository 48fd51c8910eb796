"""Attacks on an account through a copied seat token, against the real server (SQLite store).

A seat token an account holder got is bound to the session that got it and to one table: once
that session ends (password change, "sign out everywhere", ending it from the sessions list,
signing out) the copy is refused on hello and on rotation with ``bad_token``, and at no time
does it open another table of the account or mint a token that would.  A guest's token is
unchanged: it plays its seat and rotates as before.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from facedown.server.accounts.accounts import Accounts, SignedIn
from facedown.server.accounts.auth import Tokens

from ..harness import RunningServer, run_server
from .test_accounts import PASSWORD, SECRET, browser, settings, sign_in, sign_up


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with run_server(settings(tmp_path)) as running:  # no store given: SQLite in tmp_path
        yield running


def hello(server: RunningServer, code: str, token: str) -> dict[str, Any]:
    """The server's first answer to a hello with ``token``: welcome, or an error."""

    async def talk() -> dict[str, Any]:
        async with connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
            answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            return answer

    return asyncio.run(talk())


def seated(server: RunningServer, code: str, token: str) -> bool:
    answer = hello(server, code, token)
    assert answer["type"] in ("welcome", "error"), answer
    return answer["type"] == "welcome" and answer["seat"] is not None


def refused(server: RunningServer, code: str, token: str) -> bool:
    answer = hello(server, code, token)
    return answer.get("type") == "error" and answer.get("code") == "bad_token"


def rotate(server: RunningServer, token: str) -> httpx.Response:
    with server.http() as http:
        return http.post("/api/session/rotate", headers={"authorization": f"Bearer {token}"})


def new_table(http: httpx.Client) -> tuple[str, str]:
    r = http.post("/api/tables", json={"preset": "kivo", "seats": 3, "name": "Ann"})
    assert r.status_code == 200, r.text
    return r.json()["code"], r.json()["token"]


def assert_dead(server: RunningServer, code: str, token: str) -> None:
    """The attacker's copy is refused on hello and on rotation."""
    assert refused(server, code, token)
    r = rotate(server, token)
    assert r.status_code == 401
    assert r.json()["detail"]["code"] == "bad_token"


def _change_password(owner: httpx.Client) -> None:
    body = {"current_password": PASSWORD, "new_password": "another password"}
    assert owner.post("/api/account/password", json=body).status_code == 200


def _sign_out_everywhere(owner: httpx.Client) -> None:
    assert owner.post("/api/account/signout-everywhere").status_code == 200


def _sign_out(owner: httpx.Client) -> None:
    assert owner.post("/api/account/signout").json() == {"ended": 1}


@pytest.mark.parametrize(
    "revoke",
    [_change_password, _sign_out_everywhere, _sign_out],
    ids=["password_change", "sign_out_everywhere", "sign_out"],
)
def test_a_stolen_seat_token_dies_with_its_session(
    server: RunningServer, revoke: Callable[[httpx.Client], None]
) -> None:
    with browser(server) as owner:
        sign_up(owner)
        code, token = new_table(owner)
        stolen = token  # the attacker's copy
        assert seated(server, code, stolen)  # it worked while the session lived
        r = rotate(server, stolen)  # and was renewed: the renewed copy dies as well
        assert r.status_code == 200, r.text
        renewed = r.json()["token"]
        revoke(owner)
        assert_dead(server, code, stolen)
        assert_dead(server, code, renewed)
        # The owner, signed in (again), gets the seat back with a token of the new session.
        if owner.get("/api/account").status_code != 200:  # signed out: signs in again
            assert sign_in(owner).status_code == 200
        r = owner.get(f"/api/tables/{code}/seat")
        assert r.status_code == 200, r.text
        assert seated(server, code, r.json()["token"])


def test_ending_the_session_from_another_device_revokes_its_tokens(server: RunningServer) -> None:
    with browser(server) as laptop, browser(server, "10.0.0.2") as phone:
        sign_up(laptop)
        sign_in(phone)
        code, stolen = new_table(laptop)
        mine = phone.get(f"/api/tables/{code}/seat").json()["token"]  # the phone's own
        assert seated(server, code, stolen)
        laptop_session = next(
            s["id"] for s in laptop.get("/api/account/sessions").json()["sessions"] if s["current"]
        )
        assert phone.delete(f"/api/account/sessions/{laptop_session}").status_code == 200
        assert_dead(server, code, stolen)
        assert seated(server, code, mine)  # another session's token lives on


def test_a_stolen_token_opens_no_other_table_of_the_account(server: RunningServer) -> None:
    with browser(server) as owner:
        sign_up(owner)
        first, stolen = new_table(owner)
        later, _ = new_table(owner)  # made after the theft: the account's id sits there
        assert seated(server, first, stolen)
        assert refused(server, later, stolen)  # bound to the first table only
        rotated = rotate(server, stolen).json()["token"]
        assert refused(server, later, rotated)  # a renewal is bound the same way
        account_ids = {Tokens(SECRET).check(stolen).player_id}  # type: ignore[union-attr]
        with server.http() as attacker:
            bearer = {"authorization": f"Bearer {stolen}"}
            # Joining the later table with it: a new guest's seat, not the account's.
            r = attacker.post(f"/api/tables/{later}/join", json={"name": "M"}, headers=bearer)
            assert r.status_code == 200, r.text
            assert r.json()["seat"] != 0
            joined = Tokens(SECRET).check(r.json()["token"])
            assert joined is not None
            assert joined.player_id not in account_ids
            # Making a table with it: the attacker sits as a new guest too.
            r = attacker.post(
                "/api/tables", json={"preset": "kivo", "seats": 2, "name": "M"}, headers=bearer
            )
            made = Tokens(SECRET).check(r.json()["token"])
            assert made is not None
            assert made.player_id not in account_ids
        # A token forged to say the account's id with no session is refused (this needs the
        # server's secret: it is what a token of an account from before the binding looks like).
        _, unbound = Tokens(SECRET).issue("Ann", next(iter(account_ids)))
        assert refused(server, later, unbound)
        assert rotate(server, unbound).status_code == 401


def test_a_guest_token_still_plays_and_rotates_its_table(server: RunningServer) -> None:
    with server.http() as guest:
        r = guest.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "G"})
        code, token = r.json()["code"], r.json()["token"]
    assert Tokens(SECRET).check(token).session is None  # type: ignore[union-attr]
    assert seated(server, code, token)
    r = rotate(server, token)
    assert r.status_code == 200, r.text
    assert seated(server, code, r.json()["token"])
    assert refused(server, code, token)  # rotated away, as before


# ---------------------------------------------------------------- a connection already open


def _end_from_another_device(server: RunningServer, owner: httpx.Client) -> None:
    with browser(server, "10.0.0.2") as phone:
        assert sign_in(phone).status_code == 200
        current = next(
            s["id"] for s in owner.get("/api/account/sessions").json()["sessions"] if s["current"]
        )
        assert phone.delete(f"/api/account/sessions/{current}").status_code == 200


def _by_owner(
    revoke: Callable[[httpx.Client], None],
) -> Callable[[RunningServer, httpx.Client], None]:
    return lambda server, owner: revoke(owner)


async def _thief_is_thrown_out(
    server: RunningServer, code: str, stolen: str, revoke: Callable[[], None]
) -> list[Any]:
    """The thief holds the seat's connection open with the stolen token while the owner ends
    the session: what it receives from then on, up to its close (the close code last)."""
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "token": stolen}))
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert first["type"] == "welcome", first
        assert first["seat"] == 0, first
        await asyncio.to_thread(revoke)
        return await _until_closed(ws, 10)


async def _until_closed(ws: ClientConnection, quiet: float) -> list[Any]:
    """What the connection receives up to its close, the close code last (a wait of over
    ``quiet`` seconds for the next message fails the test)."""
    got: list[Any] = []
    try:
        while True:
            got.append(json.loads(await asyncio.wait_for(ws.recv(), quiet)))
    except ConnectionClosed as closed:
        got.append(closed.rcvd.code if closed.rcvd is not None else None)
    return got


@pytest.mark.parametrize(
    "revoke",
    [
        _by_owner(_change_password),
        _by_owner(_sign_out_everywhere),
        _by_owner(_sign_out),
        _end_from_another_device,
    ],
    ids=["password_change", "sign_out_everywhere", "sign_out", "ended_elsewhere"],
)
def test_an_open_connection_of_a_stolen_token_is_closed_when_its_session_ends(
    server: RunningServer, revoke: Callable[[RunningServer, httpx.Client], None]
) -> None:
    """Checked at hello is not enough: the thief connected while the session lived, and would
    go on playing the seat and seeing its cards.  Ending the session closes it at once."""
    with browser(server) as owner:
        sign_up(owner)
        code, stolen = new_table(owner)
        got = asyncio.run(_thief_is_thrown_out(server, code, stolen, lambda: revoke(server, owner)))
    assert got[-1] == 4003, got
    errors = [m for m in got[:-1] if isinstance(m, dict) and m.get("type") == "error"]
    assert [e["code"] for e in errors] == ["bad_token"], got
    assert refused(server, code, stolen)


def test_an_open_connection_is_closed_when_its_session_runs_out(tmp_path: Path) -> None:
    """No route ends it: the session's time is up (or another process of a cluster ended it).
    Every process checks the sessions behind its open seats every ``session_check`` seconds."""
    quick = settings(tmp_path, account_lifetime=3.0, session_check=0.5)
    with run_server(quick) as server, browser(server) as owner:
        sign_up(owner)
        code, stolen = new_table(owner)
        got = asyncio.run(_thief_is_thrown_out(server, code, stolen, lambda: None))
    assert got[-1] == 4003, got
    errors = [m for m in got[:-1] if isinstance(m, dict) and m.get("type") == "error"]
    assert [e["code"] for e in errors] == ["bad_token"], got


def test_a_guest_connection_and_another_session_stay_open(server: RunningServer) -> None:
    """Only the connections of the session that ended close: the owner's phone, signed in on a
    session of its own, plays on."""

    async def scenario(code: str, mine: str, laptop: httpx.Client) -> Any:
        async with connect(server.ws_url) as ws:
            await ws.send(json.dumps({"type": "hello", "table": code, "token": mine}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "welcome"
            await asyncio.to_thread(_sign_out, laptop)
            await ws.send(json.dumps({"type": "ping"}))
            while True:
                answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if answer["type"] == "pong":
                    return answer

    with browser(server) as laptop, browser(server, "10.0.0.2") as phone:
        sign_up(laptop)
        sign_in(phone)
        code, _ = new_table(laptop)
        mine = phone.get(f"/api/tables/{code}/seat").json()["token"]
        assert asyncio.run(scenario(code, mine, laptop)) == {"type": "pong"}


def test_a_seat_of_a_guest_id_the_account_took_in_closes_at_sign_out_too(tmp_path: Path) -> None:
    """The account sits at a table it made as a guest (its guest id taken in at sign-up): the
    seat token of its session names that guest id, not the account's own, and its connection
    closes when the session ends all the same, at once (the sweep is a minute away here)."""
    with run_server(settings(tmp_path, session_check=60.0)) as server:
        with server.http() as guest:
            r = guest.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "G"})
            code, guest_token = r.json()["code"], r.json()["token"]
        with browser(server) as owner:
            sign_up(owner, guest_tokens=[guest_token])
            r = owner.get(f"/api/tables/{code}/seat")
            assert r.status_code == 200, r.text
            token = r.json()["token"]
            got = asyncio.run(_thief_is_thrown_out(server, code, token, lambda: _sign_out(owner)))
    assert got[-1] == 4003, got


def test_a_session_ended_just_after_a_hello_read_it_still_closes_the_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race a hello must not lose: the owner's sign-out lands just after the hello read the
    session as live, before the hello is answered. The connection is watched before that read,
    so the sign-out closes it at once (the sweep is a minute away here)."""
    read_session = Accounts.session_lives
    armed: list[bool] = []

    async def signed_out_right_after(self: Accounts, owner: str, session: str) -> bool:
        lives = await read_session(self, owner, session)
        if armed and armed.pop():  # the owner signs out, through the real sign-out
            user = await self.store.get_user(owner)
            record = next(s for s in await self.store.user_sessions(owner) if s.id == session)
            assert user is not None
            await self.sign_out(SignedIn(user, record))
        return lives

    monkeypatch.setattr(Accounts, "session_lives", signed_out_right_after)

    async def thief(server: RunningServer, code: str, stolen: str) -> list[Any]:
        async with connect(server.ws_url) as ws:
            armed.append(True)
            await ws.send(json.dumps({"type": "hello", "table": code, "token": stolen}))
            return await _until_closed(ws, 5)

    with run_server(settings(tmp_path, session_check=60.0)) as server, browser(server) as owner:
        sign_up(owner)
        code, stolen = new_table(owner)
        got = asyncio.run(thief(server, code, stolen))
        assert not armed  # the hello's read was the one that armed sign-out
        assert got[-1] == 4003, got
        # Nothing of the seat reached it (no welcome with its cards): the error, then the close.
        assert [m["code"] for m in got[:-1]] == ["bad_token"], got
        assert refused(server, code, stolen)
