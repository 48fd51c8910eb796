"""Actions: the vocabulary of the scenario format, with one text form and one JSON form.

An action is a small immutable value.  ``Action.from_text("2 swap 0 1:3")`` and ``action.text()``
pair up, as do :meth:`Action.from_json` and :meth:`Action.to_json`; both forms are used in logs,
tests, the wire and the command line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

OPENING_PEEK = "opening_peek"
DRAW = "draw"
TAKE_DISCARD = "take_discard"
REPLACE = "replace"
DISCARD = "discard"
PEEK = "peek"
SPY = "spy"
SWAP = "swap"
SKIP = "skip"
END_TURN = "end_turn"
CALL = "call"
TAP = "tap"
UNDO = "undo"
NEXT_ROUND = "next_round"

KINDS = (
    OPENING_PEEK,
    DRAW,
    TAKE_DISCARD,
    REPLACE,
    DISCARD,
    PEEK,
    SPY,
    SWAP,
    SKIP,
    END_TURN,
    CALL,
    TAP,
    UNDO,
    NEXT_ROUND,
)


class Shape(NamedTuple):
    """The fields an action kind takes: the one encoding, for parsing and for refusals."""

    slots: int | None  # how many slot numbers: 0, exactly 1, or None for one or more
    target: bool  # names another player
    target_slot: bool  # names a slot of that player


NO_ARGUMENTS = Shape(0, False, False)
SHAPES: dict[str, Shape] = {kind: NO_ARGUMENTS for kind in KINDS} | {
    OPENING_PEEK: Shape(None, False, False),
    REPLACE: Shape(None, False, False),
    PEEK: Shape(1, False, False),
    TAP: Shape(1, False, False),
    SPY: Shape(1, True, False),
    SWAP: Shape(1, True, True),
}


_INT = re.compile(r"-?[0-9]+")


class ActionFormatError(ValueError):
    """An action's text or JSON form cannot be read."""


class Action(NamedTuple):
    """One player's action.

    ``slots`` are the acting player's own slots, except for ``spy`` where the one slot is the
    target's.  ``target`` is the other player of ``spy`` and ``swap``; ``target_slot`` is the other
    player's slot in a ``swap``.
    """

    player: int
    kind: str
    slots: tuple[int, ...] = ()
    target: int = -1
    target_slot: int = -1

    @property
    def slot(self) -> int:
        """The single slot of ``peek``, ``spy``, ``swap`` and ``tap``."""
        return self.slots[0]

    def text(self) -> str:
        """The canonical text form: ``"<seat> <kind> [args]"``."""
        parts = [str(self.player), self.kind]
        if self.kind == SPY:
            parts.append(f"{self.target}:{self.slots[0]}")
        elif self.kind == SWAP:
            parts += [str(self.slots[0]), f"{self.target}:{self.target_slot}"]
        else:
            parts += [str(s) for s in self.slots]
        return " ".join(parts)

    @classmethod
    def from_text(cls, text: str) -> Action:
        words = text.split()
        if len(words) < 2 or not _INT.fullmatch(words[0]) or words[1] not in KINDS:
            raise ActionFormatError(f"not an action: {text!r}")
        player, kind, args = int(words[0]), words[1], words[2:]
        try:
            if kind == SPY and len(args) == 1:
                target, slot = args[0].split(":")
                return cls(player, kind, (int(slot),), int(target))
            if kind == SWAP and len(args) == 2:
                target, target_slot = args[1].split(":")
                return cls(player, kind, (int(args[0]),), int(target), int(target_slot))
            if not SHAPES[kind].target:
                return _checked(cls(player, kind, tuple(int(a) for a in args)))
        except ValueError:
            pass
        raise ActionFormatError(f"not an action: {text!r}")

    def to_json(self) -> dict[str, Any]:
        """The JSON form, in the words of the scenario format (``by``, ``do``, ...)."""
        out: dict[str, Any] = {"by": self.player, "do": self.kind}
        if self.kind in (REPLACE, OPENING_PEEK):
            out["slots"] = list(self.slots)
        elif self.slots:
            out["slot"] = self.slots[0]
        if self.target >= 0:
            out["target"] = self.target
        if self.kind == SWAP:
            out["target_slot"] = self.target_slot
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], player: int | None = None) -> Action:
        """Read the JSON form; ``player`` overrides ``by`` (the server knows who sent it)."""
        if not isinstance(data, Mapping):
            raise ActionFormatError("an action must be a JSON object")
        kind = data.get("do")
        if kind not in KINDS:
            raise ActionFormatError(f"unknown action {kind!r}")
        by = data.get("by") if player is None else player
        if not isinstance(by, int) or isinstance(by, bool):
            raise ActionFormatError("'by' must be a seat number")
        slots = _slots_from_json(data)
        target = data.get("target", -1)
        target_slot = data.get("target_slot", -1)
        if not _is_int(target) or not _is_int(target_slot):
            raise ActionFormatError("'target' and 'target_slot' must be numbers")
        if SHAPES[kind].target and target < 0:
            raise ActionFormatError(f"{kind} needs a 'target'")
        if kind == SWAP and target_slot < 0:
            raise ActionFormatError("swap needs a 'target_slot'")
        return _checked(cls(by, kind, slots, target, target_slot))


def _slots_from_json(data: Mapping[str, Any]) -> tuple[int, ...]:
    """The slots of an action's JSON form: a list under ``slots``, or one ``slot``."""
    if "slots" in data and "slot" in data:
        raise ActionFormatError("give 'slots' or 'slot', not both")
    if "slots" in data:
        raw = data["slots"]
        if not isinstance(raw, list) or not all(_is_int(s) for s in raw):
            raise ActionFormatError("'slots' must be a list of slot numbers")
        return tuple(raw)
    if "slot" in data:
        if not _is_int(data["slot"]):
            raise ActionFormatError("'slot' must be a slot number")
        return (data["slot"],)
    return ()


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _checked(action: Action) -> Action:
    want = SHAPES[action.kind].slots
    n = len(action.slots)
    if (want is None and n == 0) or (want is not None and n != want):
        raise ActionFormatError(f"wrong number of slots for {action.kind}: {list(action.slots)}")
    return action
