"""The WebSocket protocol the server runs under uvicorn: uvicorn's own (on websockets' sans-I/O
protocol) with a shorter path for the frames of a game.

A game's frames are small text messages, four of them written for every action, one read.  The
general path costs more than the frame: a frame sent passes the application's send queue, a
task's wake-up, the ASGI ``send`` coroutine of every middleware and of uvicorn, and websockets'
``Frame`` object, its checks and its serialisation; a frame read stops the socket's reading and
starts it again.  Here:

- A text frame is written at once by :meth:`GameWebSocketProtocol.send_text`, offered to the
  application as the ASGI extension :data:`SEND_TEXT` (a plain function: no coroutine, no task).
  It refuses (returns False) whenever the general path must decide instead: the handshake not
  done, the connection closing or closed, a fragmented message under way, an extension in use,
  or the transport's buffer over its high-water mark (the application then queues the frame and
  its sender waits for the buffer to drain, as before).  The frame it writes is what websockets
  writes for it: FIN and the text opcode, the length in the shortest form, no mask (a server's
  frames are not masked: RFC 6455, 5.1).
- The ASGI ``send`` of a text frame takes the same path when it can.
- Reading stops only once :data:`READ_AHEAD` messages wait for the application, not at every
  message (the per-connection rate limit bounds what a client may send; this bounds what one
  connection holds in memory).

Everything else (the handshake, control frames, closing, keepalive pings, parsing) is uvicorn's
and websockets' own.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN

SEND_TEXT = "facedown.send_text"  # the scope's extension: write a text frame now, or say no
READ_AHEAD = 4  # messages waiting for the application before the socket's reading stops

SendText = Callable[[str], bool]

_TEXT = 0x81  # FIN, opcode 1 (text)
_SHORT = [bytes((_TEXT, n)) for n in range(126)]  # headers of payloads under 126 bytes
_MEDIUM = struct.Struct("!BBH")  # 126, then a 16-bit length
_LONG = struct.Struct("!BBQ")  # 127, then a 64-bit length


def text_frame(data: bytes) -> bytes:
    """A whole unmasked text frame (FIN set) carrying ``data``."""
    n = len(data)
    if n < 126:
        return _SHORT[n] + data
    if n < 0x10000:
        return _MEDIUM.pack(_TEXT, 126, n) + data
    return _LONG.pack(_TEXT, 127, n) + data


class GameWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with the game's short paths (module docstring)."""

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the upgrade was accepted: the application will be called
            scope["extensions"][SEND_TEXT] = self.send_text

    def send_text(self, text: str) -> bool:
        """Write ``text`` as one frame now, if nothing else must decide first (see above)."""
        conn = self.conn
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or conn.state is not OPEN
            or conn.expect_continuation_frame
            or conn.extensions
            or not self.writable.is_set()
        ):
            return False
        self.transport.write(text_frame(text.encode()))
        return True

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] == "websocket.send":
            text = message.get("text")
            if text is not None and self.send_text(text):
                return
        await super().send(message)

    def send_receive_event_to_app(self) -> None:
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            # Past the application's close: the message is dropped, and reading goes on until
            # the peer's close frame answers ours.
            return
        if self.curr_msg_data_type == "text":
            try:
                text = data.decode()
            except UnicodeDecodeError:
                self.logger.info("a client sent a text frame that is not UTF-8: closing (1007)")
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
        else:
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
        if not self.read_paused and self.queue.qsize() >= READ_AHEAD:
            self.read_paused = True
            self.transport.pause_reading()

    # uvicorn's receive() starts the reading again once the queue is empty (only if stopped).
