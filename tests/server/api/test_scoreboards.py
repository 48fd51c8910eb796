"""The scoreboard API against a real server: boards scored by the engine, edits that carry the
revision they were made on, a read-only share link, CSV, bounded input and per-address limits."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.api.scoreboards import board_id
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.edge.settings import ServerSettings
from facedown.store import MemoryStore

from ..harness import RunningServer, run_server

MANY = Rate(100.0, 1000.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    limits = ClientLimits(boards=MANY, board_edits=MANY, lookups=MANY)
    settings = ServerSettings(
        data_dir=Path(tmp_path_factory.mktemp("boards")), secret="boards-test", clients=limits
    )
    with run_server(settings, MemoryStore()) as running:
        yield running


def create(http: httpx.Client, **body: Any) -> dict[str, Any]:
    r = http.post("/api/scoreboards", json={"names": ["Ana", "Bo", "Cy"], **body})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def key(made: dict[str, Any]) -> str:
    link: str = made["link"]
    return link.rsplit("/", 1)[1]


def add(
    http: httpx.Client, edit_key: str, base: int, totals: list[int], **more: Any
) -> httpx.Response:
    body = {"base": base, "hand_totals": totals, **more}
    return http.post(f"/api/scoreboards/{edit_key}/rounds", json=body)


def refused(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert detail["code"] == code, detail
    message: str = detail["message"]
    assert message.isprintable()
    return message


def test_a_cabo_evening_is_scored_by_the_engine(server: RunningServer) -> None:
    with server.http() as http:
        made = create(http, preset="cabo")
        k = key(made)
        assert made["revision"] == 0
        assert made["board"]["moon"] is True
        r = add(http, k, 0, [9, 3, 14], caller=0)  # the caller is not lowest: 9 + 5
        assert r.status_code == 200, r.text
        board = r.json()["board"]
        assert board["rounds"][0]["scores"] == [14, 0, 14]
        r = add(http, k, 1, [50, 3, 10], caller=1, moon=0)  # shooting the moon
        assert r.json()["board"]["totals"] == [14, 50, 64]
        assert r.json()["revision"] == 2
        got = http.get(f"/api/scoreboards/{k}").json()
        assert got["board"]["totals"] == [14, 50, 64]
        assert got["board"]["over"] is False


def test_edit_and_undo_any_round_rescore_the_rest(server: RunningServer) -> None:
    with server.http() as http:
        k = key(create(http, preset="kivo"))
        add(http, k, 0, [7, 12, 9], caller=0)
        add(http, k, 1, [6, 6, 11], caller=0)
        add(http, k, 2, [8, 5, 20], caller=0)
        r = http.put(
            f"/api/scoreboards/{k}/rounds/1",
            json={"base": 3, "hand_totals": [17, 12, 9], "caller": 0},
        )
        assert r.status_code == 200, r.text
        board = r.json()["board"]
        assert board["rounds"][0]["scores"] == [27, 12, 9]  # now not lowest: +10
        assert board["totals"] == [51, 23, 40]
        assert board["over"] is True
        assert board["winners"] == [1]
        r = http.delete(f"/api/scoreboards/{k}/rounds/2", params={"base": 4})
        assert r.status_code == 200, r.text
        board = r.json()["board"]
        assert [x["number"] for x in board["rounds"]] == [1, 2]
        assert board["totals"] == [45, 17, 29]
        assert board["over"] is False
        refused(http.delete(f"/api/scoreboards/{k}/rounds/3", params={"base": 5}), 404, "no_round")


def test_an_edit_made_on_an_old_revision_is_refused_and_changes_nothing(
    server: RunningServer,
) -> None:
    with server.http() as http:
        k = key(create(http, preset="boyo"))
        assert add(http, k, 0, [1, 2, 3]).status_code == 200
        # A second device that still shows revision 0 adds its round: refused, nothing changes.
        r = add(http, k, 0, [4, 5, 6])
        message = refused(r, 409, "revision_conflict")
        assert "another device" in message
        assert r.json()["detail"]["revision"] == 1
        board = http.get(f"/api/scoreboards/{k}").json()
        assert board["revision"] == 1
        assert len(board["board"]["rounds"]) == 1


def test_the_share_link_reads_and_cannot_edit(server: RunningServer) -> None:
    with server.http() as http:
        made = create(http, preset="kaboom")
        k = key(made)
        add(http, k, 0, [5, 5, 7], caller=0)
        view_key = made["view_key"]
        assert made["share_link"].endswith(f"/scoreboard/view/{view_key}")
        shown = http.get(f"/api/scoreboards/view/{view_key}")
        assert shown.status_code == 200, shown.text
        data = shown.json()
        assert data["board"]["rounds"][0]["scores"] == [10, 5, 7]  # a tied caller doubles
        assert "link" not in data  # the edit link is never shown to a viewer
        assert k not in shown.text
        # The view key is not an edit key: every edit with it finds no board.
        refused(add(http, view_key, 1, [1, 2, 3]), 404, "unknown_board")
        body = {"base": 1, "hand_totals": [1, 2, 3]}
        refused(http.put(f"/api/scoreboards/{view_key}/rounds/1", json=body), 404, "unknown_board")
        r = http.delete(f"/api/scoreboards/{view_key}/rounds/1", params={"base": 1})
        refused(r, 404, "unknown_board")
        refused(http.get(f"/api/scoreboards/{view_key}"), 404, "unknown_board")
        # No write route exists below the view path.
        assert http.post(f"/api/scoreboards/view/{view_key}/rounds", json=body).status_code in (
            404,
            405,
        )
        assert http.get(f"/api/scoreboards/view/{view_key}").json()["revision"] == 1


def test_keys_are_unguessable_and_only_a_hash_is_stored(server: RunningServer) -> None:
    with server.http() as http:
        a, b = create(http), create(http)
    keys = {key(a), key(b), a["view_key"], b["view_key"]}
    assert len(keys) == 4
    assert all(len(k) >= 24 for k in keys)  # 18 random bytes each
    assert board_id(key(a)) != key(a)
    assert len(board_id(key(a))) == 64


def test_csv_export(server: RunningServer) -> None:
    with server.http() as http:
        made = create(
            http, names=["=Ana", "Bo"], preset="cabo", placement={"points": [3, 0], "rounds": 2}
        )
        k = key(made)
        add(http, k, 0, [4, 9], caller=1)
        add(http, k, 1, [8, 2], caller=1)
        r = http.get(f"/api/scoreboards/view/{made['view_key']}/csv")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0][:3] == ["round", "caller", "moon"]
    assert "'=Ana hand" in rows[0]  # a name is never a spreadsheet formula
    assert rows[1][:3] == ["1", "Bo", ""]
    # Round 1: Ana lowest (0), Bo called and is not lowest (9 + 5): Ana 1st (3 points).
    assert rows[1][3:] == ["4", "0", "1", "3", "3", "9", "14", "2", "0", "0"]
    assert rows[2][3:] == ["8", "8", "2", "0", "3", "2", "0", "1", "3", "3"]
    assert rows[3][-1] == "'=Ana & Bo"


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"names": ["Ana"]}, "names"),
        ({"names": ["A"] * 9}, "names"),
        ({"names": ["Ana", "x" * 40]}, "names"),
        ({"names": ["Ana", "B\u202eo"]}, "names"),
        ({"names": ["Ana", "Bo"], "preset": "poker"}, "preset"),
        ({"names": ["Ana", "ana"]}, "name of their own"),
        ({"names": ["Ana", "Bo"], "rounds": 0}, "rounds"),
        ({"names": ["Ana", "Bo"], "placement": {"points": [3], "rounds": 2}}, "points"),
        ({"names": ["Ana", "Bo", "Cy"], "placement": {"points": [3, 1], "rounds": 2}}, "places"),
        ({"names": ["Ana", "Bo"], "placement": {"points": [3, 1], "rounds": 1000}}, "rounds"),
        ({"names": ["Ana", "Bo"], "colour": "red"}, "colour"),
    ],
)
def test_a_bad_board_is_refused(server: RunningServer, body: dict[str, Any], where: str) -> None:
    with server.http() as http:
        r = http.post("/api/scoreboards", json=body)
    assert r.status_code == 422, r.text
    assert where in r.json()["detail"]["message"]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"hand_totals": [1, 2]}, "hand total for each"),
        ({"hand_totals": [1, 2, 3, 4]}, "hand total for each"),
        ({"hand_totals": [1, 2, 10_000]}, "hand_totals"),
        ({"hand_totals": [1, 2, 3], "caller": 3}, "caller"),
        ({"hand_totals": [1, 2, 3], "caller": 8}, "caller"),
        ({"hand_totals": [1, 2, 3], "moon": 1}, "no shooting the moon"),
        ({"hand_totals": [1.5, 2, 3]}, "hand_totals"),
        ({"hand_totals": [1, 2, 3], "extra": 1}, "extra"),
        ({"hand_totals": [1, 2, 3], "base": -1}, "base"),
    ],
)
def test_a_bad_round_is_refused_and_changes_nothing(
    server: RunningServer, body: dict[str, Any], where: str
) -> None:
    with server.http() as http:
        k = key(create(http, preset="kivo"))
        r = http.post(f"/api/scoreboards/{k}/rounds", json={"base": 0, **body})
        assert r.status_code == 422, r.text
        assert where in r.json()["detail"]["message"]
        assert http.get(f"/api/scoreboards/{k}").json()["revision"] == 0


def test_no_round_after_the_match_is_over(server: RunningServer) -> None:
    with server.http() as http:
        k = key(create(http, preset="kivo", rounds=1))
        assert add(http, k, 0, [3, 4, 5]).json()["board"]["over"] is True
        message = refused(add(http, k, 1, [3, 4, 5]), 422, "bad_round")
        assert "the match was over" in message


@pytest.mark.parametrize("bad", ["short", "a" * 65, "has%20space", "dot.dot.dot.dot.dot"])
def test_a_malformed_key_is_refused(server: RunningServer, bad: str) -> None:
    with server.http() as http:
        r = http.get(f"/api/scoreboards/{bad}")
    assert r.status_code in (404, 422), r.text


def test_rate_limits_per_address(tmp_path: Path) -> None:
    limits = ClientLimits(boards=Rate(0.001, 2), board_edits=Rate(0.001, 3), lookups=Rate(0.001, 2))
    settings = ServerSettings(data_dir=tmp_path, secret="limits", clients=limits)
    with run_server(settings, MemoryStore()) as running, running.http() as http:
        k = key(create(http))
        create(http)
        refused(http.post("/api/scoreboards", json={"names": ["A", "B"]}), 429, "rate_limited")
        for base in range(3):
            assert add(http, k, base, [1, 2, 3]).status_code == 200
        refused(add(http, k, 3, [1, 2, 3]), 429, "rate_limited")
        # Unknown keys are lookups: two misses, then even a good key waits.
        for _ in range(2):
            refused(http.get(f"/api/scoreboards/{'x' * 24}"), 404, "unknown_board")
        refused(http.get(f"/api/scoreboards/{k}"), 429, "rate_limited")
