"""The message decoder: every client frame is a typed message or a ProtocolError with a stable code.

Messages are strict: a string or a bool where a number belongs, a number where a bool belongs, an
unknown or a missing field are all refused, never coerced.  The fuzz tests hold the decoder to one
promise whatever arrives: a message or a ProtocolError, nothing else.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from facedown.server.transport import protocol as P
from facedown.server.transport.protocol import MAX_FRAME, ProtocolError, parse_client_message

CODES = {
    "frame_too_large",
    "malformed_json",
    "malformed_message",
    "unknown_type",
    "invalid_message",
}

VALID: list[dict[str, Any]] = [
    {"type": "hello", "table": "ABC234"},
    {"type": "hello", "v": 1, "table": "ABC234", "token": "t", "last_seq": 0, "spectate": True},
    {"type": "action", "id": "a1", "seq": 3, "action": {"do": "draw"}},
    {"type": "action", "id": "a2", "seq": 0, "action": {"do": "replace", "slots": [0, 2]}},
    {
        "type": "action",
        "id": "a3",
        "seq": 9,
        "action": {"do": "swap", "slot": 1, "target": 2, "target_slot": 3},
    },
    {"type": "ready"},
    {"type": "add_bot"},
    {"type": "add_bot", "level": "hard", "seat": 3},
    {"type": "remove_seat", "seat": 2},
    {"type": "start"},
    {"type": "rematch"},
    {"type": "ping"},
]


def refused(raw: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse_client_message(raw)
    assert info.value.message, "an error says why"
    return info.value


def code_of(message: Any) -> str:
    return refused(json.dumps(message)).code


def outcome(parse: Any, raw: str | bytes) -> Any:
    """What a parser makes of ``raw``: its message, or its refusal's code and words."""
    try:
        return parse(raw)
    except ProtocolError as e:
        return ("refused", e.code, e.message)


def accepted_or_refused(raw: str | bytes) -> None:
    """The decoder's one promise: a message model, or a ProtocolError with a known code; and
    the same one as the long way (the standard library's decoder, then pydantic), whether the
    one-pass read took the frame or stepped aside."""
    assert outcome(parse_client_message, raw) == outcome(P.parse_slowly, raw)
    try:
        msg = parse_client_message(raw)
    except ProtocolError as e:
        assert e.code in CODES  # noqa: PT017 - a refusal is one of the two valid outcomes
        return
    assert isinstance(msg, BaseModel)
    assert msg.type in P.CLIENT_TYPES  # type: ignore[attr-defined]
    again = parse_client_message(json.dumps(msg.model_dump(mode="json")))
    assert again == msg, "an accepted message survives its own round trip"


# ---------------------------------------------------------------- accepted


@pytest.mark.parametrize("message", VALID, ids=lambda m: m["type"])
def test_valid_messages_are_accepted(message: dict[str, Any]) -> None:
    msg = parse_client_message(json.dumps(message))
    assert msg.type == message["type"]
    assert msg.model_dump(exclude_unset=True) == message


def test_a_frame_may_arrive_as_bytes() -> None:
    assert isinstance(parse_client_message(b'{"type":"ping"}'), P.Ping)


def test_a_frame_of_exactly_max_frame_bytes_is_read() -> None:
    ping = '{"type":"ping"}'
    raw = ping[:-1] + " " * (MAX_FRAME - len(ping)) + "}"
    assert len(raw.encode()) == MAX_FRAME
    assert isinstance(parse_client_message(raw), P.Ping)


# ---------------------------------------------------------------- refused, one code each


@pytest.mark.parametrize(
    "raw",
    ["", "{", "{not json}", "{'type': 'ping'}", '{"type": "ping",}', "\x00", b"\xff\xfe\xfa"],
)
def test_malformed_json(raw: str | bytes) -> None:
    assert refused(raw).code == "malformed_json"


def test_json_nested_too_deep_for_the_decoder_is_malformed_not_a_crash() -> None:
    # json.loads raises RecursionError here, which is no ValueError.
    assert refused("[" * 5000).code == "malformed_json"
    assert refused('{"a":' * 1600).code == "malformed_json"


@pytest.mark.parametrize("value", [[], [{"type": "ping"}], "ping", 1, 1.5, True, None])
def test_a_message_must_be_an_object(value: Any) -> None:
    assert code_of(value) == "malformed_message"


@pytest.mark.parametrize(
    "message",
    [
        {},
        {"kind": "ping"},
        {"type": "shout"},
        {"type": "PING"},
        {"type": None},
        {"type": 1},
        {"type": ["ping"]},
        {"type": {"ping": 1}},
        {"type": "error"},  # a server message is not a client message
    ],
)
def test_unknown_type(message: dict[str, Any]) -> None:
    assert code_of(message) == "unknown_type"


