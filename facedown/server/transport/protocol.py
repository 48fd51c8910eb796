"""The WebSocket protocol: typed, versioned JSON messages, validated on arrival.

Every message is a JSON object with a ``type``.  Client messages are parsed by
:func:`parse_client_message` into the models below (anything else is a :class:`ProtocolError`
with a code and a readable message).  Server messages are built by the ``*_message`` helpers;
every one that follows a change of the table carries the table's sequence number ``seq``.
``docs/protocol.md`` holds the JSON Schema generated from these models (``facedown docs``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from ...engine import Reveal, SeenEvent, View
from ..base.limits import MAX_SEAT, ActionKind, BotLevel
from ..base.text import ActionId, Code, Token, escaped, shown

VERSION = 1
MAX_FRAME = 8 * 1024  # bytes: larger frames are refused before they are parsed
# The largest seq a client may name: the largest integer a browser holds exactly.
MAX_SEQ = 2**53 - 1


class ProtocolError(Exception):
    """A client message that cannot be accepted; ``code`` is stable, ``message`` readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_Message):
    """First message on a connection: who you are and what you last saw."""

    type: Literal["hello"]
    v: Literal[1] = 1
    table: Code = Field(description="the table's code")
    token: Token | None = Field(None, description="session token of a seat")
    last_seq: int | None = Field(None, ge=0, le=MAX_SEQ, description="the last seq this client saw")
    spectate: bool = False

    @field_validator("v", mode="before")
    @classmethod
    def _version_is_a_number(cls, value: object) -> object:
        # ``Literal[1]`` alone lets ``true`` and ``1.0`` through (they equal 1 in Python).
        if type(value) is not int:
            raise ValueError("the version must be the integer 1")
        return value


class ActionPayload(_Message):
    """An engine action in its JSON form, without ``by`` (the server knows the seat)."""

    do: str = Field(max_length=32)
    slots: list[Annotated[int, Field(ge=0, le=64)]] | None = Field(None, max_length=8)
    slot: int | None = Field(None, ge=0, le=64)
    target: int | None = Field(None, ge=0, le=MAX_SEAT)
    target_slot: int | None = Field(None, ge=0, le=64)

    @model_validator(mode="after")
    def _one_way_to_name_slots(self) -> ActionPayload:
        if self.slot is not None and self.slots is not None:
            raise ValueError("give slot or slots, not both")
        return self


class ActionMessage(_Message):
    """Play an action. ``id`` makes a resent action apply once; ``seq`` is the last seq seen."""

    type: Literal["action"]
    id: ActionId
    seq: int = Field(ge=0, le=MAX_SEQ)
    action: ActionPayload


class Ready(_Message):
    """Done looking: the seat's moment is over (the opening look, a drawn card, a peek, a spy).
    What the seat was being shown leaves its frames until the table's next change."""

    type: Literal["ready"]


class AddBot(_Message):
    """Host: put a bot in an open seat (the first open one when ``seat`` is left out)."""

    type: Literal["add_bot"]
    level: BotLevel = "medium"
    seat: int | None = Field(None, ge=0, le=MAX_SEAT)


class RemoveSeat(_Message):
    """Host: remove a seat before the match starts (its player or bot leaves)."""

    type: Literal["remove_seat"]
    seat: int = Field(ge=0, le=MAX_SEAT)


class Start(_Message):
    """Host: start the match (every seat must be taken)."""

    type: Literal["start"]


class Rematch(_Message):
    """Host: after a match, start a new one with the same seats."""

    type: Literal["rematch"]


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Hello | ActionMessage | Ready | AddBot | RemoveSeat | Start | Rematch | Ping,
    Field(discriminator="type"),
]
_client = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("hello", "action", "ready", "add_bot", "remove_seat", "start", "rematch", "ping")


def frame_size(raw: str | bytes) -> int:
    """A frame's size in bytes as it crossed the wire (text frames are UTF-8)."""
    if isinstance(raw, bytes) or len(raw) > MAX_FRAME:
        return len(raw)  # a character is at least one byte: no need to encode
    return len(raw.encode("utf-8", "surrogatepass"))


def parse_client_message(raw: str | bytes) -> Any:
    """Decode and validate one client frame, or raise :class:`ProtocolError`."""
    if frame_size(raw) > MAX_FRAME:
        raise ProtocolError("frame_too_large", f"frames are limited to {MAX_FRAME} bytes")
    try:  # a good frame: read and validated in one pass (pydantic's JSON parser)
        return _client.validate_json(raw)
    except ValidationError:
        pass  # refused: said exactly, the long way (the JSON parsers' refusals differ)
    return parse_slowly(raw)


