"""The WebSocket protocol's short paths (server/wsprotocol.py), under a real uvicorn server.

A frame written at once must be exactly the frame websockets would write; the short path must
step aside whenever the general one has to decide; reading must go on after a burst larger than
the read-ahead; and a text frame that is not UTF-8 closes the connection with 1007.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from facedown.server.settings import ServerSettings
from facedown.server.wsprotocol import READ_AHEAD, SEND_TEXT, text_frame

from .harness import serve_asgi


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
    ``send`` and anything else with itself, and closes on ``bye``."""

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
            if text == "bye":
                await send({"type": "websocket.close", "code": 1000})
                self.refused_after_close.append(send_text is not None and not send_text("late"))
                return
            if text is not None and text.startswith("now:") and send_text is not None:
                assert send_text("x" * int(text[4:]))
            elif text is not None and text.startswith("asgi:"):
                await send({"type": "websocket.send", "text": "y" * int(text[5:])})
            else:
                await send({"type": "websocket.send", "text": text})


@contextlib.contextmanager
def serving(app: Echo, tmp_path: Path) -> Iterator[str]:
    settings = ServerSettings(data_dir=tmp_path, secret="wsprotocol")
    with serve_asgi(app, settings) as running:
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
