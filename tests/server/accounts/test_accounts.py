"""Accounts through the real server: sign-up, sign-in, sessions, password changes, rate limits,
a guest's tables taken into an account, and what no endpoint gives away."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from facedown.server.accounts.auth import Tokens
from facedown.server.accounts.passwords import PasswordCost, Passwords
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.base.text import name_key
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore, UserRecord

from ..harness import Player, RunningServer, create_table, run_server, start

SECRET = "accounts-test"  # noqa: S105 - the test server's key
CHEAP = PasswordCost(time_cost=1, memory_kib=1024, parallelism=1)
MANY = Rate(1e6, 1e6)
PASSWORD = "correct horse"  # noqa: S105 - a test account's


def settings(tmp_path: Path, **changes: Any) -> ServerSettings:
    limits = changes.pop(
        "clients",
        ClientLimits(creates=MANY, joins=MANY, signins=MANY, account_signins=MANY, signups=MANY),
    )
    return ServerSettings(
        data_dir=tmp_path,
        secret=SECRET,
        password_cost=changes.pop("password_cost", CHEAP),
        clients=limits,
        behind_proxy=True,  # the tests pick their address with X-Forwarded-For
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
        rate=1e6,
        burst=1e6,
        **changes,
    )


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    with run_server(settings(tmp_path), store) as running:
        yield running


def browser(server: RunningServer, address: str = "10.0.0.1") -> httpx.Client:
    """A client with a cookie jar of its own, as one browser is."""
    return httpx.Client(
        base_url=server.url,
        timeout=10,
        headers={"x-forwarded-for": address, "user-agent": "TestBrowser/1.0"},
    )


def sign_up(
    http: httpx.Client, name: str = "Ann", password: str = PASSWORD, **extra: Any
) -> httpx.Response:
    r = http.post("/api/account/signup", json={"name": name, "password": password, **extra})
    assert r.status_code == 201, r.text
    return r


def sign_in(
    http: httpx.Client, name: str = "Ann", password: str = PASSWORD, **extra: Any
) -> httpx.Response:
    return http.post("/api/account/signin", json={"name": name, "password": password, **extra})


def signed_in_as(http: httpx.Client) -> str | None:
    r = http.get("/api/account")
    if r.status_code == 401:
        assert r.json()["detail"]["code"] == "signed_out"
        return None
    assert r.status_code == 200, r.text
    name: str = r.json()["name"]
    return name


def session_ids(http: httpx.Client) -> list[str]:
    r = http.get("/api/account/sessions")
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["sessions"]]


def test_sign_up_sets_an_http_only_strict_cookie_and_no_token_in_the_body(
    server: RunningServer,
) -> None:
    with browser(server) as http:
        r = sign_up(http)
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("facedown_session=")
        assert "HttpOnly" in cookie
        assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
        assert "Path=/api" in cookie
        assert r.headers["cache-control"] == "no-store"
        token = http.cookies["facedown_session"]
        assert len(token) >= 40
        assert token not in r.text
        created = r.json()["created_at"]
        assert r.json() == {
            "name": "Ann",
            "created_at": created,
            "ratings": [],
            "email": None,
            "email_verified": False,
            "mail_language": "en",
        }
        assert signed_in_as(http) == "Ann"
    with browser(server) as other:
        assert signed_in_as(other) is None


def test_the_store_keeps_only_a_hash_of_the_session_token(
    server: RunningServer, store: MemoryStore
) -> None:
    with browser(server) as http:
        sign_up(http)
        token = http.cookies["facedown_session"]
    user = asyncio.run(store.find_user("ann"))
    assert user is not None
    assert user.password_hash.startswith("$argon2id$")
    assert PASSWORD not in user.password_hash
    [stored] = asyncio.run(store.user_sessions(user.id))
    assert token not in repr(stored)
    assert len(stored.token_hash) == 64


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(server: RunningServer) -> None:
    with browser(server) as http:
        sign_up(http, "Ann")
    with browser(server) as http:
        wrong = sign_in(http, "Ann", "not the password")
        unknown = sign_in(http, "Nobody", "not the password")
        assert http.cookies.get("facedown_session") is None
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["detail"]["code"] == "bad_credentials"
    assert set(wrong.headers) - {"date", "content-length"} == set(unknown.headers) - {
        "date",
        "content-length",
    }


def test_names_are_compared_folded_and_refused_when_unsafe(server: RunningServer) -> None:
    with browser(server) as http:
        sign_up(http, "Ame\u0301lie  Roux")  # decomposed é, two spaces
        assert signed_in_as(http) == "Am\u00e9lie Roux"
        for taken in ("AMÉLIE ROUX", "amélie roux"):
            r = http.post("/api/account/signup", json={"name": taken, "password": PASSWORD})
            assert r.status_code == 409, r.text
            assert r.json()["detail"]["code"] == "name_taken"
        for bad in ("Ann\u202eeoJ", "A\u0000nn", "ab", "x" * 25, "   "):
            r = http.post("/api/account/signup", json={"name": bad, "password": PASSWORD})
            assert r.status_code == 422, (bad, r.text)
        r = http.post("/api/account/signup", json={"name": "Bob", "password": "short"})
        assert r.status_code == 422
    with browser(server) as http:
        assert sign_in(http, "AMÉLIE roux").status_code == 200


def test_names_are_nfkc_with_nothing_invisible_and_never_a_lookalike(
    server: RunningServer,
) -> None:
    def signup(name: str) -> httpx.Response:
        with browser(server) as http:
            return http.post("/api/account/signup", json={"name": name, "password": PASSWORD})

    # NFKC: full-width letters and the fi ligature are written as plain ones.
    r = signup("\uff30\uff41\uff59\ufb01eld")
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "Payfield"
    # Zero-width and other invisible characters: refused, wherever they are.
    for hidden in ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u3164", "\u00ad"):
        r = signup(f"Pay{hidden}field")
        assert r.status_code == 422, (hidden, r.text)
        assert "invisible" in r.text
    # A name that looks like an existing one: Cyrillic letters, a capital I for an l, rn for m.
    assert signup("Paypal").status_code == 201
    assert signup("Emma").status_code == 201
    for lookalike in ("\u0420\u0430\u0443\u0440\u0430l", "PaypaI", "Ernrna", "Payfie1d"):
        r = signup(lookalike)
        assert r.status_code == 409, (lookalike, r.text)
        assert r.json()["detail"]["code"] == "name_taken"
        assert "looks the same" in r.json()["detail"]["message"]
    assert signup("Paypals").status_code == 201  # another name is fine
    with browser(server) as http:  # the owner signs in with the name as it was written
        assert sign_in(http, "\uff30\uff41\uff59\ufb01eld").status_code == 200


def test_an_account_named_under_the_old_rules_still_signs_in(
    server: RunningServer, store: MemoryStore
) -> None:
    """A name with a joiner (allowed before names refused invisible characters) and in NFC."""
    old = "Pri\u200dya \uff21"  # a zero-width joiner, a full-width A
    password_hash = asyncio.run(Passwords(CHEAP).hash(PASSWORD))
    user = UserRecord("u-old", old, name_key(old), password_hash, "p-old", 1.0, 1.0)
    asyncio.run(store.create_user(user))
    with browser(server) as http:
        r = sign_in(http, old)
        assert r.status_code == 200, r.text
        assert r.json()["name"] == old
        r = http.post("/api/account/signup", json={"name": old, "password": PASSWORD})
        assert r.status_code == 422  # but no new account may be named so


def test_sessions_are_listed_and_one_can_be_ended(server: RunningServer) -> None:
    with browser(server) as laptop, browser(server, "10.0.0.2") as phone:
        sign_up(laptop)
        assert sign_in(phone).status_code == 200
        r = laptop.get("/api/account/sessions")
        listed = r.json()["sessions"]
        assert len(listed) == 2
        assert [s["current"] for s in listed].count(True) == 1
        assert {s["agent"] for s in listed} == {"TestBrowser/1.0"}
        assert set(listed[0]) == {"id", "created_at", "last_seen", "expires_at", "agent", "current"}
        phone_session = next(s["id"] for s in listed if not s["current"])
        r = laptop.delete(f"/api/account/sessions/{phone_session}")
        assert r.status_code == 200, r.text
        assert signed_in_as(phone) is None
        assert signed_in_as(laptop) == "Ann"
        assert laptop.delete(f"/api/account/sessions/{phone_session}").status_code == 404


def test_sign_out_ends_this_session_only(server: RunningServer) -> None:
    with browser(server) as laptop, browser(server) as phone:
        sign_up(laptop)
        sign_in(phone)
        r = laptop.post("/api/account/signout")
        assert r.json() == {"ended": 1}
        assert signed_in_as(laptop) is None
        assert signed_in_as(phone) == "Ann"


def test_sign_out_everywhere_ends_every_session(server: RunningServer) -> None:
    with browser(server) as a, browser(server) as b, browser(server) as c:
        sign_up(a)
        sign_in(b)
        sign_in(c)
        r = b.post("/api/account/signout-everywhere")
        assert r.json() == {"ended": 3}
        assert [signed_in_as(x) for x in (a, b, c)] == [None, None, None]
        assert sign_in(a).status_code == 200  # the account itself is fine


def test_a_password_change_ends_the_other_sessions(server: RunningServer) -> None:
    with browser(server) as laptop, browser(server) as phone:
        sign_up(laptop)
        sign_in(phone)
        wrong = {"current_password": "not the password", "new_password": "a new password"}
        r = laptop.post("/api/account/password", json=wrong)
        assert r.status_code == 403
        assert r.json()["detail"]["code"] == "bad_password"
        assert signed_in_as(phone) == "Ann"
        right = {"current_password": PASSWORD, "new_password": "a new password"}
        r = laptop.post("/api/account/password", json=right)
        assert r.status_code == 200, r.text
        assert r.json() == {"ended": 1}
        assert signed_in_as(laptop) == "Ann"
        assert signed_in_as(phone) is None
        assert sign_in(phone).status_code == 401
        assert sign_in(phone, password="a new password").status_code == 200


def test_no_endpoint_shows_or_ends_another_accounts_sessions(server: RunningServer) -> None:
    with browser(server) as ann, browser(server) as bob:
        sign_up(ann, "Ann")
        sign_up(bob, "Bob")
        bobs = session_ids(bob)
        assert not set(bobs) & set(session_ids(ann))
        for session_id in bobs:
            r = ann.delete(f"/api/account/sessions/{session_id}")
            assert r.status_code == 404
            assert r.json()["detail"]["code"] == "no_session"
        assert signed_in_as(bob) == "Bob"
        assert session_ids(bob) == bobs
        # Nothing about Bob in any of Ann's answers.
        for path in ("/api/account", "/api/account/sessions", "/api/account/history"):
            text = ann.get(path).text
            assert "Bob" not in text
            assert not any(s in text for s in bobs)


def test_requests_from_another_site_may_not_use_the_session(server: RunningServer) -> None:
    with browser(server) as http:
        sign_up(http)
        evil = {"origin": "http://evil.example"}
        for path in ("/api/account/signout", "/api/account/signout-everywhere"):
            r = http.post(path, headers=evil)
            assert r.status_code == 403, r.text
            assert r.json()["detail"]["code"] == "cross_site"
        r = http.post("/api/account/signout", headers={"sec-fetch-site": "cross-site"})
        assert r.status_code == 403
        r = http.post("/api/tables", json={"preset": "kivo", "seats": 2}, headers=evil)
        assert r.status_code == 403
        r = http.post(
            "/api/account/signin",
            content=json.dumps({"name": "Ann", "password": PASSWORD}),
            headers={"content-type": "text/plain"},  # what a form of another site can send
        )
        assert r.status_code == 422
        assert signed_in_as(http) == "Ann"
        same = {"origin": server.url, "sec-fetch-site": "same-origin"}
        assert http.post("/api/account/signout", headers=same).status_code == 200


def test_sign_in_is_limited_per_account_name_from_one_address(tmp_path: Path) -> None:
    limits = ClientLimits(signins=MANY, account_signins=Rate(1e-9, 3), signups=MANY)
    with run_server(settings(tmp_path, clients=limits), MemoryStore()) as server:
        with browser(server) as http:
            sign_up(http)
        with browser(server, "10.1.0.1") as http:
            answers = [sign_in(http, "Ann", "wrong password").status_code for _ in range(4)]
            assert answers == [401, 401, 401, 429]
            r = sign_in(http)  # even the right password, from this address: it rests
            assert r.status_code == 429
            assert r.json()["detail"]["code"] == "rate_limited"
            # Another account is not held back, nor an unknown name (limited like a real one).
            assert sign_in(http, "Nobody", "wrong password").status_code == 401
            unknown = [sign_in(http, "Nobody", "wrong password").status_code for _ in range(3)]
            assert unknown == [401, 401, 429]
        with browser(server, "10.1.0.2") as http:  # the owner, elsewhere: at once
            assert sign_in(http).status_code == 200


def test_sign_in_is_limited_per_address_whatever_the_name(tmp_path: Path) -> None:
    limits = ClientLimits(signins=Rate(1e-9, 3), account_signins=MANY, signups=MANY)
    with run_server(settings(tmp_path, clients=limits), MemoryStore()) as server:
        with browser(server, "10.2.0.1") as http:
            sign_up(http)
            codes = [sign_in(http, f"Name{i}", "wrong password").status_code for i in range(3)]
            assert codes == [401, 401, 401]
            assert sign_in(http).status_code == 429
        with browser(server, "10.2.0.2") as http:
            assert sign_in(http).status_code == 200


def test_sign_up_is_limited_per_address(tmp_path: Path) -> None:
    limits = ClientLimits(signups=Rate(1e-9, 2))
    with run_server(settings(tmp_path, clients=limits), MemoryStore()) as server:
        with browser(server, "10.3.0.1") as http:
            sign_up(http, "One")
            sign_up(http, "Two")
            r = http.post("/api/account/signup", json={"name": "Three", "password": PASSWORD})
            assert r.status_code == 429
        with browser(server, "10.3.0.2") as http:
            sign_up(http, "Three")


def test_a_hash_of_older_parameters_is_redone_at_sign_in(tmp_path: Path) -> None:
    store = MemoryStore()
    with run_server(settings(tmp_path), store) as server, browser(server) as http:
        sign_up(http)
    before = asyncio.run(store.find_user("ann"))
    assert before is not None
    assert "$m=1024,t=1,p=1$" in before.password_hash
    stronger = PasswordCost(time_cost=2, memory_kib=2048, parallelism=1)
    with (
        run_server(settings(tmp_path, password_cost=stronger), store) as server,
        browser(server) as http,
    ):
        assert signed_in_as(http) is None  # a new browser
        assert sign_in(http).status_code == 200
        after = asyncio.run(store.find_user("ann"))
        assert after is not None
        assert "$m=2048,t=2,p=1$" in after.password_hash
        assert len(asyncio.run(store.user_sessions(after.id))) == 2  # none ended by it
        http.cookies.clear()
        assert sign_in(http).status_code == 200  # the new hash checks the same password


async def _play_out(server: RunningServer, code: str, tokens: list[str]) -> None:
    await start(server, code, tokens[0])
    players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
    async with asyncio.timeout(120):
        await asyncio.gather(*(p.play() for p in players))
    assert all(p.done for p in players)


def test_a_guest_who_signs_up_keeps_their_tables_and_history(server: RunningServer) -> None:
    code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
    asyncio.run(_play_out(server, code, tokens))
    guest = Tokens(SECRET).check(tokens[0])
    assert guest is not None
    with browser(server) as http:
        sign_up(http, "Ann", guest_tokens=[tokens[0], "not-a-token"])
        r = http.get("/api/account/history")
        assert r.status_code == 200, r.text
        [match] = r.json()["matches"]
        assert match["code"] == code
        assert match["match_no"] == 1
        assert match["preset"] == "kivo"
        assert match["you"] == [0]
        assert [s["name"] for s in match["seats"]] == ["Ann", "P1"]
        assert len(match["scores"]) == 2
        assert match["winners"]
        assert match["won"] == (0 in match["winners"])
        # At a new table the account sits with an id of its own, which no guest token names,
        # and its seat token is bound to this session and that table.
        r = http.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "Ann"})
        seated = Tokens(SECRET).check(r.json()["token"])
        assert seated is not None
        assert seated.player_id != guest.player_id
        assert seated.session is not None
        assert seated.table is not None
        # The old seat from a new device.
    with browser(server, "10.0.0.9") as phone:
        assert sign_in(phone).status_code == 200
        r = phone.post(f"/api/tables/{code}/join", json={"name": "Ann"})
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == 0  # the seat the guest had, not a new one
    # The old seat token still names the seat.
    with server.http() as http:
        r = http.post(
            f"/api/tables/{code}/join",
            json={"name": "Ann"},
            headers={"authorization": f"Bearer {tokens[0]}"},
        )
        assert r.json()["seat"] == 0


def test_a_guest_id_held_by_an_account_is_not_taken_by_another(server: RunningServer) -> None:
    code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
    asyncio.run(_play_out(server, code, tokens))
    with browser(server) as ann:
        sign_up(ann, "Ann", guest_tokens=[tokens[0]])
    with browser(server) as mallory:
        sign_up(mallory, "Mallory", guest_tokens=[tokens[0]])  # a copied token of Ann's
        assert mallory.get("/api/account/history").json() == {"matches": []}
        r = mallory.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "M"})
        seated = Tokens(SECRET).check(r.json()["token"])
        guest = Tokens(SECRET).check(tokens[0])
        assert seated is not None
        assert guest is not None
        assert seated.player_id != guest.player_id


def test_the_history_holds_no_card_and_no_seed(server: RunningServer) -> None:
    code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
    asyncio.run(_play_out(server, code, tokens))
    with browser(server) as http:
        sign_up(http, "Ann", guest_tokens=[tokens[1]])  # the other seat this time
        [match] = http.get("/api/account/history").json()["matches"]
    assert match["you"] == [1]
    assert set(match) == {
        "table_id",
        "code",
        "match_no",
        "preset",
        "finished_at",
        "seats",
        "scores",
        "winners",
        "you",
        "won",
    }
    assert {key for seat in match["seats"] for key in seat} == {"seat", "name", "kind", "bot_level"}
    assert all(isinstance(x, int) for x in match["scores"] + match["winners"])


async def _send_rematch(server: RunningServer, code: str, host_token: str) -> None:
    """The host asks for a rematch and waits for the new match's first snapshot."""
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "token": host_token}))
        await ws.send(json.dumps({"type": "rematch"}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg["type"] == "error":
                raise RuntimeError(msg)
            if msg["type"] == "table" and msg["table"]["match"] == 2:
                return


def test_a_history_lists_every_match_of_a_rematched_table(server: RunningServer) -> None:
    code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
    asyncio.run(_play_out(server, code, tokens))
    with browser(server) as http:
        sign_up(http, "Ann", guest_tokens=[tokens[0]])
        assert len(http.get("/api/account/history").json()["matches"]) == 1

        async def rematch() -> None:
            await _send_rematch(server, code, tokens[0])
            players = [Player(server.ws_url, code, t, seed=7 + i) for i, t in enumerate(tokens)]
            async with asyncio.timeout(120):
                await asyncio.gather(*(p.play() for p in players))

        asyncio.run(rematch())
        matches = http.get("/api/account/history").json()["matches"]
        assert [m["match_no"] for m in matches] == [2, 1]


def test_signed_out_requests_are_refused(server: RunningServer) -> None:
    with browser(server) as http:
        for method, path in (
            ("GET", "/api/account"),
            ("GET", "/api/account/sessions"),
            ("GET", "/api/account/history"),
            ("POST", "/api/account/signout-everywhere"),
            ("DELETE", "/api/account/sessions/abcd"),
        ):
            r = http.request(method, path)
            assert r.status_code == 401, (path, r.text)
        http.cookies.set("facedown_session", "forged-token-value", path="/api")
        assert signed_in_as(http) is None
        assert http.post("/api/account/signout").json() == {"ended": 0}
