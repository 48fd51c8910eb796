"""Turn-based tables through a real server: uvicorn, SQLite in a data folder, a real local SMTP
server (aiosmtpd) that receives the turn e-mails, and a FakeClock so that deadlines pass without
waiting.  The match is played across two restarts of the server on the same data, one of them
while a deadline passed; then the seat that missed three deadlines is forfeited to a bot."""

from __future__ import annotations

import asyncio
import contextlib
import email
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller

from facedown.server.base.clock import FakeClock
from facedown.server.edge.settings import ServerSettings

from ..accounts.test_accounts import browser, settings, sign_up
from ..accounts.test_mail_flow import text_of
from ..harness import (
    Client,
    RunningServer,
    advance,
    applied,
    free_port,
    harmless,
    run_server,
    seated,
    start,
)

HOUR = 3600.0
BOB_MAIL = "bob@example.test"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Inbox:
    """An aiosmtpd handler that keeps every message it is given."""

    messages: list[Message] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    async def wait_for(self, count: int) -> list[Message]:
        """At least ``count`` messages (bounded: the mail goes out in a task of its own)."""
        for _ in range(400):
            if len(self.messages) >= count:
                return self.messages
            await asyncio.sleep(0.025)
        raise AssertionError(f"{len(self.messages)} e-mails arrived, {count} expected")


@contextlib.contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def _settings(tmp_path: Path, smtp_port: int) -> ServerSettings:
    return settings(
        tmp_path,
        smtp_host="127.0.0.1",
        smtp_port=smtp_port,
        smtp_sender="facedown@example.test",
        public_url="http://facedown.test",
    )


def _games(http: httpx.Client) -> dict[str, Any]:
    r = http.get("/api/account/games")
    assert r.status_code == 200, r.text
    games: dict[str, Any] = r.json()
    return games


def _bob_at(http: httpx.Client, code: str) -> dict[str, Any]:
    """The table as it is in Bob's games list."""
    game: dict[str, Any] = next(g for g in _games(http)["games"] if g["code"] == code)
    return game


async def _drive(
    server: RunningServer, clock: FakeClock, ann: Client, bob: httpx.Client, code: str, done: Any
) -> None:
    """Ann makes her own moves (harmless ones) as soon as they are hers; whenever the table
    waits for Bob, time moves on to his deadline; until ``done(Bob's game)``."""
    for _ in range(400):
        await advance(server, clock, 0)  # a bot's move, when a bot plays Bob's seat
        await ann.settle()
        game = _bob_at(bob, code)
        if done(game):
            return
        action = harmless([a for a in ann.legal if a["do"] != "tap"])
        if action is not None:
            ack = await ann.act(action)
            assert applied(ack), ack
        elif game["deadline"] is not None and 1 in game["waiting_for"]:
            await advance(server, clock, game["deadline"] - clock.now())
    raise AssertionError("the table never got where the test wanted it")


