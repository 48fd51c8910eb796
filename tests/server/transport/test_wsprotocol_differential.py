"""The game's WebSocket protocol against uvicorn's own, on the same bytes (property test).

Any stream of client frames (messages, fragments with control frames between them, pings,
pongs, closes, and frames a server must refuse: unmasked, reserved bits, undefined opcodes,
over the size limit, bad UTF-8), cut into any pieces, must give the application the same
messages, put the same bytes on the wire and close the connection alike, whether
``GameWebSocketProtocol`` reads it or uvicorn's ``WebSocketsSansIOProtocol`` does.

uvicorn's protocol is fed one byte at a time: fed a whole read at once, it drops the messages
that came before a refused frame in the same read (its parser stops at the error before it
hands any event on), which the game's protocol does not do. Both stop being fed once they
closed the transport, as a real transport delivers nothing more then.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from facedown.server.transport.wsprotocol import GameWebSocketProtocol

from .test_wsprotocol import masked

REQUEST = (
    b"GET / HTTP/1.1\r\nhost: facedown\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
    b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
)
LIMIT = 300  # the size limit of these connections: small, so frames can pass it


class Wire(asyncio.Transport):
    """A transport that keeps what the protocol writes and whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


async def accept(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "websocket.accept"})
    await asyncio.Event().wait()  # reads nothing: what arrives stays in the protocol's queue


payloads = st.one_of(
    st.text(max_size=40).map(str.encode),
    st.binary(max_size=40),
    st.integers(LIMIT - 5, LIMIT + 5).map(lambda n: b"L" * n),
    st.sampled_from([b"\xff\xfe", "é".encode()[:1], "é".encode()[1:]]),
)
frames = st.one_of(
    st.builds(
        masked,
        st.sampled_from([0, 1, 2]),  # continuation, text, binary
        payloads,
        fin=st.booleans(),
    ),
    st.builds(masked, st.sampled_from([9, 10]), st.binary(max_size=8)),  # ping, pong
    st.just(masked(8, b"\x03\xe8")),  # close, 1000
    st.builds(masked, st.just(1), st.binary(max_size=8), mask=st.just(False)),
    st.builds(masked, st.just(1), st.binary(max_size=8), rsv=st.sampled_from([0x40, 0x20])),
    st.builds(masked, st.sampled_from([3, 11]), st.binary(max_size=8)),  # undefined opcodes
    st.builds(masked, st.just(9), st.just(b"p" * 130)),  # a control frame too long
    st.builds(masked, st.just(9), st.binary(max_size=8), fin=st.just(False)),  # fragmented
)


async def read(
    protocol_class: type[WebSocketsSansIOProtocol], pieces: list[bytes]
) -> tuple[list[dict[str, Any]], bytes, bool]:
    """What the application was given, what was written, whether the connection closed."""
    config = uvicorn.Config(
        accept, ws_max_size=LIMIT, ws_ping_interval=None, ws_per_message_deflate=False
    )
    config.load()
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    wire = Wire()
    protocol.connection_made(wire)
    protocol.data_received(REQUEST)
    for _ in range(100):  # the application's task runs, and accepts
        if protocol.handshake_complete:
            break
        await asyncio.sleep(0)
    assert protocol.handshake_complete
    del wire.written[:]
    for piece in pieces:
        if wire.closed:
            break
        protocol.data_received(piece)
    given_app = []
    while not protocol.queue.empty():
        given_app.append(dict(protocol.queue.get_nowait()))
    for task in list(protocol.tasks):
        task.cancel()
    return given_app, bytes(wire.written), wire.closed


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, min_size=1, max_size=12), st.lists(st.integers(1, 64), max_size=20))
def test_the_game_protocol_reads_what_uvicorn_reads(sent: list[bytes], cuts: list[int]) -> None:
    data = b"".join(sent)
    pieces, at = [], 0
    for size in cuts:
        pieces.append(data[at : at + size])
        at += size
    pieces.append(data[at:])
    pieces = [p for p in pieces if p]
    logging.disable(logging.CRITICAL)  # both log each refusal
    try:
        ours = asyncio.run(read(GameWebSocketProtocol, pieces))
        one_byte = [data[i : i + 1] for i in range(len(data))]
        uvicorns = asyncio.run(read(WebSocketsSansIOProtocol, one_byte))
    finally:
        logging.disable(logging.NOTSET)
    assert ours == uvicorns
