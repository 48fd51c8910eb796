"""The HTTP side against a real server: bad requests get a clear 4xx and change nothing."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import anyio
import httpx
import pytest
from fastapi.routing import APIRoute
from itsdangerous import URLSafeSerializer
from pydantic import BaseModel

from facedown.cli import build_parser
from facedown.server.accounts.auth import Tokens
from facedown.server.app import WEB_DIST, create_app
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.base.bodies import RequestBody
from facedown.server.edge.settings import ServerSettings
from facedown.store import MemoryStore

from ..harness import RunningServer, client, run_server

ROOT = Path(__file__).resolve().parents[3]

JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    # One address makes every table here: creation is not what these tests limit.
    many = ClientLimits(creates=Rate(100.0, 1000.0), joins=Rate(100.0, 1000.0))
    settings = ServerSettings(
        data_dir=Path(tmp_path_factory.mktemp("http")), secret="http-test", clients=many
    )
    with run_server(settings, MemoryStore()) as running:
        yield running


def tables(server: RunningServer) -> int:
    with server.http() as http:
        count: int = http.get("/api/health").json()["tables"]
        return count


@pytest.mark.parametrize("path", ["/%00", "/assets/a%00.js", "/t/%00", "/a%01b", "/%7f"])
def test_a_path_with_control_characters_is_not_found(server: RunningServer, path: str) -> None:
    with server.http() as http:
        r = http.get(path)
    assert r.status_code == 404, r.text
    assert r.json()["detail"]["code"] == "not_found"


def post(server: RunningServer, path: str, raw: str) -> httpx.Response:
    """POST a JSON body as written (Python's json reads NaN and Infinity; so does the server's)."""
    with server.http() as http:
        return http.post(path, content=raw.encode("utf-8", "surrogatepass"), headers=JSON)


def refused(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert detail["code"] == code, detail
    message: str = detail["message"]
    assert message, message
    assert message.isprintable(), message
    return message


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ('{"peek_seconds": NaN}', "peek_seconds"),
        ('{"turn_seconds": Infinity}', "turn_seconds"),
        ('{"turn_seconds": -Infinity}', "turn_seconds"),
        ('{"name": "\\ud800"}', "name"),  # a lone surrogate: not even encodable
        ('{"name": "Ann\\u202eeoJ"}', "name"),  # a bidi override
        ('{"name": "A\\u2066B"}', "name"),  # a bidi isolate
        ('{"name": "A\\u0000B"}', "name"),
        ('{"name": "A\\nB"}', "name"),
        ('{"name": "A\\u200bB"}', "name"),  # zero width space
        ('{"name": "A\\u2028B"}', "name"),  # line separator
        ('{"name": "   "}', "name"),
        ('{"name": "' + "x" * 10_000 + '"}', "name"),
        ('{"bots": [' + ",".join(['"random"'] * 100) + "]}", "bots"),
    ],
)
def test_bad_fields_are_refused_with_a_safe_message(
    server: RunningServer, raw: str, field: str
) -> None:
    before = tables(server)
    message = refused(post(server, "/api/tables", raw), 422, "invalid_request")
    assert message.startswith(field), message
    assert len(message) <= 200
    assert "\\ud800" not in message
    assert "xxxxxxxxxx" not in message
    assert tables(server) == before


# A JSON type that is not the field's: refused, never converted (a string is not a number, a
# number not a bool, true not a number), as the WebSocket's messages are.
WRONG_TYPES = [
    ("/api/tables", {"seats": "4"}, "seats"),
    ("/api/tables", {"seats": 3.0}, "seats"),
    ("/api/tables", {"peek_seconds": "30"}, "peek_seconds"),
    ("/api/tables", {"turn_seconds": "60.5"}, "turn_seconds"),
    ("/api/tables", {"move_deadline": "3600", "mode": "turn_based"}, "move_deadline"),
    ("/api/tables", {"seed": "5"}, "seed"),  # converted, it met the test hooks' refusal (400)
    ("/api/tables/pass-and-play", {"names": ["Ann", "Bob"], "seed": "5"}, "seed"),
    ("/api/scoreboards", {"names": ["Ann", "Bob"], "rounds": "3"}, "rounds"),
    ("/api/scoreboards", {"names": ["Ann", "Bob"], "sudden_death": 1}, "sudden_death"),
]


@pytest.mark.parametrize(("path", "body", "field"), WRONG_TYPES)
def test_a_field_of_the_wrong_json_type_is_refused_not_converted(
    server: RunningServer, path: str, body: dict[str, Any], field: str
) -> None:
    before = tables(server)
    message = refused(post(server, path, json.dumps(body)), 422, "invalid_request")
    assert message.startswith(field), message
    assert tables(server) == before


def test_a_scoreboard_round_of_the_wrong_json_type_changes_nothing(server: RunningServer) -> None:
    with server.http() as http:
        r = http.post("/api/scoreboards", json={"names": ["Ann", "Bob"]})
        assert r.status_code == 201, r.text
        edit = r.json()["link"].rsplit("/", 1)[1]
        rounds = f"/api/scoreboards/{edit}/rounds"
        for body in (
            {"base": 0, "hand_totals": ["3", 4]},
            {"base": 0, "hand_totals": [3, 4], "caller": "0"},
            {"base": "0", "hand_totals": [3, 4]},
            {"base": 0, "hand_totals": [3.0, 4]},
            {"base": 0, "hand_totals": [3, 4], "caller": True},  # true is not seat 1
        ):
            refused(http.post(rounds, json=body), 422, "invalid_request")
        board = http.get(f"/api/scoreboards/{edit}").json()
        assert (board["revision"], board["board"]["rounds"]) == (0, [])
        assert http.post(rounds, json={"base": 0, "hand_totals": [3, 4]}).status_code == 200


def _api_routes(routes: Any) -> Iterator[APIRoute]:
    """Every route of the app, those of its included routers too."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # an included router, as it was
        if included is not None:
            yield from _api_routes(included.routes)


