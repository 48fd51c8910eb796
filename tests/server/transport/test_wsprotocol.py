"""The WebSocket protocol's short paths (server/transport/wsprotocol.py), under a real uvicorn
server.

A frame written at once must be exactly the frame websockets would write; the short path must
step aside whenever the general one has to decide; reading must go on after a burst larger than
the read-ahead; a text frame that is not UTF-8 closes the connection with 1007; and a client
that keeps sending is not pinged.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import CLOSED, OPEN
from websockets.uri import parse_uri

from facedown.server.edge.connection import Connection
from facedown.server.edge.serving import uvicorn_config
from facedown.server.edge.settings import ServerSettings
from facedown.server.transport.wsprotocol import (
    READ_AHEAD,
    SEND_TEXT,
    GameWebSocketProtocol,
    text_frame,
)

from ..harness import serve_asgi


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 1000, 65535, 65536, 70000])
def test_a_text_frame_is_the_frame_websockets_writes(size: int) -> None:
    data = ("é" * size).encode()[:size]  # any bytes: the header depends on the length only
    expected = Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])
    assert text_frame(data) == expected


class Echo:
    """A bare ASGI WebSocket application: it records what the server offered it, answers
    ``now:<n>`` with n x's through the short path, ``asgi:<n>`` with n y's through ASGI
    ``send`` and any other message (text or bytes) with itself, and closes on ``bye``."""

    def __init__(self) -> None:
        self.offered: list[bool] = []
        self.refused_after_close: list[bool] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        send_text = scope["extensions"].get(SEND_TEXT)
        self.offered.append(send_text is not None)
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await send({"type": "websocket.send", "bytes": message["bytes"]})
                continue
            if text == "bye":
                await send({"type": "websocket.close", "code": 1000})
                self.refused_after_close.append(send_text is not None and not send_text("late"))
                return
            if text.startswith("now:") and send_text is not None:
                assert send_text("x" * int(text[4:]))
            elif text.startswith("asgi:"):
                await send({"type": "websocket.send", "text": "y" * int(text[5:])})
            else:
                await send({"type": "websocket.send", "text": text})


@contextlib.contextmanager
def serving(app: Any, tmp_path: Path, **options: Any) -> Iterator[str]:
    settings = ServerSettings(data_dir=tmp_path, secret="wsprotocol")
    with serve_asgi(app, settings, **options) as running:
        yield running.url.replace("http://", "ws://") + "/"


@pytest.mark.anyio
async def test_frames_written_at_once_and_through_asgi_arrive_in_order(tmp_path: Path) -> None:
    app = Echo()
    sizes = [0, 5, 125, 126, 4000, 65535, 65536, 200_000]
    with serving(app, tmp_path) as url:
        async with connect(url, max_size=2**22) as ws:
            for n in sizes:
                await ws.send(f"now:{n}")
                await ws.send(f"asgi:{n}")
            for n in sizes:
                assert await asyncio.wait_for(ws.recv(), 5) == "x" * n
                assert await asyncio.wait_for(ws.recv(), 5) == "y" * n
            await ws.send("bye")
            with contextlib.suppress(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            assert ws.close_code == 1000
    assert app.offered == [True]
    assert app.refused_after_close == [True]  # closing: the short path steps aside


@pytest.mark.anyio
async def test_reading_goes_on_after_a_burst_larger_than_the_read_ahead(tmp_path: Path) -> None:
    app = Echo()
    burst = READ_AHEAD * 50
    with serving(app, tmp_path) as url:
        async with connect(url) as ws:
            for i in range(burst):
                await ws.send(f"m{i}")
            got = [await asyncio.wait_for(ws.recv(), 5) for _ in range(burst)]
    assert got == [f"m{i}" for i in range(burst)]


@pytest.mark.anyio
async def test_a_text_frame_that_is_not_utf8_closes_with_1007(tmp_path: Path) -> None:
    app = Echo()
    with serving(app, tmp_path) as url:
        async with connect(url) as ws:
            await ws.send(b"\xff\xfe not utf-8", text=True)
            with contextlib.suppress(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5)
            assert ws.close_code == 1007
        async with connect(url) as ws:  # the server serves the next client as before
            await ws.send("still here")
            assert await asyncio.wait_for(ws.recv(), 5) == "still here"


class RawClient:
    """A client that writes whatever bytes a test makes (frames built by websockets, cut into
    any pieces) and reads the server's frames with websockets' own client protocol."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.protocol = ClientProtocol(parse_uri("ws://127.0.0.1/"))
        self.events: list[Frame] = []

    async def handshake(self) -> None:
        self.protocol.send_request(self.protocol.connect())
        await self.write(b"".join(self.protocol.data_to_send()))
        while self.protocol.state is not OPEN:
            await self.read()

    async def write(self, data: bytes, pieces: list[int] | None = None) -> None:
        """Send ``data`` cut after each length in ``pieces`` (drained each time)."""
        cuts = [0, *itertools.accumulate(pieces or []), len(data)]
        for a, b in itertools.pairwise(cuts):
            if a < b:
                self.writer.write(data[a:b])
                await self.writer.drain()

    async def read(self) -> None:
        data = await asyncio.wait_for(self.reader.read(1 << 16), 5)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        self.events += [e for e in self.protocol.events_received() if isinstance(e, Frame)]

    async def frames(self, n: int) -> list[Frame]:
        while len(self.events) < n:
            await self.read()
        got, self.events = self.events[:n], self.events[n:]
        return got

    async def close_code(self) -> int | None:
        with contextlib.suppress(EOFError, ConnectionError):
            while self.protocol.state is not CLOSED:
                await self.read()
        received = self.protocol.close_rcvd
        return None if received is None else received.code


