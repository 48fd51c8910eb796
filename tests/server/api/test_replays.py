"""Replays through the real server: what a seat is shown again is what it was sent live.

Every golden match (tests/goldens/) is played through the server by one scripted client per
seat (its first round exactly as the golden file records it, then on to the end of the match),
and every frame each client received is compared with the replay of that seat's eyes from
``/api/replays``; the golden file's lines agree with both.  A running match is refused by every
replay endpoint, a share key opens a finished match for anyone, and a forged one is refused.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from facedown.devtools.playthrough import GOLDENS, golden_lines
from facedown.engine import Action, Game, make_ruleset
from facedown.engine.actions import TAP
from facedown.server.api.replays import ReplayKeys
from facedown.server.base.addresses import Rate
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    Client,
    applied,
    create_table,
    harmless,
    play_to_end,
    run_server,
    seated,
)

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "goldens"
SECRET = "replays"  # noqa: S105 - the test server's key
SLOW: dict[str, Any] = {
    "peek_seconds": 600,
    "turn_seconds": 86400,
}  # no timer plays for anyone


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret=SECRET,
        table=TableConfig(bot_delay=0.0, reveal_seconds=3600),
        rate=1e6,
        burst=1e6,
        clients=NO_ADDRESS_LIMITS,
        test_hooks=True,
    )


def _golden(preset: str, players: int, seed: int) -> tuple[dict[str, Any], list[Action]]:
    """The golden match's deal (as a stacked deal: every card in order) and its first round's
    actions, chosen as facedown/devtools/playthrough.py chooses them."""
    game = Game(make_ruleset(preset), players, seed)
    names = game.deck.names
    deal = {
        "hands": [[names[c] for c in hand] for hand in game.hands],
        "discard": names[game.discard_pile[-1]],
        "draw": [names[c] for c in reversed(game.draw_pile)],
        "first": game.first,
    }
    rng = random.Random(seed)
    actions = []
    while not game.is_round_over:
        pool = game.all_legal_actions()
        taps = [a for a in pool if a.kind == TAP]
        others = [a for a in pool if a.kind != TAP]
        action = rng.choice(taps if taps and (not others or rng.random() < 0.15) else others)
        game.apply(action)
        actions.append(action)
    return deal, actions


def _golden_lines(preset: str, players: int, seed: int) -> dict[tuple[int, str], Any]:
    """The golden file's events and views, by (step, "events seat 0" / "view seat 0" ...)."""
    text = (GOLDEN_DIR / f"{preset}-{players}p-seed{seed}.txt").read_text(encoding="utf-8")
    return golden_lines(text)


def _bare(action: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "by"}


def _steps(
    http: httpx.Client, match: str, seat: int | None, headers: dict[str, str], **params: Any
) -> list[dict[str, Any]]:
    """Every step of a replay, page by page."""
    steps: list[dict[str, Any]] = []
    total = http.get(f"/api/replays/{match}", headers=headers, params=params).json()["steps"]
    while len(steps) < total:
        query = {"start": len(steps), "count": 37, **params}
        if seat is not None:
            query["seat"] = seat
        r = http.get(f"/api/replays/{match}/steps", headers=headers, params=query)
        assert r.status_code == 200, r.text
        steps.extend(r.json()["steps"])
    return steps


async def _table_id(store: MemoryStore, code: str) -> str:
    record = await store.find_by_code(code)
    assert record is not None
    return record.id


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.mark.anyio
@pytest.mark.parametrize(("preset", "players", "seed"), GOLDENS)
async def test_a_seats_eyes_replay_of_every_golden_match_is_what_it_was_sent_live(
    tmp_path: Path, preset: str, players: int, seed: int
) -> None:
    store = MemoryStore()
    deal, first = _golden(preset, players, seed)
    golden = _golden_lines(preset, players, seed)
    with run_server(_settings(tmp_path), store) as server:
        code, tokens = create_table(server, preset, players, deal=deal, seed=seed, **SLOW)
        async with seated(server, code, tokens) as clients:
            for c in clients:
                c.frames.clear()
            await clients[0].send({"type": "start"})
            for c in clients:
                await c.until("event")
            await play_to_end(clients, random.Random(seed), first)
        match = f"{await _table_id(store, code)}/1"
        with server.http() as http:
            info = http.get(f"/api/replays/{match}", headers=_auth(tokens[0])).json()
            assert info["players"] == players
            assert info["names"] == ["Ann", *[f"P{i}" for i in range(1, players)]]
            face_up = _steps(http, match, None, _auth(tokens[0]))
            assert face_up[0]["hands"] == deal["hands"]  # the true deal, face up
            assert face_up[0]["draw_top"] == deal["draw"][0]
            for seat, c in enumerate(clients):
                live = [f for f in c.frames if f["type"] == "event"]
                replayed = _steps(http, match, seat, _auth(tokens[seat]))
                assert len(live) == len(replayed) == info["steps"]
                start = live[0]["seq"]
                for frame, step in zip(live, replayed, strict=True):
                    assert step["step"] == frame["seq"] - start
                    for key in ("view", "legal", "sets", "events"):
                        assert step[key] == frame[key], (seat, step["step"], key)
                for n in range(len(first) + 1):  # the golden round: the golden file agrees
                    assert replayed[n]["view"] == golden[n, f"view seat {seat}"]
                    if n:
                        assert replayed[n]["events"] == golden[n, f"events seat {seat}"]
            for n in range(1, len(first) + 1):
                spectator = {k: v for k, v in face_up[n]["view"].items()}
                assert spectator == golden[n, "view spectator"]