@pytest.mark.anyio
async def test_a_match_across_restarts_with_deadlines_passing_and_a_forfeit(
    tmp_path: Path,
) -> None:
    with smtp_server() as (inbox, smtp_port), contextlib.ExitStack() as browsers:
        settings_ = _settings(tmp_path, smtp_port)
        clock = FakeClock()
        with run_server(settings_, clock=clock) as server:
            ann, bob = browser(server, "10.0.0.1"), browser(server, "10.0.0.2")
            browsers.enter_context(ann)
            browsers.enter_context(bob)
            sign_up(ann, "Ann")
            sign_up(bob, "Bob")
            r = bob.put("/api/account/email", json={"email": BOB_MAIL})
            assert r.json() == {
                "email": BOB_MAIL,
                "verified": False,
                "language": "en",
                "sent": True,
            }
            # Bob confirms his address with the link the server mailed him (docs/turn-based.md).
            [confirmation] = inbox.messages
            words = text_of(confirmation).split()
            link = next(w for w in words if "/api/mail/confirm?" in w)
            r = bob.post(link.removeprefix("http://facedown.test"))
            assert r.status_code == 200, r.text
            assert bob.get("/api/account").json()["email_verified"] is True
            inbox.messages.clear()
            body = {
                "preset": "kivo",
                "seats": 2,
                "name": "Ann",
                "options": {"rounds": 1},
                "mode": "turn_based",
                "move_deadline": 3600,
            }
            r = ann.post("/api/tables", json=body)
            assert r.status_code == 200, r.text
            code, ann_token = r.json()["code"], r.json()["token"]
            assert r.json()["table"]["settings"] == {
                "mode": "turn_based",
                "peek_seconds": 3600,
                "turn_seconds": 3600,
            }
            assert r.json()["table"]["rules"]["recollection"] is True
            assert bob.post(f"/api/tables/{code}/join", json={"name": "Bob"}).status_code == 200
            await start(server, code, ann_token)  # from Ann's connection: she is here

            # Bob is not here: he is told by e-mail, and his games list marks the table.
            [mail] = await inbox.wait_for(1)
            assert mail["To"] == BOB_MAIL
            assert mail["From"] == "facedown@example.test"
            assert code in mail["Subject"]
            text = text_of(mail)
            assert f"http://facedown.test/t/{code}" in text
            games = _games(bob)
            assert games["your_move"] == 1
            assert games["games"][0]["code"] == code
            assert games["games"][0]["your_move"] is True
            assert games["games"][0]["deadline"] == clock.now() + HOUR

            async with seated(server, code, [ann_token]) as [a]:
                ack = await a.act({"do": "opening_peek", "slots": [0, 1]})
                assert applied(ack)
                await a.settle()
                assert sorted(a.view["knowledge"]) == ["0:0", "0:1"]  # Recollection
            assert _games(ann)["your_move"] == 0
            assert _bob_at(bob, code)["missed"] == 0
            down_at = clock.now()

        # The server is down while Bob's deadline passes; it starts again on the same data.
        clock = FakeClock(start=down_at + HOUR + 60)
        with run_server(settings_, clock=clock) as server:
            ann.base_url = bob.base_url = httpx.URL(server.url)  # the same browsers, cookies
            await advance(server, clock, 0)  # the deadline that passed meanwhile
            game = _bob_at(bob, code)
            assert game["missed"] == 1
            assert game["status"] == "playing"
            async with seated(server, code, [ann_token]) as [a]:
                assert a.view["knowledge"]  # what Ann learned is still hers after a restart
                await _drive(server, clock, a, bob, code, lambda g: g["missed"] == 2)
            down_at = clock.now()

        clock = FakeClock(start=down_at + 60)
        with run_server(settings_, clock=clock) as server:
            ann.base_url = bob.base_url = httpx.URL(server.url)
            assert _bob_at(bob, code)["missed"] == 2  # the misses are in the log
            async with seated(server, code, [ann_token]) as [a]:
                await _drive(server, clock, a, bob, code, lambda g: g["seats"][1]["forfeited"])
                game = _bob_at(bob, code)
                assert game["missed"] == 3
                assert game["your_move"] is False  # a bot plays Bob's seat now
                assert a.table["seats"][1]["forfeited"] is True
                assert a.table["seats"][1]["bot_standin"] is True
                mails = len(inbox.messages)
                await _drive(server, clock, a, bob, code, lambda g: g["status"] == "finished")
            assert len(inbox.messages) == mails  # no mail for a seat a bot plays
            history = bob.get("/api/account/history").json()["matches"]
            assert [m["code"] for m in history] == [code]
        # Bob was mailed each time the table started waiting for him (three waits at least).
        assert len(inbox.messages) >= 3
        assert {m["To"] for m in inbox.messages} == {BOB_MAIL}


