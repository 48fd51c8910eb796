"""Test hooks: a chosen seed and a stacked first deal, only on a server started with them.

Without test hooks the fields are refused with a clear error and nothing is created.  With them,
the table is dealt exactly as stacked, the deal never reaches a client, and a restarted server
rebuilds the table from its store to the same state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from facedown.cli import build_parser
from facedown.engine import Ruleset
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    RunningServer,
    applied,
    begin,
    client,
    create_table,
    play_until,
    run_server,
    seated,
)

SLOW_TIMERS: dict[str, Any] = {"peek_seconds": 600, "turn_seconds": 3600}
# cabo, two seats: seat 1 starts and draws the 4 that matches the two 4s it holds.
DEAL: dict[str, Any] = {
    "hands": [["7", "2", "9", "13"], ["4", "4", "0", "12"]],
    "discard": "5",
    "draw": ["4", "1"],
    "first": 1,
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path, *, test_hooks: bool) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="hooks",
        table=TableConfig(bot_delay=0.0, reveal_seconds=600),
        rate=1e6,
        clients=NO_ADDRESS_LIMITS,
        burst=1e6,
        test_hooks=test_hooks,
    )


def lobby_of(server: RunningServer) -> Lobby:
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    found: Lobby = app.state.lobby()
    return found


def game_snapshot(server: RunningServer, code: str) -> dict[str, Any]:
    """The whole engine state of a table, as the server holds it (read while the table is idle)."""
    lobby = lobby_of(server)
    table = next(t for t in lobby.tables.values() if t.record.code == code)
    assert table.game is not None
    return table.game.snapshot()


def dealt_names(snapshot: dict[str, Any]) -> list[list[str]]:
    deck = Ruleset.from_json(snapshot["rules"]).deck_cards
    return [[deck.names[c] for c in hand] for hand in snapshot["hands"]]


def test_seed_and_deal_are_refused_without_test_hooks(tmp_path: Path) -> None:
    with (
        run_server(settings(tmp_path, test_hooks=False), MemoryStore()) as server,
        server.http() as http,
    ):
        for extra in ({"seed": 7}, {"deal": DEAL}, {"seed": 7, "deal": DEAL}):
            r = http.post("/api/tables", json={"preset": "cabo", "seats": 2, **extra})
            assert r.status_code == 403, r.text
            detail = r.json()["detail"]
            assert detail["code"] == "test_hooks_off"
            assert "--test-hooks" in detail["message"]
        assert http.get("/api/health").json()["tables"] == 0  # nothing was created
        # The same request without the hooks' fields is an ordinary table.
        assert http.post("/api/tables", json={"preset": "cabo", "seats": 2}).status_code == 200


def test_a_deal_that_does_not_fit_the_table_gets_a_clear_error(tmp_path: Path) -> None:
    with (
        run_server(settings(tmp_path, test_hooks=True), MemoryStore()) as server,
        server.http() as http,
    ):
        bad: list[tuple[dict[str, Any], str]] = [
            ({**DEAL, "hands": DEAL["hands"][:1]}, "1 hands for 2 seats"),
            ({**DEAL, "hands": [["7", "2", "9"], DEAL["hands"][1]]}, "seat 0 3 cards, not 4"),
            ({**DEAL, "discard": "Q"}, "card 'Q' is not in the deck"),
            ({**DEAL, "draw": ["13", "13"]}, "card '13' is not in the deck, or every one"),
            ({**DEAL, "first": 2}, "first player 2 is not a seat"),
        ]
        for deal, message in bad:
            r = http.post("/api/tables", json={"preset": "cabo", "seats": 2, "deal": deal})
            assert r.status_code == 400, r.text
            detail = r.json()["detail"]
            assert detail["code"] == "bad_deal", detail
            assert message in detail["message"], detail
        r = http.post("/api/tables", json={"seats": 2, "deal": {**DEAL, "extra": 1}})
        assert r.status_code == 422
        r = http.post("/api/tables", json={"seats": 2, "seed": -1})
        assert r.status_code == 422
        assert http.get("/api/health").json()["tables"] == 0


@pytest.mark.anyio
async def test_a_stacked_deal_survives_a_restart(tmp_path: Path) -> None:
    # SQLite in tmp_path: the store a real restart reads the table back from.
    config = settings(tmp_path, test_hooks=True)
    with run_server(config) as server:
        code, tokens = create_table(server, "cabo", 2, deal=DEAL, seed=12345, **SLOW_TIMERS)
        with server.http() as http:
            info = http.get(f"/api/tables/{code}").json()
        assert "deal" not in info["settings"]
        async with seated(server, code, tokens) as (host, guest):
            assert "deal" not in host.table["settings"]  # the table frame keeps it too
            await begin(host, [guest])
            stacked = game_snapshot(server, code)
            assert dealt_names(stacked) == DEAL["hands"]
            assert stacked["turn"] == 1
            # Both look at their first two cards; seat 1 draws the stacked 4 and replaces
            # its pair of 4s with it: the set the deal was stacked for.
            await play_until([host, guest], lambda view: view["phase"] != "opening")
            ack = await guest.act({"do": "draw"})
            assert applied(ack), ack
            await host.until_seq(ack["seq"])
            ack = await guest.act({"do": "replace", "slots": [0, 1]})
            assert applied(ack), ack
            await host.until_seq(ack["seq"])
            await guest.until_seq(ack["seq"])
            events = [f for f in guest.frames if f["type"] == "event"][-1]["events"]
            assert events[0] == {
                "type": "replaced",
                "by": 1,
                "slots": [0, 1],
                "cards": ["4", "4"],
                "seen": ["4"],
            }
            await play_until([host, guest], lambda view: view["to_act"] == 1, limit=20)
            before = game_snapshot(server, code)
            views = [(c.seq, c.view, c.legal) for c in (host, guest)]

    # A new server process on the same data: the table is rebuilt from its seed and log.
    with run_server(config) as server:
        assert game_snapshot(server, code) == before
        for token, (seq, view, legal) in zip(tokens, views, strict=True):
            async with client(server) as back:
                frames = await back.hello(code, token, last_seq=seq)
            assert frames[-1]["type"] == "snapshot"
            assert (frames[-1]["seq"], frames[-1]["view"], frames[-1]["legal"]) == (
                seq,
                view,
                legal,
            )
        lobby = lobby_of(server)
        table = next(t for t in lobby.tables.values() if t.record.code == code)
        log = await table.store.log(table.record.id)
        assert log[0].kind == "start"
        assert log[0].payload["deal"] == DEAL


@pytest.mark.anyio
async def test_a_chosen_seed_deals_the_same_cards_twice(tmp_path: Path) -> None:
    with run_server(settings(tmp_path, test_hooks=True), MemoryStore()) as server:
        hands = []
        for _ in range(2):
            code, tokens = create_table(server, "cabo", 2, seed=99, **SLOW_TIMERS)
            async with seated(server, code, tokens) as (host, guest):
                await begin(host, [guest])
                hands.append(game_snapshot(server, code)["hands"])
        assert hands[0] == hands[1]


@pytest.mark.anyio
async def test_a_stacked_deal_refuses_to_start_after_a_seat_is_removed(tmp_path: Path) -> None:
    with run_server(settings(tmp_path, test_hooks=True), MemoryStore()) as server:
        three = {**DEAL, "hands": [*DEAL["hands"], ["1", "2", "3", "5"]]}
        code, tokens = create_table(server, "cabo", 3, bots=["easy", "easy"], deal=three)
        async with seated(server, code, tokens) as (host,):
            await host.send({"type": "remove_seat", "seat": 2})
            await host.until("table")
            await host.send({"type": "start"})
            error = await host.recv()
            while error["type"] != "error":
                error = await host.recv()
            assert error["code"] == "bad_deal"
            assert "3 hands for 2 seats" in error["message"]
            assert host.table["status"] == "lobby"


def test_serve_takes_test_hooks_from_a_flag_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FACEDOWN_TEST_HOOKS", raising=False)
    assert build_parser().parse_args(["serve"]).test_hooks is False
    assert build_parser().parse_args(["serve", "--test-hooks"]).test_hooks is True
    monkeypatch.setenv("FACEDOWN_TEST_HOOKS", "1")
    assert build_parser().parse_args(["serve"]).test_hooks is True