def _loose_models(kind: Any) -> list[str]:
    """The models in a body's type (itself, its fields', nested) that are not strict."""
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        own = [] if kind.model_config.get("strict") is True else [kind.__name__]
        return own + [
            name for f in kind.model_fields.values() for name in _loose_models(f.annotation)
        ]
    return [name for arg in get_args(kind) for name in _loose_models(arg)]


def test_every_request_body_is_read_strictly() -> None:
    """Each route's body is a RequestBody, and every model within it is strict, so a new
    route or field cannot forget the strict types."""
    app = create_app(ServerSettings(secret="bodies"), store=MemoryStore())
    bodies = {
        f"{sorted(route.methods or ())[0]} {route.path}": param.field_info.annotation
        for route in _api_routes(app.routes)
        for param in route.dependant.body_params
    }
    assert len(bodies) >= 10, bodies
    loose = {
        where: _loose_models(kind)
        for where, kind in bodies.items()
        if not (isinstance(kind, type) and issubclass(kind, RequestBody)) or _loose_models(kind)
    }
    assert loose == {}


@pytest.mark.parametrize("name", ["Eve\u202e", "\ud800", "\x07", "\u2067Eve"])
def test_a_join_with_a_bad_name_changes_nothing(server: RunningServer, name: str) -> None:
    with server.http() as http:
        code = http.post("/api/tables", json={"preset": "kivo", "seats": 2}).json()["code"]
    raw = '{"name": ' + json.dumps(name) + "}"
    refused(post(server, f"/api/tables/{code}/join", raw), 422, "invalid_request")
    with server.http() as http:
        seats = http.get(f"/api/tables/{code}").json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "open"]


def test_names_are_normalised_and_trimmed(server: RunningServer) -> None:
    with server.http() as http:
        # "e" and a combining acute accent is stored as the one character "é".
        r = http.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": " Rene\u0301 "})
        assert r.status_code == 200, r.text
        assert r.json()["table"]["seats"][0]["name"] == "Ren\u00e9"
        # Joiners shape emoji and several scripts: kept.
        family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
        j = http.post(f"/api/tables/{r.json()['code']}/join", json={"name": family})
        assert j.status_code == 200, j.text
        assert j.json()["table"]["seats"][1]["name"] == family


@pytest.mark.parametrize("code", ["AB%00CD", "x" * 40, "AB%E2%80%AECD"])
def test_a_bad_table_code_is_refused(server: RunningServer, code: str) -> None:
    with server.http() as http:
        r = http.get(f"/api/tables/{code}")
    refused(r, 422, "invalid_request")


def test_a_body_that_is_not_json_is_refused(server: RunningServer) -> None:
    message = refused(post(server, "/api/tables", "{not json"), 422, "invalid_request")
    assert message == "the body is not valid JSON"


