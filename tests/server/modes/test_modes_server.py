"""Issue 34 §1 through a real server: ``POST /api/tables`` refuses what the table's mode does
not play (the engine's table of modes decides), and ``GET /api/modes`` serves that table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from facedown.engine.presets import MODES

from ..accounts.test_accounts import settings
from ..harness import run_server


def test_tables_the_mode_does_not_play_are_refused(tmp_path: Path) -> None:
    with run_server(settings(tmp_path)) as server, server.http() as http:

        def create(options: dict[str, Any], **extra: Any) -> httpx.Response:
            body = {"preset": "kivo", "seats": 2, "options": options, **extra}
            return http.post("/api/tables", json=body)

        refused: list[tuple[dict[str, Any], str, str]] = [
            ({"rounds": 2, "round_choices": None}, "bad_rounds", "1, 3 or 5 rounds, not 2"),
            ({"rounds": 2}, "bad_rounds", "1, 3 or 5 rounds, not 2"),
            ({"score_limit": 100}, "bad_rules", "score_limit is null"),
            ({"rounds": 5, "sudden_death": True}, "bad_rules", "sudden_death is false"),
            # Ranked's rules at a Live or Turn-Based table: no sudden death there.
            ({"rounds": 3, "sudden_death": True}, "bad_rules", "sudden_death is false"),
        ]
        for options, code, words in refused:
            for mode in ({}, {"mode": "turn_based"}):
                r = create(options, **mode)
                assert r.status_code == 400, (options, mode, r.text)
                assert r.json()["detail"]["code"] == code
                assert words in r.json()["detail"]["message"]
        for rounds in (1, 3, 5):
            assert create({"rounds": rounds}).status_code == 200
        r = http.post(
            "/api/tables/pass-and-play",
            json={"preset": "kivo", "options": {"rounds": 3}, "names": ["ann", "bob"]},
        )
        assert r.status_code == 400, r.text
        # The modes the server serves are the engine's table.
        served = http.get("/api/modes").json()
        assert served["kivo"]["live"] == {
            "fixed": {"score_limit": None, "sudden_death": False, "recollection": False},
            "offers": ["rounds"],
        }
        assert served == {p: {m: t.to_json() for m, t in ms.items()} for p, ms in MODES.items()}
