"""Every example body of the OpenAPI description is one the real server accepts, and the
published name limits are the ones it enforces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from facedown.server.base.text import NAME_LENGTH
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..harness import run_server
from ..ranked_helpers import ranked_settings

ROOT = Path(__file__).resolve().parents[3]
OPENAPI = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))


def _examples(method: str, path: str) -> dict[str, Any]:
    content = OPENAPI["paths"][path][method]["requestBody"]["content"]["application/json"]
    return {key: example["value"] for key, example in content["examples"].items()}


def test_every_post_that_takes_a_body_has_an_example() -> None:
    for path, item in OPENAPI["paths"].items():
        for method in ("post", "put"):
            if method in item and "requestBody" in item[method]:
                assert _examples(method, path), f"{method.upper()} {path} has no example"
    assert set(_examples("post", "/api/tables")) >= {"live_with_bots", "turn_based"}


def test_the_published_name_limit_is_the_enforced_one(tmp_path: Path) -> None:
    schemas = OPENAPI["components"]["schemas"]
    assert schemas["CreateTable"]["properties"]["name"]["maxLength"] == NAME_LENGTH
    assert schemas["JoinTable"]["properties"]["name"]["maxLength"] == NAME_LENGTH
    assert schemas["SignUp"]["properties"]["name"]["maxLength"] == 24
    settings = ServerSettings(data_dir=tmp_path, secret="examples", table=TableConfig())
    with run_server(settings) as server, server.http() as http:
        fits = http.post("/api/tables", json={"name": "x" * NAME_LENGTH, "bots": ["easy"]})
        assert fits.status_code == 200, fits.text
        longer = http.post("/api/tables", json={"name": "x" * (NAME_LENGTH + 1)})
        assert longer.status_code == 422, longer.text


def _post_every(
    http: httpx.Client, path: str, url: str = "", status: int = 200, method: str = "post"
) -> list[dict[str, Any]]:
    """Send every example of ``path`` (to ``url``, if the path has a parameter); the answers."""
    answers = []
    for key, body in _examples(method, path).items():
        r = http.request(method.upper(), url or path, json=body)
        assert r.status_code == status, (path, key, r.text)
        answers.append(r.json())
    return answers


def test_the_server_takes_every_example_body(tmp_path: Path) -> None:
    settings = ranked_settings(tmp_path)  # a new account may queue at once
    with run_server(settings) as server, server.http() as http:
        tables = _post_every(http, "/api/tables")
        code = tables[0]["code"]  # live_with_bots: one seat is left open for a person
        _post_every(http, "/api/tables/{code}/join", f"/api/tables/{code}/join")
        _post_every(http, "/api/tables/pass-and-play")
        edit = _post_every(http, "/api/scoreboards", status=201)[0]["link"].rsplit("/", 1)[1]
        _post_every(http, "/api/scoreboards/{edit_key}/rounds", f"/api/scoreboards/{edit}/rounds")
        _post_every(http, "/api/account/signup", status=201)
        _post_every(http, "/api/ranked/queue")
        _post_every(http, "/api/account/signin")
        _post_every(http, "/api/account/email", method="put")
        _post_every(http, "/api/account/password")
