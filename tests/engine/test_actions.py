"""Actions: the one text form and the one JSON form, and what neither accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from facedown.engine import Action, ActionFormatError
from facedown.engine.actions import KINDS

# Every kind, in its canonical form, with its text and JSON forms.
CASES: list[tuple[Action, str, dict[str, Any]]] = [
    (
        Action(0, "opening_peek", (0, 1)),
        "0 opening_peek 0 1",
        {"by": 0, "do": "opening_peek", "slots": [0, 1]},
    ),
    (Action(1, "draw"), "1 draw", {"by": 1, "do": "draw"}),
    (Action(2, "take_discard"), "2 take_discard", {"by": 2, "do": "take_discard"}),
    (Action(3, "replace", (2,)), "3 replace 2", {"by": 3, "do": "replace", "slots": [2]}),
    (
        Action(3, "replace", (0, 2, 5)),
        "3 replace 0 2 5",
        {"by": 3, "do": "replace", "slots": [0, 2, 5]},
    ),
    (Action(0, "discard"), "0 discard", {"by": 0, "do": "discard"}),
    (Action(0, "peek", (3,)), "0 peek 3", {"by": 0, "do": "peek", "slot": 3}),
    (Action(0, "spy", (2,), 1), "0 spy 1:2", {"by": 0, "do": "spy", "slot": 2, "target": 1}),
    (
        Action(2, "swap", (0,), 1, 3),
        "2 swap 0 1:3",
        {"by": 2, "do": "swap", "slot": 0, "target": 1, "target_slot": 3},
    ),
    (Action(4, "skip"), "4 skip", {"by": 4, "do": "skip"}),
    (Action(5, "end_turn"), "5 end_turn", {"by": 5, "do": "end_turn"}),
    (Action(6, "call"), "6 call", {"by": 6, "do": "call"}),
    (Action(7, "tap", (4,)), "7 tap 4", {"by": 7, "do": "tap", "slot": 4}),
    (Action(1, "undo"), "1 undo", {"by": 1, "do": "undo"}),
    (Action(0, "next_round"), "0 next_round", {"by": 0, "do": "next_round"}),
]


def test_cases_cover_every_kind() -> None:
    # The table above has every action kind of the scenario format.
    assert {a.kind for a, _, _ in CASES} == set(KINDS)


@pytest.mark.parametrize(("action", "text", "data"), CASES, ids=[t for _, t, _ in CASES])
def test_text_form(action: Action, text: str, data: dict[str, Any]) -> None:
    # One canonical text form: "<seat> <kind> [args]", read back to the same action.
    assert action.text() == text
    assert Action.from_text(text) == action


@pytest.mark.parametrize(("action", "text", "data"), CASES, ids=[t for _, t, _ in CASES])
def test_json_form(action: Action, text: str, data: dict[str, Any]) -> None:
    # One JSON form in the words of the scenario format (by, do, slot(s), target, target_slot).
    assert action.to_json() == data
    assert Action.from_json(json.loads(json.dumps(data))) == action


def test_text_tolerates_extra_spaces() -> None:
    # Words are split on whitespace.
    assert Action.from_text("  2   swap 0   1:3 ") == Action(2, "swap", (0,), 1, 3)


def test_json_player_override() -> None:
    # The server knows who sent an action: ``player`` overrides (or supplies) ``by``.
    assert Action.from_json({"do": "draw"}, player=3) == Action(3, "draw")
    assert Action.from_json({"by": 0, "do": "peek", "slot": 1}, player=2) == Action(2, "peek", (1,))


def test_slot_property() -> None:
    # ``slot`` is the single slot of peek, spy, swap and tap.
    assert Action(0, "spy", (3,), 1).slot == 3


@pytest.mark.parametrize(
    "data",
    [
        # Not an object.
        ["draw"],
        "0 draw",
        None,
        7,
        # Unknown or missing kind.
        {"by": 0, "do": "fly"},
        {"by": 0},
        {"by": 0, "do": None},
        {"by": 0, "do": ["draw"]},
        # The seat must be a number (not a bool, string, float or missing).
        {"do": "draw"},
        {"by": "0", "do": "draw"},
        {"by": True, "do": "draw"},
        {"by": 0.0, "do": "draw"},
        {"by": None, "do": "draw"},
        # Slots must be a list of numbers; a slot must be a number.
        {"by": 0, "do": "replace", "slots": 1},
        {"by": 0, "do": "replace", "slots": "01"},
        {"by": 0, "do": "replace", "slots": [True]},
        {"by": 0, "do": "replace", "slots": [0, "1"]},
        {"by": 0, "do": "replace", "slots": [1.0]},
        {"by": 0, "do": "peek", "slot": True},
        {"by": 0, "do": "peek", "slot": "2"},
        {"by": 0, "do": "peek", "slot": None},
        # Targets must be numbers, and spy and swap need them.
        {"by": 0, "do": "spy", "slot": 1},
        {"by": 0, "do": "spy", "slot": 1, "target": -1},
        {"by": 0, "do": "spy", "slot": 1, "target": True},
        {"by": 0, "do": "spy", "slot": 1, "target": "1"},
        {"by": 0, "do": "spy", "slot": 1, "target": None},
        {"by": 0, "do": "swap", "slot": 1, "target_slot": 2},
        {"by": 0, "do": "swap", "slot": 1, "target": 1},
        {"by": 0, "do": "swap", "slot": 1, "target": 1, "target_slot": False},
        {"by": 0, "do": "swap", "slot": 1, "target": 1, "target_slot": 2.5},
        # The number of slots each kind takes.
        {"by": 0, "do": "peek"},
        {"by": 0, "do": "peek", "slots": [1, 2]},
        {"by": 0, "do": "tap"},
        {"by": 0, "do": "draw", "slot": 1},
        {"by": 0, "do": "call", "slots": [0]},
        {"by": 0, "do": "replace", "slots": []},
        {"by": 0, "do": "replace"},
        {"by": 0, "do": "opening_peek", "slots": []},
        {"by": 0, "do": "swap", "slots": [0, 1], "target": 1, "target_slot": 2},
        # Both ways of naming slots at once: ambiguous.
        {"by": 0, "do": "opening_peek", "slots": [0, 1], "slot": 2},
        {"by": 0, "do": "peek", "slots": [1], "slot": 1},
    ],
)
def test_malformed_json_is_refused(data: Any) -> None:
    # A JSON action that cannot be read raises ActionFormatError (never another error).
    with pytest.raises(ActionFormatError):
        Action.from_json(data)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "draw",
        "0",
        "x draw",
        "0 fly",
        "0 DRAW",
        "0 peek",
        "0 peek x",
        "0 peek 1 2",
        "0 draw 1",
        "0 replace",
        "0 spy",
        "0 spy 1",
        "0 spy 1:x",
        "0 spy 1 2",
        "0 swap 0",
        "0 swap 0 1",
        "0 swap 0 1:2:3",
        "0 swap x 1:2",
        "0 tap",
        "1.5 draw",
    ],
)
def test_malformed_text_is_refused(text: str) -> None:
    # A text action that cannot be read raises ActionFormatError.
    with pytest.raises(ActionFormatError):
        Action.from_text(text)


@pytest.mark.parametrize("text", ["--1 draw", "\u00b2 draw"])
def test_malformed_seat_in_text_is_a_format_error(text: str) -> None:
    # The seat word is read like every other word: a bad one is an ActionFormatError, not a
    # bare ValueError from int() (str.isdigit accepts "²"; lstrip("-") accepts "--1").
    with pytest.raises(ActionFormatError):
        Action.from_text(text)


def test_format_error_is_a_value_error() -> None:
    # Callers that handle bad input generically (ValueError) also catch format errors.
    assert issubclass(ActionFormatError, ValueError)