def parse_slowly(raw: str | bytes) -> Any:
    """:func:`parse_client_message` the long way (the standard library's JSON decoder, then
    pydantic on the value), which says exactly why a frame is refused; a good frame gives the
    same message either way (the protocol's fuzz tests hold the two to that)."""
    try:
        data = json.loads(raw)
    except ValueError:  # UnicodeDecodeError is a ValueError
        raise ProtocolError("malformed_json", "the frame is not valid JSON") from None
    except RecursionError:  # "[[[[..." nested deeper than the decoder's stack
        raise ProtocolError("malformed_json", "the frame is nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed_message", "a message must be a JSON object")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        named = shown(kind) if isinstance(kind, str) else type(kind).__name__
        raise ProtocolError("unknown_type", escaped(f"unknown message type {named}"))
    try:
        return _client.validate_python(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        message = escaped(f"{kind}: {where}: {first['msg']}".replace("Value error, ", ""))
        raise ProtocolError("invalid_message", message) from None


# ---------------------------------------------------------------- server messages
# Each frame the server sends is built as a dict, and handed on (to the hub, a connection, another
# process of a cluster) as one of these.  Their keys are the wire's: the models further down
# (``server_messages``) document the same frames, give their JSON Schema, and let the tests check
# every frame sent.  Each builder writes its keys in the order the client has always got them.

# The engine's JSON of a view, an event, a round's reveal or an action (its observer's and its
# actions' ``to_json``): the engine owns these fields (documented below by View, SeenEvent,
# Reveal and ActionJson).
EngineJson = dict[str, Any]


class WelcomeFrame(TypedDict):
    type: Literal["welcome"]
    v: int
    seat: int | None
    seq: int


class SeatJson(TypedDict):
    """One seat in a ``table`` frame (:class:`SeatInfo`)."""

    seat: int
    kind: Literal["open", "human", "bot"]
    name: str
    level: str | None
    connected: bool
    bot_standin: bool
    missed: int
    forfeited: bool


class TableInfoJson(TypedDict):
    """A table's public facts (:class:`TableInfo`): the ``table`` frame's, and the HTTP
    answers'."""

    code: str
    preset: str
    status: str
    # The table's settings without the keys that never leave the server (``modes.TableSettings``,
    # a layer above this one): an open object on the wire, as TableInfo says.
    settings: Mapping[str, object]
    host_seat: int | None
    rules: EngineJson  # Ruleset.to_json
    match: int
    seats: list[SeatJson]


class TableFrame(TypedDict):
    type: Literal["table"]
    seq: int
    seat: int | None
    table: TableInfoJson


class TimedOutJson(TypedDict):
    seat: int
    action: EngineJson


class _StateFrame(TypedDict):
    """What an ``event`` and a ``snapshot`` share (:class:`_State`), after their ``type``."""

    seq: int
    view: EngineJson
    legal: list[EngineJson]
    sets: int
    deadline: float | None
    now: float


class EventFrame(_StateFrame):
    type: Literal["event"]
    events: list[EngineJson]
    timed_out: NotRequired[TimedOutJson]
    ack: NotRequired[str]


class PublicBatchJson(TypedDict):
    seq: int
    events: list[EngineJson]


class SnapshotFrame(_StateFrame):
    type: Literal["snapshot"]
    rounds: list[EngineJson]
    recent: NotRequired[list[PublicBatchJson]]


class MissedFrame(TypedDict):
    type: Literal["missed"]
    seq: int
    events: list[EngineJson]


class AckFrame(TypedDict):
    type: Literal["ack"]
    seq: int
    id: NotRequired[str]


class ErrorFrame(TypedDict):
    type: Literal["error"]
    code: str
    message: str
    id: NotRequired[str]


class PongFrame(TypedDict):
    type: Literal["pong"]


ServerFrame = (
    WelcomeFrame
    | TableFrame
    | EventFrame
    | SnapshotFrame
    | MissedFrame
    | AckFrame
    | ErrorFrame
    | PongFrame
)


def encode(message: Mapping[str, Any]) -> str:
    """A server message's frame text: compact JSON, UTF-8 as it is (orjson, in C: the server
    encodes several frames for every action).  Keys that are not strings are written as strings,
    as json.dumps does; NaN and infinity, which are not JSON, become null."""
    try:
        return orjson.dumps(message).decode()
    except orjson.JSONEncodeError:
        # A key that is not a string (orjson's option for them slows every frame down by
        # about a third, so it is asked for only when needed).
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def error_message(code: str, message: str, action_id: str | None = None) -> ErrorFrame:
    """A refusal; ``action_id``: the id of the refused action, which answers it."""
    frame: ErrorFrame = {"type": "error", "code": code, "message": message}
    if action_id is not None:
        frame["id"] = action_id
    return frame


def client_schema() -> dict[str, Any]:  # a JSON Schema document: free-form
    """JSON Schema of every client message."""
    return _client.json_schema()


# ---------------------------------------------------------------- server message shapes
# The server builds its messages as plain dicts (the view and events come from the engine);
# these models document them, give the JSON Schema, and let tests check every frame sent.


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Welcome(_Out):
    """Answer to hello: your seat (null for a spectator) and the table's seq."""

    type: Literal["welcome"]
    v: int
    seat: int | None
    seq: int


class SeatInfo(_Out):
    seat: int
    kind: Literal["open", "human", "bot"]
    name: str
    level: str | None
    connected: bool
    bot_standin: bool = Field(description="a bot plays this seat while its player is away")
    missed: int = Field(0, description="turn-based: deadlines this seat missed in the match")
    forfeited: bool = Field(
        False,
        description=(
            "forfeited (three missed deadlines at a turn-based table, or a ranked match left past"
            " its grace period): a bot plays it to the end of the match, and its player sees the"
            " rest of that match as a spectator does"
        ),
    )


class TableInfo(_Out):
    code: str
    preset: str
    status: Literal["lobby", "playing", "finished", "closed"]
    # The public part of the table's settings (TableInfoJson's), an open object here: a
    # TypedDict would have pydantic rewrite them in the HTTP answers (20 as 20.0, keys
    # reordered), and the web client reads them as a record.
    settings: dict[str, Any]
    host_seat: int | None
    rules: dict[str, Any] = Field(description="the table's ruleset (docs/rulesets.md)")
    match: int
    seats: list[SeatInfo]


class TableMessage(_Out):
    """The table's public facts: seats, who is connected, status.  Sent on every change."""

    type: Literal["table"]
    seq: int
    seat: int | None = Field(description="the receiver's seat now (seats move in the lobby)")
    table: TableInfo


class ActionJson(_Out):
    """An engine action in its JSON form, as the server lists a seat's legal actions."""

    by: int = Field(description="the acting seat")
    do: ActionKind
    slots: list[int] | None = Field(None, description="replace and opening_peek: the slots")
    slot: int | None = Field(None, description="peek, spy, swap, tap: the one slot")
    target: int | None = Field(None, description="spy and swap: the other player")
    target_slot: int | None = Field(None, description="swap: the other player's slot")


class _State(_Out):
    seq: int
    view: View = Field(description="the engine's view for your seat (docs/engine.md)")
    legal: list[ActionJson] = Field(description="your legal actions now")
    sets: int = Field(
        description="the most cards you may replace as one set now (0: none); set replaces are "
        "not listed in legal: any 2 up to that many of your own cards make one"
    )
    deadline: float | None = Field(description="the unix time the current timer ends")
    now: float = Field(description="the server's clock when it sent this (unix time)")


class TimedOut(_Out):
    """A timer ran out: the move the table played for the seat it was waiting for."""

    seat: int
    action: ActionJson


class EventMessage(_State):
    """After a change of the table: what happened, as you may see it, your view and your legal
    actions; ``timed_out`` when the change is a move played because time ran out, ``ack`` when
    it is your own action (its id: the answer to it)."""

    type: Literal["event"]
    events: list[SeenEvent]
    timed_out: TimedOut | None = None
    ack: str | None = Field(
        None,
        description="the id of your action that this change applied: its answer (in the "
        "acting seat's event only)",
    )


class PublicBatch(_Out):
    """One seq's events as a spectator sees them: what every player was shown."""

    seq: int
    events: list[SeenEvent]


class SnapshotMessage(_State):
    """On (re)connection or after a refusal: your view and legal actions, and the scoreboard."""

    type: Literal["snapshot"]
    rounds: list[Reveal] = Field(description="every round of the match so far")
    recent: list[PublicBatch] | None = Field(
        default=None,
        description="to a client that said no last seq (a page loaded afresh): the public part "
        "of the latest events, oldest first, so that its log shows them again",
    )


class Missed(_Out):
    """On reconnection: the public part of the events of one seq you missed, never the cards
    your seat was shown in them (a snapshot follows them)."""

    type: Literal["missed"]
    seq: int
    events: list[SeenEvent]


class Ack(_Out):
    """A resent action (by id) was applied before, at ``seq``, or your READY was heard.  (An
    action applied now is answered by the event that applies it, its ``ack`` the id.)"""

    type: Literal["ack"]
    seq: int
    id: str | None = None


class ErrorMessage(_Out):
    """A refusal: nothing changed.  ``code`` is stable (e.g. ``stale``, ``illegal:not_your_turn``,
    ``rate_limited``, ``unknown_table``); ``id`` names the refused action."""

    type: Literal["error"]
    code: str
    message: str
    id: str | None = None


class Pong(_Out):
    type: Literal["pong"]


ServerMessage = Annotated[
    Welcome | TableMessage | EventMessage | SnapshotMessage | Missed | Ack | ErrorMessage | Pong,
    Field(discriminator="type"),
]
server_messages = TypeAdapter(ServerMessage)


def server_schema() -> dict[str, Any]:  # a JSON Schema document: free-form
    """JSON Schema of every server message."""
    return server_messages.json_schema()