STRICT_FIELD_TYPES = [
    # strings and bools are not numbers, numbers are not bools or strings: no coercion
    {"type": "action", "id": "a", "seq": "5", "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": True, "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": 5.0, "action": {"do": "draw"}},
    {"type": "action", "id": 7, "seq": 5, "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": 5, "action": "draw"},
    {"type": "action", "id": "a", "seq": 5, "action": {"do": "peek", "slot": "1"}},
    {"type": "action", "id": "a", "seq": 5, "action": {"do": "peek", "slot": False}},
    {"type": "action", "id": "a", "seq": 5, "action": {"do": "replace", "slots": [0, True]}},
    {"type": "action", "id": "a", "seq": 5, "action": {"do": "replace", "slots": "01"}},
    {"type": "action", "id": "a", "seq": 5, "action": {"do": 3}},
    {"type": "hello", "table": 123456},
    {"type": "hello", "table": "T", "last_seq": "4"},
    {"type": "hello", "table": "T", "last_seq": False},
    {"type": "hello", "table": "T", "spectate": 1},
    {"type": "hello", "table": "T", "spectate": "true"},
    {"type": "hello", "table": "T", "token": 5},
    {"type": "hello", "table": "T", "v": True},
    {"type": "hello", "table": "T", "v": 1.0},
    {"type": "hello", "table": "T", "v": "1"},
    {"type": "remove_seat", "seat": "1"},
    {"type": "remove_seat", "seat": True},
    {"type": "add_bot", "seat": 1.0},
]

OUT_OF_RANGE = [
    {"type": "hello", "table": ""},
    {"type": "hello", "table": "T" * 33},
    {"type": "hello", "table": "T", "v": 2},
    {"type": "hello", "table": "T", "last_seq": -1},
    {"type": "hello", "table": "T", "token": "x" * 513},
    {"type": "action", "id": "", "seq": 0, "action": {"do": "draw"}},
    {"type": "action", "id": "i" * 65, "seq": 0, "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": -1, "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": 0, "action": {"do": "peek", "slot": -1}},
    {"type": "action", "id": "a", "seq": 0, "action": {"do": "spy", "slot": 0, "target": 8}},
    {"type": "action", "id": "a", "seq": 0, "action": {"do": "replace", "slots": list(range(9))}},
    {"type": "action", "id": "a", "seq": 0, "action": {"do": "d" * 33}},
    {"type": "add_bot", "level": "godlike"},
    {"type": "remove_seat", "seat": 8},
]

EXTRA_FIELDS = [
    {"type": "ping", "x": 1},
    {"type": "start", "force": True},
    {"type": "hello", "table": "T", "seat": 0},
    # the seat comes from the token: an action naming its player is refused
    {"type": "action", "id": "a", "seq": 0, "action": {"do": "draw", "by": 1}},
    {"type": "action", "id": "a", "seq": 0, "by": 1, "action": {"do": "draw"}},
]

MISSING_FIELDS = [
    {"type": "hello"},
    {"type": "action", "seq": 0, "action": {"do": "draw"}},
    {"type": "action", "id": "a", "action": {"do": "draw"}},
    {"type": "action", "id": "a", "seq": 0},
    {"type": "action", "id": "a", "seq": 0, "action": {}},
    {"type": "remove_seat"},
]


@pytest.mark.parametrize("message", STRICT_FIELD_TYPES)
def test_wrong_field_types_are_refused_not_coerced(message: dict[str, Any]) -> None:
    assert code_of(message) == "invalid_message"


@pytest.mark.parametrize("message", OUT_OF_RANGE)
def test_values_out_of_range_are_refused(message: dict[str, Any]) -> None:
    assert code_of(message) == "invalid_message"


@pytest.mark.parametrize("message", EXTRA_FIELDS)
def test_extra_fields_are_refused(message: dict[str, Any]) -> None:
    assert code_of(message) == "invalid_message"


@pytest.mark.parametrize("message", MISSING_FIELDS)
def test_missing_fields_are_refused(message: dict[str, Any]) -> None:
    assert code_of(message) == "invalid_message"


def test_the_error_names_the_message_and_the_field() -> None:
    error = refused(json.dumps({"type": "action", "id": "a", "seq": "5", "action": {"do": "x"}}))
    assert error.message.startswith("action: seq: ")
    error = refused(json.dumps({"type": "action", "id": "a", "seq": 1, "action": {"by": 1}}))
    assert error.message.startswith("action: action.")


@pytest.mark.parametrize("size", [MAX_FRAME + 1, 2 * MAX_FRAME, 8 * MAX_FRAME])
def test_an_oversized_frame_is_refused_before_it_is_parsed(size: int) -> None:
    ping = '{"type":"ping"}'
    raw = ping[:-1] + " " * (size - len(ping)) + "}"  # valid JSON: the size alone refuses it
    assert refused(raw).code == "frame_too_large"
    assert refused(raw.encode()).code == "frame_too_large"


