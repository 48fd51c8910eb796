"""The HTTP side against a real server: bad requests get a clear 4xx and change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from facedown.server.settings import ServerSettings
from facedown.store import MemoryStore

from .harness import RunningServer, run_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    settings = ServerSettings(data_dir=Path(tmp_path_factory.mktemp("http")), secret="http-test")
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