@contextlib.asynccontextmanager
async def raw_client(url: str) -> AsyncIterator[RawClient]:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        client = RawClient(reader, writer)
        await client.handshake()
        yield client
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def masked(opcode: int, data: bytes, *, fin: bool = True, mask: bool = True, rsv: int = 0) -> bytes:
    """A client's frame as websockets writes it (masked, as RFC 6455 asks of clients, unless
    ``mask`` is False), with any opcode and reserved bits (``rsv``), even those websockets
    would refuse to write."""
    frame = bytearray(Frame(Opcode.TEXT, data, fin).serialize(mask=mask, extensions=[]))
    frame[0] = (0x80 if fin else 0) | rsv | opcode
    return bytes(frame)


@contextlib.asynccontextmanager
async def echoed(tmp_path: Path) -> AsyncIterator[RawClient]:
    """A raw client of an :class:`Echo` application served as Facedown serves its own."""
    with serving(Echo(), tmp_path) as url:
        async with raw_client(url) as client:
            yield client


def sent_as_one_message() -> list[tuple[bytes, Frame]]:
    """Frames a client may send, each with what the server answers: the echo of a message
    (from the application), or the pong of a ping (from websockets)."""
    return [
        (masked(Opcode.TEXT, b"small"), Frame(Opcode.TEXT, b"small")),
        (masked(Opcode.TEXT, b"m" * 126), Frame(Opcode.TEXT, b"m" * 126)),
        (masked(Opcode.BINARY, bytes(range(256)) * 4), Frame(Opcode.BINARY, bytes(range(256)) * 4)),
        (masked(Opcode.PING, b"are you there"), Frame(Opcode.PONG, b"are you there")),
        (
            masked(Opcode.TEXT, b"frag", fin=False)
            + masked(Opcode.PING, b"in between")
            + masked(Opcode.CONT, "ment é".encode()),
            Frame(Opcode.PONG, b"in between"),
        ),
        (b"", Frame(Opcode.TEXT, "fragment é".encode())),  # the fragments' message, echoed
        (masked(Opcode.TEXT, b"L" * 60_000), Frame(Opcode.TEXT, b"L" * 60_000)),
        (masked(Opcode.TEXT, b""), Frame(Opcode.TEXT, b"")),
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("cut", ["whole", "bytes", "uneven"])
async def test_frames_are_read_whatever_pieces_they_arrive_in(tmp_path: Path, cut: str) -> None:
    cases = sent_as_one_message()
    data = b"".join(frame for frame, _ in cases)
    pieces = {"whole": [], "bytes": [1] * len(data), "uneven": [1, 2, 3, 5, 7, 11, 13] * 4000}
    async with echoed(tmp_path) as client:
        await client.write(data, pieces[cut])
        got = await client.frames(len(cases))
        await client.write(masked(Opcode.CLOSE, b"\x03\xe8"))  # 1000, normal
        assert await client.close_code() == 1000
    # The messages come back in order, and so do the pongs (websockets answers a ping at once,
    # the application a message later: the two streams interleave as they may).
    for pongs in (True, False):
        answered = [(f.opcode, bytes(f.data)) for f in got if (f.opcode is Opcode.PONG) == pongs]
        expected = [(e.opcode, e.data) for _, e in cases if (e.opcode is Opcode.PONG) == pongs]
        assert answered == expected


@pytest.mark.anyio
async def test_an_unmasked_frame_closes_with_1002(tmp_path: Path) -> None:
    async with echoed(tmp_path) as client:
        await client.write(masked(Opcode.TEXT, b"fine"))
        assert [f.data for f in await client.frames(1)] == [b"fine"]
        await client.write(masked(Opcode.TEXT, b"bare", mask=False))
        assert await client.close_code() == 1002


@pytest.mark.anyio
async def test_a_reserved_bit_closes_with_1002(tmp_path: Path) -> None:
    async with echoed(tmp_path) as client:
        # RSV2, which no extension of this connection gave a meaning
        await client.write(masked(Opcode.TEXT, b"odd", rsv=0x20))
        assert await client.close_code() == 1002


@pytest.mark.anyio
@pytest.mark.parametrize("pieces", [[], [1, 1, 1, 1]])
@pytest.mark.parametrize("fragmented", [False, True])
async def test_a_frame_over_the_limit_closes_with_1009_from_its_header(
    tmp_path: Path, pieces: list[int], fragmented: bool
) -> None:
    async with echoed(tmp_path) as client:
        limit = client_limit()
        if fragmented:  # a message's fragments share the limit: the second goes over it
            await client.write(masked(Opcode.TEXT, b"y" * (limit - 1000), fin=False))
            header = masked(Opcode.CONT, b"x" * 2000)[:8]
        else:
            header = masked(Opcode.TEXT, b"x" * (limit + 1))[:14]
        await client.write(header, pieces)  # the payload never comes
        assert await client.close_code() == 1009


@pytest.mark.anyio
async def test_an_undefined_opcode_closes_with_1002_from_its_header(tmp_path: Path) -> None:
    async with echoed(tmp_path) as client:
        header = masked(3, b"x" * 5000)[:8]  # opcode 3, which RFC 6455 reserves
        await client.write(header)  # the payload never comes
        assert await client.close_code() == 1002


class Disconnects:
    """An application that, once told the client is gone, keeps asking for a while: every
    disconnect it is told of."""

    def __init__(self) -> None:
        self.told: list[int | None] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
        self.told.append(1)
        with contextlib.suppress(TimeoutError):
            while True:
                message = await asyncio.wait_for(receive(), 0.5)
                self.told.append(message.get("code"))


@pytest.mark.anyio
async def test_a_refused_frame_ends_the_reading_of_what_came_with_it(tmp_path: Path) -> None:
    # After the frame websockets refuses, the rest of the same read is not handed to it (its
    # parser has failed already, and would report the failure again).
    app = Disconnects()
    with serving(app, tmp_path) as url:
        async with raw_client(url) as client:
            undefined = masked(3, b"o")
            await client.write(undefined + masked(Opcode.TEXT, b"after"))  # one write
            assert await client.close_code() == 1002
        await asyncio.sleep(1)
    assert len(app.told) == 2  # the refusal's disconnect, then the connection's loss only


class Numbered:
    """An application that sends ``frames`` numbered frames through a game connection
    (``server/edge/connection.py``: written at once while nothing is queued, else queued), then
    waits for the client to leave."""

    frames = 3000

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        conn = Connection(ws, receive, send, self.frames, scope["extensions"].get(SEND_TEXT))
        pad = "z" * 4000
        for i in range(self.frames):
            conn.send(f"{i:06d}{pad}")
            if i % 7 == 0:
                await asyncio.sleep(0)  # the sender task runs now and then
        await receive()
        await conn.finish()


@pytest.mark.anyio
async def test_frames_keep_their_order_when_the_client_stops_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = {True: 0, False: 0}  # frames send_text wrote, and refused (to the queue)
    send_text = GameWebSocketProtocol.send_text

    def counted(self: GameWebSocketProtocol, text: str) -> bool:
        done = send_text(self, text)
        written[done] += 1
        return done

    monkeypatch.setattr(GameWebSocketProtocol, "send_text", counted)
    with serving(Numbered(), tmp_path) as url:
        async with connect(url, max_size=None, max_queue=1) as ws:
            await asyncio.sleep(1)  # reads nothing: the server's buffer fills, writing pauses
            got = [await asyncio.wait_for(ws.recv(), 10) for _ in range(Numbered.frames)]
    assert [int(str(frame)[:6]) for frame in got] == list(range(Numbered.frames))
    assert written[True] > 0 and written[False] > 0  # noqa: PT018 - both paths, one claim


def client_limit() -> int:
    """The largest message the server takes (uvicorn's ws_max_size, as facedown serve sets it)."""
    settings = ServerSettings(data_dir=Path("."), secret="wsprotocol")
    limit: int = uvicorn_config(Echo(), settings).ws_max_size
    return limit


async def pings_while(client: RawClient, seconds: float, *, talking: bool) -> int:
    """The pings the server sends ``client`` in ``seconds``, while the client sends a message
    every 50 ms (``talking``) or nothing (each ping answered, as a client's protocol does)."""
    pings = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if talking:
            await client.write(masked(1, b"still here"))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.read(), 0.05)
        for frame in client.events:
            pings += frame.opcode is Opcode.PING
        client.events.clear()
        await client.write(b"".join(client.protocol.data_to_send()))  # the pongs
    return pings


@pytest.mark.anyio
async def test_a_client_that_keeps_sending_is_not_pinged_and_a_quiet_one_is(
    tmp_path: Path,
) -> None:
    interval = 0.3
    with serving(Echo(), tmp_path, ws_ping_interval=interval, ws_ping_timeout=5) as url:
        async with raw_client(url) as client:
            assert await pings_while(client, 6 * interval, talking=True) == 0
            quiet = await pings_while(client, 6 * interval, talking=False)
            assert 2 <= quiet <= 6  # a ping every interval, each answered
            assert await pings_while(client, 6 * interval, talking=True) <= 1  # (one due)
            assert client.protocol.state is OPEN