def test_another_device_of_the_account_gets_its_seat(tmp_path: Path) -> None:
    with (
        run_server(settings(tmp_path)) as server,
        browser(server) as ann,
        browser(server, "10.0.0.3") as phone,
        browser(server, "10.0.0.4") as eve,
    ):
        sign_up(ann, "Ann")
        sign_up(eve, "Eve")
        r = phone.post("/api/account/signin", json={"name": "Ann", "password": "correct horse"})
        assert r.status_code == 200
        body = {"preset": "cabo", "seats": 2, "name": "Ann", "bots": ["random"]}
        code = ann.post("/api/tables", json={**body, "mode": "turn_based"}).json()["code"]
        r = phone.get(f"/api/tables/{code}/seat")
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == 0
        r = eve.get(f"/api/tables/{code}/seat")
        assert (r.status_code, r.json()["detail"]["code"]) == (404, "no_seat")
        r = httpx.get(f"{server.url}/api/tables/{code}/seat")
        assert (r.status_code, r.json()["detail"]["code"]) == (401, "signed_out")


def test_the_rounds_of_kivo_and_the_deadlines_are_checked(tmp_path: Path) -> None:
    with run_server(settings(tmp_path)) as server, server.http() as http:

        def create(preset: str, options: dict[str, Any], **extra: Any) -> httpx.Response:
            body = {"preset": preset, "seats": 2, "options": options, **extra}
            return http.post("/api/tables", json=body)

        for good in (1, 3, 5):
            for mode in ({}, {"mode": "turn_based"}):
                r = create("kivo", {"rounds": good}, **mode)
                assert r.status_code == 200, r.text
        refused: tuple[int | None, ...] = (2, 4, None)
        for rounds in refused:
            for mode in ({}, {"mode": "turn_based"}):
                r = create("kivo", {"rounds": rounds, "score_limit": 100}, **mode)
                assert r.status_code == 400, r.text
                assert r.json()["detail"]["code"] == "bad_rounds"
                assert "1, 3 or 5" in r.json()["detail"]["message"]
        # Dropping the rule from the ruleset does not drop it (issue 34 §1); other games keep
        # any number.
        r = create("kivo", {"rounds": 2, "round_choices": None})
        assert (r.status_code, r.json()["detail"]["code"]) == (400, "bad_rounds")
        assert create("cabo", {"rounds": 2}).status_code == 200
        r = create("kivo", {"rounds": 1}, mode="turn_based", move_deadline=90)
        assert (r.status_code, r.json()["detail"]["code"]) == (400, "bad_deadline")
        r = create("kivo", {"rounds": 1, "recollection": True})
        assert (r.status_code, r.json()["detail"]["code"]) == (400, "turn_based_only")


def test_an_e_mail_address_is_shown_to_its_owner_only(tmp_path: Path) -> None:
    with (
        run_server(settings(tmp_path)) as server,
        browser(server) as ann,
        browser(server, "10.0.0.2") as bob,
    ):
        sign_up(ann, "Ann")
        sign_up(bob, "Bob")
        r = bob.put("/api/account/email", json={"email": "  " + BOB_MAIL + " "})
        assert r.json()["email"] == BOB_MAIL
        assert r.json()["verified"] is False  # this server sends no mail: never confirmed
        assert bob.get("/api/account").json()["email"] == BOB_MAIL
        r = bob.put("/api/account/email", json={"email": "not an address"})
        assert (r.status_code, r.json()["detail"]["code"]) == (422, "bad_email")
        body = {"preset": "kivo", "seats": 2, "name": "Ann", "options": {"rounds": 1}}
        code = ann.post("/api/tables", json={**body, "mode": "turn_based"}).json()["code"]
        joined = bob.post(f"/api/tables/{code}/join", json={"name": "Bob"})
        answers = [
            joined.text,
            ann.get("/api/account").text,
            ann.get("/api/account/games").text,
            ann.get(f"/api/tables/{code}").text,
            ann.get(f"/api/tables/{code}/seat").text,
            bob.get("/api/account/games").text,  # Bob's own list names no address either
            httpx.get(f"{server.url}/api/tables/{code}").text,
        ]
        assert all("example.test" not in text for text in answers)
        r = bob.put("/api/account/email", json={"email": None})
        assert r.json()["email"] is None
        assert bob.get("/api/account").json()["email"] is None