CARDS_0_13 = {str(v): v for v in range(14)}


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},  # no such field
        {"\ud800": 1},
        {f"field{i}": 1 for i in range(60)},
        {"values": {**CARDS_0_13, **{f"k{i}": 1 for i in range(1000)}}},  # cards of no deck
        {"values": {**CARDS_0_13, "KH": 1}},  # a standard card in a 0-13 deck
        {"values": {**CARDS_0_13, "\u202e": 1}},
        {"values": {**CARDS_0_13, "13": 10**9}},
        {"values": {**CARDS_0_13, "13": [1] * 1000}},
        {"powers": {"7": ["peek"], "Z": ["spy"]}},
        {"powers": {"7": ["peek"] * 500}},
        {"call_name": "x" * 1000},
        {"call_name": "KA\u202eBOOM"},
        {"call_name": "KA\u0000BOOM"},
        {"name": "n" * 200},
        {"deck": "d" * 5000},
        {"caller_penalty": 10**30},
        {"rounds": list(range(1000))},
    ],
)
def test_bad_ruleset_options_are_refused_briefly(
    server: RunningServer, options: dict[str, Any]
) -> None:
    before = tables(server)
    raw = json.dumps({"preset": "kaboom", "seats": 2, "options": options})
    message = refused(post(server, "/api/tables", raw), 400, "bad_rules")
    assert len(message) < 200, message
    assert tables(server) == before


def test_good_ruleset_options_still_make_a_table(server: RunningServer) -> None:
    with server.http() as http:
        presets = http.get("/api/presets").json()
        for name, rules in presets.items():
            # Every field as the preset has it, sent back whole (as a client may): accepted.
            options = {k: v for k, v in rules.items()}
            r = http.post("/api/tables", json={"preset": name, "seats": 2, "options": options})
            assert r.status_code == 200, r.text
        options = {"values": {**presets["boyo"]["values"], "QS": 0}, "powers": {"KS": ["swap"]}}
        r = http.post("/api/tables", json={"preset": "boyo", "seats": 2, "options": options})
        assert r.status_code == 200, r.text
        assert r.json()["table"]["rules"]["values"]["QS"] == 0
        r = http.post("/api/tables", json={"preset": "kaboom", "options": {"call_name": "Bäm!"}})
        assert r.status_code == 200, r.text


def test_a_body_past_the_limit_is_refused_unread(server: RunningServer) -> None:
    limit = ServerSettings().max_body
    before = tables(server)
    huge = json.dumps({"preset": "kivo", "name": "A", "options": {"call_name": "x" * limit}})
    with server.http() as http:
        # Told by Content-Length.
        r = http.post("/api/tables", content=huge, headers=JSON)
        assert refused(r, 413, "too_large") == f"request bodies are limited to {limit} bytes"
        assert r.headers["connection"] == "close"

        # Sent in chunks, with no length: cut off at the chunk that passes the limit.
        def chunks() -> Iterator[bytes]:
            for _ in range(64 * 1024):  # 64 MB if it were all read
                yield b" " * 1024

        r = http.post("/api/tables", content=chunks(), headers=JSON)
        refused(r, 413, "too_large")
        # To a route that reads no body: refused all the same.
        r = http.request("GET", "/api/health", content=huge.encode())
        assert r.status_code == 413
    assert tables(server) == before
    # Just under the limit is read (and refused for what it says, not for its size).
    body = json.dumps({"preset": "kivo", "options": {"call_name": "x"}})
    body = body[:-1] + " " * (limit - len(body)) + "}"
    r = post(server, "/api/tables", body)
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------- the defaults of every answer


def test_every_answer_carries_the_security_headers(server: RunningServer) -> None:
    with server.http() as http:
        asset = next((WEB_DIST / "assets").glob("*.js"), None) if WEB_DIST.is_dir() else None
        answers = [
            http.get("/"),
            http.get("/t/ABCDEF"),
            http.get("/api/health"),
            http.get("/api/tables/NOSUCH"),
            http.get("/nothing.js"),
            http.post("/api/tables", json={"name": ""}),
            http.post("/api/tables", content=b"x" * (ServerSettings().max_body + 1)),
            http.post("/api/tables", json={"preset": "kivo", "seats": 2}),
        ]
        if asset is not None:
            answers.append(http.get(f"/assets/{asset.name}"))
    for r in answers:
        where = f"{r.request.method} {r.request.url.path} {r.status_code}"
        policy = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy, where
        assert "script-src 'self'" in policy, where
        assert "unsafe-inline" not in policy, where
        assert r.headers.get("x-content-type-options") == "nosniff", where
        assert r.headers.get("referrer-policy") == "no-referrer", where
        if r.request.url.path.startswith("/api/"):
            assert r.headers.get("cache-control") == "no-store", where
    assert "token" in answers[-1 - (asset is not None)].json()