def test_the_frame_limit_counts_bytes_not_characters() -> None:
    # 3000 euro signs are 3000 characters but 9000 bytes of UTF-8 on the wire.
    raw = json.dumps({"type": "hello", "table": "T", "token": "€" * 3000}, ensure_ascii=False)
    assert len(raw) < MAX_FRAME < len(raw.encode())
    assert refused(raw).code == "frame_too_large"


# ---------------------------------------------------------------- fuzz

# The decoder is cheap: fuzz it harder than the profile's default (a thorough profile goes further).
# No per-example deadline: a loaded machine (pytest -n auto beside server processes) once took
# 729 ms for one parse that takes 2 ms, and hypothesis failed it as flaky; speed is not tested.
fuzz = settings(max_examples=max(80, settings().max_examples), deadline=None)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=12,
)
field_names = st.sampled_from(
    [
        "type",
        "v",
        "table",
        "token",
        "last_seq",
        "spectate",
        "id",
        "seq",
        "action",
        "do",
        "slot",
        "slots",
        "target",
        "target_slot",
        "level",
        "seat",
        "by",
    ]
)


@fuzz
@given(st.binary(max_size=2 * MAX_FRAME))
def test_fuzz_arbitrary_bytes(raw: bytes) -> None:
    accepted_or_refused(raw)


@fuzz
@given(st.text(max_size=MAX_FRAME + 100))
def test_fuzz_arbitrary_text(raw: str) -> None:
    accepted_or_refused(raw)


@fuzz
@given(json_values)
def test_fuzz_arbitrary_json_values(value: Any) -> None:
    accepted_or_refused(json.dumps(value))


@fuzz
@given(
    st.sampled_from(P.CLIENT_TYPES),
    st.dictionaries(field_names, json_values, max_size=6),
)
def test_fuzz_objects_of_every_type_with_arbitrary_fields(
    kind: str, fields: dict[str, Any]
) -> None:
    accepted_or_refused(json.dumps({**fields, "type": kind}))


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A valid message with one field removed, added, or given an arbitrary value."""
    message: dict[str, Any] = json.loads(json.dumps(draw(st.sampled_from(VALID))))
    target = message
    if "action" in message and draw(st.booleans()):
        target = message["action"]
    how = draw(st.sampled_from(["drop", "add", "replace"]))
    keys = sorted(target)
    if how == "drop" and keys:
        del target[draw(st.sampled_from(keys))]
    elif how == "add":
        target[draw(field_names)] = draw(json_values)
    elif keys:
        target[draw(st.sampled_from(keys))] = draw(json_values)
    return message


@st.composite
def respelled(draw: st.DrawFn) -> str:
    """A valid message written in one of the ways JSON allows beyond json.dumps's: escapes
    (lone surrogates among them), duplicate keys, odd numbers, whitespace, a byte-order mark."""
    text = json.dumps(draw(st.sampled_from(VALID)))
    how = draw(st.sampled_from(["escape", "duplicate", "number", "space", "bom"]))
    if how == "escape":  # a character of a string value written as a \u escape
        code = draw(st.sampled_from([0x0, 0x1F, 0x7F, 0xE9, 0xD800, 0xDC00, 0xFFFF]))
        at = text.find('": "') + 4
        if at >= 4:
            text = text[:at] + f"\\u{code:04x}" + text[at:]
    elif how == "duplicate":
        key = draw(st.sampled_from(["type", "seq", "id", "table", "seat", "do", "level"]))
        value = json.dumps(draw(json_values))
        text = text[:-1] + f', "{key}": {value}}}'
    elif how == "number":  # an integer respelled
        spelling = draw(st.sampled_from(["3.0", "3e0", "-0", "03", "1e400", "NaN", "2" * 30]))
        text = text.replace(": 3", f": {spelling}", 1).replace(": 0", f": {spelling}", 1)
    elif how == "space":
        text = draw(st.sampled_from([" ", "\n", "\t", "\r", "\x0b", "\xa0"])).join(text.split(" "))
    else:
        text = "\ufeff" + text
    return text


@fuzz
@given(respelled())
def test_fuzz_valid_messages_respelled(raw: str) -> None:
    accepted_or_refused(raw)
    accepted_or_refused(raw.encode("utf-8", "surrogatepass"))


@fuzz
@given(mutated())
def test_fuzz_mutated_valid_messages(message: dict[str, Any]) -> None:
    accepted_or_refused(json.dumps(message))


@fuzz
@given(st.sampled_from(VALID), st.data())
def test_fuzz_byte_flips_of_valid_frames(message: dict[str, Any], data: st.DataObject) -> None:
    raw = bytearray(json.dumps(message).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    accepted_or_refused(bytes(raw))


def test_a_frame_is_compact_json_and_keys_that_are_not_strings_are_written_as_strings() -> None:
    assert P.encode({"type": "pong"}) == '{"type":"pong"}'
    assert P.encode({"type": "x", "sets": {2: "two", "n": float("nan")}}) == (
        '{"type":"x","sets":{"2":"two","n":null}}'
    )