async def _play_some(clients: list[Client], count: int) -> None:
    """A few moves that neither call nor tap: the match goes on."""
    for _ in range(count):
        actor = next(c for c in clients if harmless(c.legal))
        action = harmless(actor.legal)
        assert action is not None
        ack = await actor.act(action)
        assert applied(ack), ack
        for c in clients:
            await c.until_seq(ack["seq"])


def _every_endpoint(
    http: httpx.Client, match: str, code: str, headers: dict[str, str], key: str | None = None
) -> list[httpx.Response]:
    params = {"key": key} if key else {}
    out = [
        http.get(f"/api/replays/{match}", headers=headers, params=params),
        http.get(f"/api/replays/{match}/steps", headers=headers, params=params),
        *(
            http.get(f"/api/replays/{match}/steps", headers=headers, params={**params, "seat": s})
            for s in (0, 1)
        ),
        http.get(f"/api/replays/{match}/export", headers=headers, params=params),
    ]
    if key is None:
        out.append(http.post(f"/api/replays/{match}/share", headers=headers))
        out.append(http.post(f"/api/tables/{code}/share", headers=headers))
    else:
        out.append(http.get(f"/api/replays/shared/{key}"))
    return out


@pytest.mark.anyio
async def test_a_running_match_is_refused_everywhere_and_a_share_key_opens_a_finished_one(  # noqa: C901 - one story, told in order
    tmp_path: Path,
) -> None:
    store = MemoryStore()
    keys = ReplayKeys(SECRET)
    with run_server(_settings(tmp_path), store) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW)
        table_id = await _table_id(store, code)
        match = f"{table_id}/1"
        async with seated(server, code, tokens) as clients:
            with server.http() as http:
                r = http.get(f"/api/replays/{match}", headers=_auth(tokens[0]))
                assert r.status_code == 404  # no match has started
                await clients[0].send({"type": "start"})
                for c in clients:
                    await c.until("event")
                await _play_some(clients, 6)
                # Live: nothing for anyone, a player, a key holder, through any seat's eyes.
                for seat_token in tokens:
                    for r in _every_endpoint(http, match, code, _auth(seat_token)):
                        assert r.status_code == 409, r.text
                        assert r.json()["detail"]["code"] == "match_running"
                        assert "hands" not in r.text
                for r in _every_endpoint(http, match, code, {}, keys.key(table_id, 1)):
                    assert r.status_code == 409, r.text
            await play_to_end(clients, random.Random(3))
            with server.http() as http:
                # Over: the players may open it and share it.
                for r in _every_endpoint(http, match, code, _auth(tokens[1])):
                    assert r.status_code == 200, r.text
                link = http.post(f"/api/tables/{code}/share", headers=_auth(tokens[1])).json()
                assert link["match"] == match
                assert link["url"].endswith(f"/#/replay/shared/{link['key']}")
                key = link["key"]
                # Anyone with the key: face up and each seat's eyes, no token at all.
                for r in _every_endpoint(http, match, code, {}, key):
                    assert r.status_code == 200, r.text
                shared = http.get(f"/api/replays/shared/{key}").json()
                assert shared["match"] == match
                mine = _steps(http, match, 1, _auth(tokens[1]))
                assert _steps(http, match, 1, {}, key=key) == mine
                # Refused: no credentials, a stranger, a forged or altered key, another match.
                stranger = http.post("/api/tables", json={"preset": "cabo", "seats": 2}).json()
                forged = ReplayKeys("another secret").key(table_id, 1)
                altered = key[:-2] + ("AA" if key[-2:] != "AA" else "BB")
                other = keys.key(table_id, 2)
                steps = f"/api/replays/{match}/steps"
                checks = [
                    (http.get(f"/api/replays/{match}"), 401),
                    (http.get(f"/api/replays/{match}", headers=_auth(stranger["token"])), 403),
                    (http.get(f"/api/replays/{match}", params={"key": forged}), 403),
                    (http.get(f"/api/replays/{match}", params={"key": altered}), 403),
                    (http.get(f"/api/replays/{match}", params={"key": other}), 403),
                    (http.get(f"/api/replays/shared/{forged}"), 403),
                    (http.post(f"/api/replays/{match}/share", params={"key": key}), 401),
                    (http.get(f"/api/replays/{'f' * 32}/1", headers=_auth(tokens[0])), 404),
                    (http.get(f"/api/replays/{table_id}/2", headers=_auth(tokens[0])), 404),
                    (http.get(f"/api/replays/{table_id}/0", headers=_auth(tokens[0])), 422),
                    (http.get("/api/replays/a-b/1", headers=_auth(tokens[0])), 422),
                    (http.get(steps, params={"key": key, "count": 5000}), 422),
                    (http.get(steps, params={"key": key, "seat": 2}), 422),
                ]
                for response, status in checks:
                    assert response.status_code == status, response.text[:300]
            # A rematch: match 2 is live and refused; match 1 still opens.
            await clients[0].send({"type": "rematch"})
            for c in clients:
                await c.until("event")
            with server.http() as http:
                match2 = f"{table_id}/2"
                for r in _every_endpoint(http, match2, code, _auth(tokens[0])):
                    assert r.status_code == 409, r.text
                for r in _every_endpoint(http, match2, code, {}, keys.key(table_id, 2)):
                    assert r.status_code == 409, r.text
                r = http.get(f"/api/replays/{match}", headers=_auth(tokens[0]))
                assert r.status_code == 200
                exported = http.get(f"/api/replays/{match}/export", params={"key": key}).json()
                record = await store.get_table(table_id)
                assert record is not None
                assert str(record.seed) not in json.dumps(exported)  # never the table's seed


