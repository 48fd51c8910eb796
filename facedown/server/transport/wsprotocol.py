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
- A whole, unfragmented text or binary frame that arrives is read here (its header, its mask,
  its payload) and queued for the application, without websockets' generator-based parser and
  its ``Frame`` object.  Every other frame (a ping, a pong, a close, a fragment, a frame with a
  reserved bit set or without the client's mask) is handed to websockets whole, as it would
  have parsed it, so its parser is always at the start of a frame when this one reads.  A frame
  that websockets refuses from its header (not masked, an undefined opcode, over the size
  limit) is handed to it from its header, and from then on, as once the connection is no
  longer open, everything goes to websockets.
- Reading stops only once :data:`READ_AHEAD` messages wait for the application, not at every
  message (the per-connection rate limit bounds what a client may send; this bounds what one
  connection holds in memory).

- A keepalive ping goes only to a client that has sent nothing for a whole ping interval
  (:meth:`GameWebSocketProtocol.send_keepalive_ping`): a client heard from since is alive, as
  its pong would have said.  At a busy table every player sends every few seconds; pinging
  them all the same cost a ping written and a pong read per connection and interval.

Everything else (the handshake, control frames, closing, the pings themselves) is uvicorn's and
websockets' own.  The class reads and sets the attributes of uvicorn's protocol (its version is
pinned in the lock): after an upgrade of uvicorn or websockets,
``tests/server/transport/test_wsprotocol_differential.py`` checks that it still reads every
stream of frames as uvicorn's own protocol does.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN

try:  # websockets' own unmasking, in C where its extension is built
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the wheels carry it
    from websockets.utils import apply_mask

SEND_TEXT = "facedown.send_text"  # the scope's extension: write a text frame now, or say no
READ_AHEAD = 4  # messages waiting for the application before the socket's reading stops

SendText = Callable[[str], bool]

_TEXT = 0x81  # FIN, opcode 1 (text)
_SHORT = [bytes((_TEXT, n)) for n in range(126)]  # headers of payloads under 126 bytes
_MEDIUM = struct.Struct("!BBH")  # 126, then a 16-bit length
_LONG = struct.Struct("!BBQ")  # 127, then a 64-bit length
_LENGTH16 = struct.Struct("!H")
_LENGTH64 = struct.Struct("!Q")
_OPCODE_TEXT = 1
_DATA = frozenset((_OPCODE_TEXT, 2))  # text, binary
_OPCODES = frozenset((0, 1, 2, 8, 9, 10))  # continuation, text, binary, close, ping, pong


def text_frame(data: bytes) -> bytes:
    """A whole unmasked text frame (FIN set) carrying ``data``."""
    n = len(data)
    if n < 126:
        return _SHORT[n] + data
    if n < 0x10000:
        return _MEDIUM.pack(_TEXT, 126, n) + data
    return _LONG.pack(_TEXT, 127, n) + data


def _header(data: bytes | bytearray, at: int, end: int) -> tuple[int, int, bool] | None:
    """Of the frame at ``at``: where its mask starts, its payload's length and whether it is
    masked, or None until its whole header has arrived."""
    if end - at < 2:
        return None
    second = data[at + 1]
    length = second & 0x7F
    start = at + 2
    if length == 126:
        if end - start < 2:
            return None
        return start + 2, _LENGTH16.unpack_from(data, start)[0], second >= 0x80
    if length == 127:
        if end - start < 8:
            return None
        return start + 8, _LENGTH64.unpack_from(data, start)[0], second >= 0x80
    return start, length, second >= 0x80


class GameWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with the game's short paths (module docstring)."""

    # Reading frames here: None until the opening handshake was read (uvicorn hands the
    # protocol the request alone, then the socket's data), False once websockets reads all.
    _reading: bool | None = None
    # The start of a frame that has not all arrived yet (grown in place: a frame that comes a
    # byte at a time costs its length, not its length squared).
    _unread: bytearray | None = None
    # When the client last sent anything (the loop's clock): no keepalive ping is due until it
    # has been quiet for a whole interval.
    _heard_at = 0.0

    def data_received(self, data: bytes) -> None:
        self._heard_at = self.loop.time()
        if self._reading is None:
            super().data_received(data)  # the request: websockets reads it, and is then at
            # the start of a frame (unless more than the request came, which uvicorn never
            # passes on; then websockets goes on reading everything)
            if self.conn.handshake_exc is not None and not self.handshake_initiated:
                self._refuse_request()
                return
            self._reading = data.find(b"\r\n\r\n") == len(data) - 4
            return
        if not self._reading:
            super().data_received(data)
            return
        unread = self._unread
        if unread:
            unread += data
            buffer: bytes | bytearray = unread
        else:
            buffer = data
        read = self._read_frames(buffer)
        if read == len(buffer) or not self._reading:
            self._unread = None
        elif buffer is unread:
            del unread[:read]
        else:
            self._unread = bytearray(memoryview(buffer)[read:])

    def _refuse_request(self) -> None:
        """The request was one websockets refuses to read (a line over its 8 KiB, too many
        headers, a body, not HTTP): send its answer (431, 414; none for the others) and
        close.  uvicorn's protocol writes only the answers to requests it was handed, so
        the client would otherwise wait for its own timeout on an open connection."""
        answer = b"".join(self.conn.data_to_send())  # an empty piece is websockets' end of file
        if answer:
            self.transport.write(answer)
        self.close_sent = True
        self.transport.close()

    def _read_frames(self, data: bytes | bytearray) -> int:
        """Read the whole frames at the start of ``data``; how many bytes they took."""
        conn = self.conn
        end = len(data)
        at = 0
        while at < end:
            if conn.state is not OPEN or self.close_sent or conn.parser_exc is not None:
                return self._stop_reading(data, at)
            header = _header(data, at, end)
            if header is None:
                break
            start, length, mask = header
            head1 = data[at]
            opcode = head1 & 0x0F
            if self._refused_from_header(opcode, length, mask):
                return self._stop_reading(data, at)
            stop = start + 4 + length  # (a client's frame carries a 4-byte mask)
            if stop > end:
                break
            if (
                head1 & 0xF0 == 0x80  # FIN, no reserved bit
                and opcode in _DATA
                and conn.current_size is None  # not inside a fragmented message
            ):
                self.curr_msg_data_type = "text" if opcode == _OPCODE_TEXT else "bytes"
                self.frames = [apply_mask(data[start + 4 : stop], data[start : start + 4])]
                self.send_receive_event_to_app()
            else:  # websockets reads it whole, and answers it (a pong, a close, an error)
                super().data_received(bytes(data[at:stop]))
            at = stop
        return at

    def _refused_from_header(self, opcode: int, length: int, mask: bool) -> bool:
        """Whether websockets refuses this frame from its header alone, as it reads it: not
        masked or an opcode RFC 6455 does not define (1002), or longer than the message may
        still grow (1009; a fragmented message's frames share the limit)."""
        if not mask or opcode not in _OPCODES:
            return True
        limit = self.conn.max_message_size
        if limit is None:
            return False
        return length > limit - (self.conn.current_size or 0)

    def _stop_reading(self, data: bytes | bytearray, at: int) -> int:
        """From now on websockets reads everything, starting with ``data[at:]`` (unless the
        connection is already closing: a real transport delivers nothing more then, and
        websockets, its parser already failed, would report the failure a second time)."""
        self._reading = False
        if at < len(data) and not self.transport.is_closing():
            super().data_received(bytes(data[at:]))
        return len(data)

    def send_keepalive_ping(self) -> None:
        """uvicorn's keepalive ping, if the client has been quiet for the whole interval; if not,
        the ping waits until the interval has passed since the client was last heard."""
        interval = self.ping_interval
        quiet = self.loop.time() - self._heard_at
        if interval is not None and quiet < interval:
            self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
            return
        super().send_keepalive_ping()

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
