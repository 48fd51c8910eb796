"""Hidden information: hundreds of whole games through the real server, every frame checked.

Each frame a seat receives is compared with what the engine shows that seat at that sequence
number (the log is replayed beside it), and every card face in it must be one that seat knows
at that moment.  Neither the seed nor the draw pile may appear anywhere.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import SPECTATOR, Action, Event, Game, Ruleset, observe
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig, match_seed
from facedown.server.transport.protocol import server_messages
from facedown.store import MemoryStore

from ..harness import NO_ADDRESS_LIMITS, Player, create_table, run_server, start

GAMES = 200
BATCH = 10
QUICK = {  # options that keep a match short, so that hundreds of them fit in the suite
    "boyo": {"rounds": 1},
    "cabo": {"score_limit": 15},
    "kivo": {"rounds": 1},
    "kaboom": {"score_limit": 15},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _known_names(game: Game, seat: int) -> list[str]:
    names = [game.deck.names[c] for c in game.knowledge(seat).values()]
    if game.held >= 0 and game.knows(seat, game.held):
        names.append(game.deck.names[game.held])
    return names


def _check_frame(game: Game, events: list[Event], seat: int | None, frame: dict[str, Any]) -> None:
    server_messages.validate_python(frame)  # the documented shape
    viewer = SPECTATOR if seat is None else seat
    seen = observe(game, viewer, events)
    assert frame["view"] == seen.view.to_json(), "the view differs from the engine's observer"
    assert frame["legal"] == [a.to_json() for a in seen.legal]
    if frame["type"] == "event":
        assert frame["events"] == [e.to_json() for e in seen.events]
    forbidden = {"seed", "draw_pile", "known", "public", "private"}
    assert not (_keys(frame) & forbidden), "server internals in a frame"
    if seat is None:
        assert frame["view"]["shown"] == {}
        assert frame["view"]["knowledge"] is None
        assert frame["view"]["powers"] == []
        assert frame["legal"] == []
        assert "seen" not in _keys(frame), "spectators saw a secret"
        return
    known = _known_names(game, seat)
    for place, name in frame["view"]["shown"].items():
        assert name in known, f"seat {seat} was shown {name} at {place} without knowing it"
    held = frame["view"]["held"]
    if held is not None and not game.held_from_discard:
        assert game.turn == seat
        assert held in known
    for event in frame.get("events", []):
        for name in event.get("seen", []):
            assert event["by"] == seat, f"seat {seat} saw {name}"
            assert name in known, f"seat {seat} saw {name}"


async def _replay_and_check(store: MemoryStore, code: str, players: list[Player]) -> int:
    record = await store.find_by_code(code)
    assert record is not None
    rules = Ruleset.from_json(record.rules)
    game: Game | None = None
    by_seq: dict[int, tuple[Game, list[Event]]] = {}
    for entry in await store.log(record.id):
        if entry.kind == "start":
            game = Game(rules, int(entry.payload["players"]), match_seed(record.seed, 1))
            events: list[Event] = []
        else:
            assert game is not None
            events = game.apply(Action.from_json(entry.payload["action"]))
        assert game is not None
        by_seq[entry.seq] = (game.clone(), events)
    checked = 0
    for player in players:
        for frame in player.frames:
            server_messages.validate_python(frame)
            if frame["type"] in ("event", "snapshot"):
                state, events = by_seq[frame["seq"]]
                _check_frame(state, events, player.seat, frame)
                checked += 1
    return checked


@pytest.mark.anyio
async def test_no_frame_holds_a_card_its_seat_may_not_know(tmp_path: Path) -> None:
    store = MemoryStore()
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="s",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
        rate=1e6,  # scripted clients act the instant a frame arrives; the limit is tested elsewhere
        burst=1e6,
        clients=NO_ADDRESS_LIMITS,
    )
    rng = random.Random(7)
    frames = 0
    with run_server(settings, store) as server:
        for batch in range(GAMES // BATCH):
            tables = []
            for i in range(BATCH):
                preset = rng.choice(sorted(QUICK))
                seats = rng.randint(2, 4)
                code, tokens = create_table(server, preset, seats, options=QUICK[preset])
                players = [
                    Player(server.ws_url, code, t, seed=batch * 1000 + i * 10 + s)
                    for s, t in enumerate(tokens)
                ]
                players.append(Player(server.ws_url, code, None, seed=0, spectate=True))
                tables.append((code, tokens[0], players))
            for code, host, _ in tables:
                await start(server, code, host)
            async with asyncio.timeout(120):
                await asyncio.gather(*(p.play(tap_rate=0.2) for _, _, ps in tables for p in ps))
            for code, _, players in tables:
                frames += await _replay_and_check(store, code, players)
    assert frames > GAMES * 20