@pytest.mark.anyio
async def test_replay_requests_are_rate_limited_per_address(tmp_path: Path) -> None:
    store = MemoryStore()
    limits = replace(NO_ADDRESS_LIMITS, replays=Rate(0.001, 3))
    settings = replace(_settings(tmp_path), clients=limits)
    with run_server(settings, store) as server, server.http() as http:
        statuses = [http.get(f"/api/replays/{'a' * 32}/1").status_code for _ in range(5)]
    assert statuses == [404, 404, 404, 429, 429]


PASSWORD = "a long enough password"  # noqa: S105 - the test accounts'


def _signed_in_checks(url: str, table_id: str, token: str) -> None:
    """Ann (who sat in seat 0 as a guest) signs up on a new device; Eve never sat there."""
    with (
        httpx.Client(base_url=url, timeout=30) as ann,
        httpx.Client(base_url=url, timeout=30) as eve,
    ):
        assert ann.get(f"/api/replays/{table_id}/1").status_code == 401  # nobody yet
        body = {"name": "Ann", "password": PASSWORD, "guest_tokens": [token]}
        assert ann.post("/api/account/signup", json=body).status_code == 201
        r = ann.get(f"/api/replays/{table_id}/1/steps", params={"seat": 0})
        assert r.status_code == 200, r.text  # the cookie alone: the account holds seat 0
        other = {"name": "Eve", "password": PASSWORD}
        assert eve.post("/api/account/signup", json=other).status_code == 201
        r = eve.get(f"/api/replays/{table_id}/1")
        assert r.status_code == 403  # signed in, but never sat at this table
        assert r.json()["detail"]["code"] == "not_a_player"


@pytest.mark.anyio
async def test_a_signed_in_player_opens_their_match_without_its_table_token(
    tmp_path: Path,
) -> None:
    """The match history's link on another device: no table token there, only the account."""
    store = MemoryStore()
    with run_server(_settings(tmp_path), store) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW)
        table_id = await _table_id(store, code)
        async with seated(server, code, tokens) as clients:
            await clients[0].send({"type": "start"})
            for c in clients:
                await c.until("event")
            await play_to_end(clients, random.Random(5))
        await anyio.to_thread.run_sync(_signed_in_checks, server.url, table_id, tokens[0])