def test_the_api_pages_are_off_unless_asked_for(server: RunningServer, tmp_path: Path) -> None:
    with server.http() as http:
        assert http.get("/openapi.json").status_code == 404
        for page in ("/docs", "/redoc"):
            assert "swagger" not in http.get(page).text.lower()  # the client's page, if any
            assert "redoc.standalone" not in http.get(page).text
            assert "HTTP API" not in http.get(page).text
    assert build_parser().parse_args(["serve"]).api_docs is False
    assert build_parser().parse_args(["serve", "--api-docs"]).api_docs is True


def test_the_api_pages_load_nothing_from_another_origin(tmp_path: Path) -> None:
    """With --api-docs: /openapi.json is the document in docs/, and /docs is a page of this
    server's own (no script, no CDN: it works offline, under the ordinary policy)."""
    settings = ServerSettings(data_dir=tmp_path, secret="docs", api_docs=True)
    with run_server(settings, MemoryStore()) as documented, documented.http() as http:
        served = http.get("/openapi.json")
        assert served.status_code == 200
        shipped = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
        assert served.json() == shipped
        docs = http.get("/docs")
        assert docs.status_code == 200
        assert docs.headers["content-type"].startswith("text/html")
        page = docs.text
        assert "<script" not in page.lower()
        assert "<link" not in page.lower()
        assert re.search(r"(src|href)=[\"']?(https?:)?//", page) is None, "another origin"
        assert 'href="/openapi.json"' in page
        for path, item in shipped["paths"].items():
            for method in item:
                assert f"{method.upper()} {path}" in page
        assert docs.headers["content-security-policy"].startswith("default-src 'self'")
        assert "unsafe-inline" not in docs.headers["content-security-policy"]
        # FastAPI's CDN pages are gone: /redoc is the client's own route, no ReDoc.
        assert "redoc.standalone" not in http.get("/redoc").text
        assert "swagger" not in http.get("/docs").text.lower()


def test_session_tokens_expire() -> None:
    now = [1_000_000.0]
    tokens = Tokens("secret", lifetime=3600, clock=lambda: now[0])
    guest, token = tokens.issue("Ann")
    assert tokens.check(token) == guest
    now[0] += 3599
    assert tokens.check(token) == guest
    now[0] += 2
    assert tokens.check(token) is None
    assert tokens.rotate(token) is None  # an expired token cannot be renewed
    # A token of the old form (no issue time) never expired: it is refused.
    old = URLSafeSerializer("secret", salt="facedown-guest").dumps({"p": "p1", "n": "Ann"})
    assert tokens.check(str(old)) is None


def test_a_rotated_token_replaces_every_earlier_one(server: RunningServer) -> None:
    with server.http() as http:
        created = http.post("/api/tables", json={"preset": "kivo", "seats": 2}).json()
        code, old = created["code"], created["token"]
        r = http.post("/api/session/rotate", headers={"authorization": f"Bearer {old}"})
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "no-store"
        new = r.json()["token"]
        assert new != old
        assert r.json()["expires"] > time.time() + 29 * 86400
        # The old token is refused everywhere; the new one plays the host's seat.
        r = http.post("/api/session/rotate", headers={"authorization": f"Bearer {old}"})
        assert r.status_code == 401
        assert r.json()["detail"]["code"] == "bad_token"
        for bad in ({}, {"authorization": "Bearer nonsense"}, {"authorization": "Basic x"}):
            assert http.post("/api/session/rotate", headers=bad).status_code == 401

    async def hello(token: str) -> dict[str, Any]:
        async with client(server) as c:
            await c.send({"type": "hello", "table": code, "token": token})
            return await c.recv()

    assert anyio.run(hello, old)["code"] == "bad_token"
    assert anyio.run(hello, new) == {"type": "welcome", "v": 1, "seat": 0, "seq": 0}
