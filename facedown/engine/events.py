"""Events: what an action did, as small values with one JSON form per viewer.

Cards in ``cards`` were shown to everyone; cards in ``private`` were shown only to ``player``.
:meth:`Event.to_json` is the one observer function for events: it drops what the viewer may not
see, so a seat's stream never holds a card that seat does not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from .cards import Deck

EVERYONE = -2  # viewer that sees everything: the server's own log and audits
SPECTATOR = -1  # viewer that sees public information only

ROUND_STARTED = "round_started"
OPENING_PEEKED = "opening_peeked"
PLAY_STARTED = "play_started"
TURN_STARTED = "turn_started"
DREW = "drew"
RESHUFFLED = "reshuffled"
TOOK_DISCARD = "took_discard"
UNDID = "undid"
REPLACED = "replaced"
SET_FAILED = "set_failed"
KEPT = "kept"
DISCARDED = "discarded"
PEEKED = "peeked"
SPIED = "spied"
SWAPPED = "swapped"
SKIPPED = "skipped"
CALLED = "called"
TAP_HIT = "tap_hit"
TAP_MISSED = "tap_missed"
PENALTY = "penalty"
PASSED = "passed"
ROUND_OVER = "round_over"
MATCH_OVER = "match_over"


class Event(NamedTuple):
    """One thing that happened.  ``info`` carries the few fields only some kinds need."""

    kind: str
    player: int = -1
    slots: tuple[int, ...] = ()
    target: int = -1
    target_slot: int = -1
    cards: tuple[int, ...] = ()
    private: tuple[int, ...] = ()
    info: dict[str, Any] | None = None

    def to_json(self, deck: Deck, viewer: int = SPECTATOR) -> dict[str, Any]:
        """The event as ``viewer`` may see it (a seat, ``SPECTATOR`` or ``EVERYONE``)."""
        out: dict[str, Any] = {"type": self.kind}
        if self.player >= 0:
            out["by"] = self.player
        if self.slots:
            out["slots"] = list(self.slots)
        if self.target >= 0:
            out["target"] = self.target
        if self.target_slot >= 0:
            out["target_slot"] = self.target_slot
        if self.cards:
            out["cards"] = names(deck, self.cards)
        if self.private and viewer in (self.player, EVERYONE):
            out["seen"] = names(deck, self.private)
        if self.info:
            for key, value in self.info.items():
                if key == "result":  # a RoundResult, rendered only when someone asks
                    out.update(value.to_json(deck))
                else:
                    out[key] = value
        return out


def names(deck: Deck, cards: Sequence[int]) -> list[str | None]:
    """Card names for card ids (-1, an empty place, becomes null)."""
    return [deck.names[c] if c >= 0 else None for c in cards]
