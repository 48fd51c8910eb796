"""A page loaded afresh gets its log back: the snapshot answering a hello without a last seq
carries the public part of the latest changes, exactly what a spectator was sent for them.  Tried
as a player would try to learn more: reloading as one seat must not give back any card shown to
another seat (its draw, its peeks), nor its own (the log's public part only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from facedown.server.play.fanout import RESTORED_BATCHES
from facedown.store import MemoryStore

from ..harness import begin, client, create_table, run_server, seated
from .test_reconnect import SLOW_TIMERS, play, settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def events_by_seq(frames: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    return {f["seq"]: f["events"] for f in frames if f["type"] == "event"}


def cards_in(events: list[dict[str, Any]]) -> list[str]:
    return [c for e in events for key in ("seen", "cards") for c in (e.get(key) or []) if c]


@pytest.mark.anyio
async def test_a_reload_gets_the_public_log_and_no_card_shown_to_one_seat(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
        async with (
            seated(server, code, tokens) as (ann, bob),
            client(server) as watcher,
        ):
            await watcher.hello(code, spectate=True)
            await begin(ann, [bob])
            await play([ann, bob], 14)
            await watcher.until_seq(ann.seq)
            # The seats were shown cards of their own along the way (peeks, draws).
            private = [
                e
                for f in ann.frames + bob.frames
                if f["type"] == "event"
                for e in f["events"]
                if e.get("seen")
            ]
            assert private, "no card was shown to one seat: the test proves nothing"
            public = events_by_seq(watcher.frames)

            for token in tokens:
                async with client(server) as again:
                    frames = await again.hello(code, token)
                    snapshot = frames[-1]
                    assert snapshot["type"] == "snapshot"
                    recent = snapshot["recent"]
                    assert recent, snapshot
                    assert len(recent) <= RESTORED_BATCHES
                    assert [b["seq"] for b in recent] == sorted(b["seq"] for b in recent)
                    assert recent[-1]["seq"] == ann.seq
                    for batch in recent:
                        # As the spectator was sent them, nothing more.
                        assert batch["events"] == public[batch["seq"]], batch
                        assert all("seen" not in e for e in batch["events"]), batch
                    shown_alone = {c for e in private for c in e["seen"] if c}
                    told = set(cards_in([e for b in recent for e in b["events"]]))
                    public_cards = set(cards_in([e for ev in public.values() for e in ev]))
                    assert told <= public_cards
                    assert not (told & shown_alone) - public_cards

            # A reconnection that says what it saw gets what it missed, and no log again.
            async with client(server) as back:
                frames = await back.hello(code, tokens[1], last_seq=bob.seq)
                assert "recent" not in frames[-1] or frames[-1]["recent"] is None
