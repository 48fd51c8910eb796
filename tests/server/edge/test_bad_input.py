"""Bad input against a real server: a clear error, nothing changes, everyone else is unaffected.

After each refused message the sender got an error frame with a stable code, the table's seq, its
public view and its seats are as they were, every other connection at the table received nothing
(its next frame is the answer to a ping), and the sender's connection still answers a ping.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from facedown.server.accounts.auth import Tokens
from facedown.server.edge import connection
from facedown.server.edge.connection import NO_HELLO, SLOW_CLIENT, TOO_MANY
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.server.transport.protocol import MAX_FRAME
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    Client,
    Player,
    RunningServer,
    StalledClient,
    begin,
    client,
    create_table,
    play_until,
    probe,
    run_server,
    run_server_with_small_buffers,
    seated,
)

SLOW_TIMERS: dict[str, Any] = {
    "peek_seconds": 600,
    "turn_seconds": 3600,
}  # no timer plays during a test


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path, **limits: Any) -> ServerSettings:
    """Fast tables; no rate limit unless a test sets one (these clients send in quick bursts)."""
    return ServerSettings(
        data_dir=tmp_path,
        secret="bad-input",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
        **({"rate": 1e6, "burst": 1e6} | limits),
        clients=NO_ADDRESS_LIMITS,
    )


def padded(message: dict[str, Any], size: int) -> str:
    """The message as valid JSON of exactly ``size`` bytes."""
    raw = json.dumps(message)
    return raw[:-1] + " " * (size - len(raw)) + "}"


class Scene:
    """A running server, one table, and every connection that must not notice the bad input."""

    def __init__(self, server: RunningServer, code: str, watchers: list[Client]) -> None:
        self.server = server
        self.code = code
        self.watchers = watchers

    async def refuses(
        self, sender: Client, message: dict[str, Any] | str | bytes, code: str
    ) -> str:
        """Send ``message``; check the error, that nothing changed, and that all still answer."""
        before = await probe(self.server, self.code)
        await sender.send(message)
        error = await sender.recv()
        assert error["type"] == "error", error
        assert error["code"] == code, error
        assert error["message"], "an error says why"
        await sender.pong()
        for other in self.watchers:
            if other is not sender:
                await other.pong()
        assert await probe(self.server, self.code) == before, "a refused message changed the table"
        message_text: str = error["message"]
        return message_text


def action(do: str, seq: int, **fields: Any) -> dict[str, Any]:
    return {"type": "action", "id": f"bad-{do}", "seq": seq, "action": {"do": do, **fields}}


@pytest.mark.anyio
async def test_bad_input_over_one_connection_changes_nothing(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 3, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, p1, p2), client(server) as watcher:
            await watcher.hello(code)  # a spectator
            await begin(host, [p1, p2, watcher])
            await play_until(
                [host, p1, p2], lambda v: v["phase"] == "turn_start" and v["to_act"] == 0
            )
            await watcher.settle()
            scene = Scene(server, code, [host, p1, p2, watcher])

            # One connection (a second device of seat 1, which is neither host nor to act).
            async with client(server) as bad:
                scene.watchers.append(bad)
                # Before hello: nothing but ping and hello is possible.
                await scene.refuses(bad, action("draw", 0), "no_hello")
                await scene.refuses(bad, {"type": "start"}, "no_hello")
                await scene.refuses(bad, {"type": "ready"}, "no_hello")
                # A hello that fails leaves the connection free to say hello again.
                await scene.refuses(bad, {"type": "hello", "table": "NOSUCH"}, "unknown_table")
                forged = Tokens("another-secret").issue("Mallory", "p-host")[1]
                for token in ("not-a-token", forged, tokens[1] + "x"):
                    hello = {"type": "hello", "table": code, "token": token}
                    await scene.refuses(bad, hello, "bad_token")
                frames = await bad.hello(code, tokens[1])
                assert frames[0] == {"type": "welcome", "v": 1, "seat": 1, "seq": host.seq}
                for c in (host, p1, p2, watcher):
                    await c.settle()  # the table told everyone seat 1 has another device
                seq = bad.seq
                assert seq == host.seq
                await scene.refuses(bad, {"type": "hello", "table": code}, "already_hello")

                # Frames that are not messages.
                for raw in ("{not json", "", b"\xff\x00garbage", "[" * 3000):
                    await scene.refuses(bad, raw, "malformed_json")
                for value in ([1, 2], "ping", 42, None):
                    await scene.refuses(bad, json.dumps(value), "malformed_message")
                for kind in ("shout", "PING", "error", 7):
                    await scene.refuses(bad, {"type": kind}, "unknown_type")
                # The message names the type escaped and cut short, whatever it was.
                text = await scene.refuses(bad, {"type": "\u202e" * 1000}, "unknown_type")
                assert text.isprintable(), text
                assert len(text) <= 200, text

                # Wrong field types (strict: no coercion), extra and missing fields.
                invalid: list[dict[str, Any]] = [
                    action("draw", seq) | {"seq": str(seq)},
                    action("draw", seq) | {"seq": True},
                    action("draw", seq) | {"id": 5},
                    action("peek", seq, slot="0"),
                    action("replace", seq, slots=[True]),
                    {"type": "remove_seat", "seat": "1"},
                    {"type": "ping", "extra": 1},
                    {"type": "action", "id": "x", "action": {"do": "draw"}},
                    {"type": "action", "id": "x", "seq": seq},
                    {"type": "hello"},
                    # Ambiguous: which slot does it mean?
                    action("opening_peek", seq, slots=[0, 1], slot=0),
                    action("peek", seq, slots=[0], slot=0),
                    # Codes, tokens and ids are visible ASCII, bounded.
                    {"type": "hello", "table": "AB\u202eCD"},
                    {"type": "hello", "table": "A" * 17},
                    {"type": "hello", "table": code, "token": tokens[1] + "\x00"},
                    action("draw", seq) | {"id": "a\u2066b"},
                    action("draw", seq) | {"id": "\ud800"},
                    action("draw", seq) | {"id": "x" * 65},
                    {"type": "ping", "\u202e\ud800": 1},  # the key is escaped in the message
                    # A seq no client can hold (past 2**53 - 1): refused, not echoed.
                    action("draw", seq) | {"seq": 10**4000},
                    action("draw", seq) | {"seq": 2**53},
                    {"type": "hello", "table": code, "last_seq": 2**70},
                    # The version is the integer 1: true and 1.0 equal it in Python, not here.
                    {"type": "hello", "table": code, "v": True},
                    {"type": "hello", "table": code, "v": 1.0},
                ]
                for message in invalid:
                    text = await scene.refuses(bad, message, "invalid_message")
                    assert text.isprintable(), text
                    assert len(text) <= 200, text

                # Oversized: refused with a clear error, and the connection survives.
                for size in (MAX_FRAME + 1, 4 * MAX_FRAME, 8 * MAX_FRAME - 1):
                    text = await scene.refuses(
                        bad, padded(action("draw", seq), size), "frame_too_large"
                    )
                    assert str(MAX_FRAME) in text

                # Out of turn: the engine refuses it and says why.
                text = await scene.refuses(bad, action("draw", seq), "illegal:not_your_turn")
                assert text == "it is seat 0's turn, not seat 1's"
                await scene.refuses(bad, action("peek", seq, slot=0), "illegal:not_your_turn")

                # For another seat: impossible, the seat comes from the token; naming one is
                # refused.
                await scene.refuses(bad, action("draw", seq, by=0), "invalid_message")
                await scene.refuses(bad, action("draw", seq) | {"by": 0}, "invalid_message")
                await scene.refuses(bad, action("draw", seq) | {"seat": 0}, "invalid_message")

                # Illegal actions: the engine's code and its sentence.
                text = await scene.refuses(bad, action("tap", seq, slot=0), "illegal:not_in_rules")
                assert text == "this table plays without TAP"
                await scene.refuses(
                    bad, action("opening_peek", seq, slots=[0, 1]), "illegal:wrong_phase"
                )
                await scene.refuses(bad, action("fly", seq), "bad_action")
                await scene.refuses(bad, action("spy", seq, slot=0), "bad_action")  # no target

                # Not the host.
                await scene.refuses(bad, {"type": "start"}, "not_host")
                await scene.refuses(bad, {"type": "add_bot"}, "not_host")
                await scene.refuses(bad, {"type": "remove_seat", "seat": 2}, "not_host")
                await scene.refuses(bad, {"type": "rematch"}, "not_host")

            scene.watchers.remove(bad)
            for c in scene.watchers:
                await c.settle()  # seat 1's second device left: the table said so

            # The turn player's illegal actions: refused by the engine, with its reasons.
            seq = host.seq
            text = await scene.refuses(host, action("discard", seq), "illegal:wrong_phase")
            assert text == "you hold no card to replace with or discard"
            await scene.refuses(
                host, action("spy", seq, slot=0, target=1), "illegal:power_unavailable"
            )
            await scene.refuses(
                host, action("spy", seq, slot=0, target=5), "illegal:power_unavailable"
            )
            await scene.refuses(host, action("end_turn", seq), "illegal:not_in_rules")
            # The host's lobby commands, once the match runs.
            await scene.refuses(host, {"type": "start"}, "table_started")
            await scene.refuses(host, {"type": "add_bot"}, "table_started")
            await scene.refuses(host, {"type": "remove_seat", "seat": 2}, "table_started")
            await scene.refuses(host, {"type": "rematch"}, "match_running")

            # A spectator cannot act or run the table.
            await scene.refuses(watcher, action("draw", seq), "not_seated")
            await scene.refuses(watcher, {"type": "start"}, "not_host")
            await scene.refuses(watcher, {"type": "add_bot"}, "not_host")
            await scene.refuses(watcher, {"type": "remove_seat", "seat": 1}, "not_host")

            # Through all of it the table is where it was, and it still plays.
            ack = await host.act({"do": "draw"})
            assert (ack["type"], ack["seq"], ack["events"][0]["type"]) == ("event", seq + 1, "drew")
            for c in (p1, p2, watcher):  # the same change, without the host's answer
                event = await c.until("event")
                assert event["seq"] == seq + 1
                assert event["events"][0]["type"] == "drew"
                assert "ack" not in event


@pytest.mark.anyio
async def test_a_host_spectating_is_a_spectator(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "kivo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, guest), client(server) as watching:
            frames = await watching.hello(code, tokens[0], spectate=True)
            assert frames[0]["seat"] is None
            scene = Scene(server, code, [host, guest, watching])
            await scene.refuses(watching, {"type": "start"}, "not_host")
            await scene.refuses(watching, {"type": "add_bot"}, "not_host")


@pytest.mark.anyio
async def test_lobby_commands_refused_before_the_match(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        with server.http() as http:
            body = {"preset": "cabo", "seats": 3, "name": "Ann", **SLOW_TIMERS}
            created = http.post("/api/tables", json=body).json()
            code = created["code"]
            joined = http.post(f"/api/tables/{code}/join", json={"name": "Bob"}).json()
        async with seated(server, code, [created["token"], joined["token"]]) as (host, guest):
            scene = Scene(server, code, [host, guest])
            await scene.refuses(guest, action("draw", 0), "not_playing")
            await scene.refuses(host, {"type": "start"}, "open_seats")
            await scene.refuses(host, {"type": "remove_seat", "seat": 0}, "host_seat")
            await scene.refuses(host, {"type": "remove_seat", "seat": 7}, "no_such_seat")
            await scene.refuses(host, {"type": "add_bot", "seat": 1}, "no_open_seat")
            await scene.refuses(guest, {"type": "add_bot"}, "not_host")
            await scene.refuses(guest, {"type": "remove_seat", "seat": 2}, "not_host")


@pytest.mark.anyio
async def test_a_frame_past_the_transport_limit_closes_only_that_connection(
    tmp_path: Path,
) -> None:
    # The server reads frames up to 8 * MAX_FRAME (refusing those over MAX_FRAME with an error);
    # a larger frame is never read: the WebSocket layer closes with 1009, message too big.
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "kivo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, guest), client(server) as huge:
            await huge.hello(code)
            await huge.send(padded({"type": "ping"}, 8 * MAX_FRAME + 1))
            assert await huge.close_code() == 1009
            await host.pong()
            await guest.pong()
            await begin(host, [guest])


@pytest.mark.anyio
async def test_a_flood_is_rate_limited_then_closed_and_the_table_plays_on(tmp_path: Path) -> None:
    # The default limits: 20 a second, bursts of 40, closed at the 20th refused message.
    default = ServerSettings()
    config = settings(tmp_path, rate=default.rate, burst=default.burst, strikes=default.strikes)
    with run_server(config, MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 3, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, flooder, p2), client(server) as watcher:
            await watcher.hello(code)
            await begin(host, [flooder, p2, watcher])
            await play_until(
                [host, flooder, p2], lambda v: v["phase"] == "turn_start" and v["to_act"] == 0
            )
            seq = host.seq
            for _ in range(10 * int(config.burst + config.strikes)):
                await flooder.send({"type": "ping"})
            assert await flooder.close_code() == TOO_MANY
            # A burst is answered; then each message over the limit is refused, and the
            # connection is closed at the last strike, after it was told why.
            pongs = [f for f in flooder.frames if f["type"] == "pong"]
            errors = [f for f in flooder.frames if f["type"] == "error"]
            assert config.burst - 5 <= len(pongs) < config.burst + config.strikes
            assert [e["code"] for e in errors] == ["rate_limited"] * config.strikes
            assert flooder.frames[-1]["type"] == "error"

            # Everyone else is unaffected, and the table plays on.
            for c in (host, p2, watcher):
                await c.settle()  # the table says seat 1 left
                await c.pong()
            assert host.table["seats"][1]["connected"] is False
            ack = await host.act({"do": "draw"})
            assert ack["seq"] == seq + 1
            for c in (p2, watcher):
                assert (await c.until("event"))["seq"] == seq + 1


@pytest.mark.anyio
async def test_a_slow_client_is_dropped_then_resyncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The close frame can only leave once the client reads again: wait for it all through the test.
    monkeypatch.setattr(connection, "CLOSE_WAIT", 60.0)
    # A queue the honest player's reader keeps ahead of even on a loaded machine (the server runs
    # in a thread of this process, and its bots move at once: with 4, a busy moment dropped the
    # player too), and far fewer messages than the match makes, so the stalled device overflows.
    config = settings(tmp_path, send_queue=32)
    with run_server_with_small_buffers(config, MemoryStore()) as server:
        code, tokens = create_table(
            server, "kivo", 8, options={"rounds": 5}, bots=["random"] * 7, **SLOW_TIMERS
        )
        # A second device of the host's seat, which stops reading once it has said hello.
        slow = StalledClient(server)
        await slow.open()
        await slow.send({"type": "hello", "table": code, "token": tokens[0]})
        player = Player(server.ws_url, code, tokens[0], seed=1)
        async with client(server) as host:
            await host.hello(code, tokens[0])
            await begin(host, [])
        async with asyncio.timeout(40):
            await player.play()
        final = player.frames[-1]
        assert final["view"]["phase"] == "match_over"
        # The slow device was let go at once: with the player gone, no one holds seat 0.
        assert await seat_left(server, code, 0), "the dropped connection still holds its seat"

        # When it reads at last: what fitted in the buffers, then the close that dropped it.
        assert await slow.read_to_close() == SLOW_CLIENT
        seen = max(f["seq"] for f in slow.frames if f["type"] in ("event", "snapshot"))
        assert seen < final["seq"], "it was dropped long before the end"

        # It reconnects with the last seq it saw, and is in step again.  It missed more events
        # than its send queue holds, so it gets a fresh snapshot (the events would drop it again).
        async with client(server) as again:
            frames = await again.hello(code, tokens[0], last_seq=seen)
            assert [f["type"] for f in frames] == ["welcome", "table", "snapshot"]
            assert frames[-1]["seq"] == final["seq"]
            assert frames[-1]["view"] == final["view"]
            await again.pong()


async def seat_left(server: RunningServer, code: str, seat: int) -> bool:
    """Whether the table soon shows ``seat`` without a live connection."""
    with server.http() as http:
        for _ in range(100):
            if not http.get(f"/api/tables/{code}").json()["seats"][seat]["connected"]:
                return True
            await asyncio.sleep(0.02)
    return False


@pytest.mark.anyio
async def test_a_connection_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    with run_server(settings(tmp_path, hello_timeout=0.5), MemoryStore()) as server:
        code, tokens = create_table(server, "kivo", 2, **SLOW_TIMERS)
        async with client(server) as idle, client(server) as chatty, client(server) as player:
            await player.hello(code, tokens[0])
            await chatty.pong()  # answering pings is no hello
            await chatty.send({"type": "hello", "table": "NOSUCH"})
            assert (await chatty.recv())["code"] == "unknown_table"
            for c in (idle, chatty):
                assert await c.close_code() == NO_HELLO
                assert c.frames[-1]["code"] == "hello_timeout"
            await player.pong()  # a connection that said hello in time stays


def test_http_bad_input_gets_clear_errors(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server, server.http() as http:
        r = http.get("/api/tables/NOSUCH")
        assert r.status_code == 404
        assert r.json()["detail"]["code"] == "unknown_table"
        r = http.post("/api/tables/NOSUCH/join", json={"name": "Eve"})
        assert r.status_code == 404
        assert r.json()["detail"]["code"] == "unknown_table"
        r = http.post("/api/tables", json={"preset": "poker"})
        assert r.status_code == 400
        assert r.json()["detail"]["code"] == "bad_rules"
        bodies: list[dict[str, Any]] = [
            {"seats": 9},
            {"name": ""},
            {"name": "x" * 33},
            {"options": []},
        ]
        for body in bodies:
            assert http.post("/api/tables", json=body).status_code == 422
        assert http.post("/api/tables", content=b"{not json").status_code == 422
        code, _ = create_table(server, "kivo", 2)
        r = http.post(f"/api/tables/{code}/join", json={"name": "Eve"})
        assert r.status_code == 409
        assert r.json()["detail"]["code"] == "table_full"
        assert "seed" not in r.text
        # Paths: a name longer than the file system allows is no file (not a 500), and no
        # answer echoes a long path whole.
        for path in ("/" + "C" * 256, "/assets/" + "E" * 300, "/x." + "y" * 5000):
            r = http.get(path)
            assert r.status_code in (200, 404), (path[:20], r.status_code)
            assert len(r.text) < 2000 or r.headers["content-type"].startswith("text/html")
        r = http.get("/api/" + "A" * 5000)
        assert r.status_code == 404
        assert r.json()["detail"]["code"] == "not_found"
        assert len(r.json()["detail"]["message"]) <= 100
        r = http.get("/api/\u202e" + "x" * 10)
        assert r.json()["detail"]["message"].isprintable()
        # A method a route does not take: the routing's own refusal, with a code too.
        for method, path in (("PUT", "/api/tables"), ("POST", "/api/health"), ("DELETE", "/")):
            r = http.request(method, path)
            assert r.status_code == 405, (method, path)
            assert r.json()["detail"]["code"] == "method_not_allowed"
            assert "allow" in r.headers
