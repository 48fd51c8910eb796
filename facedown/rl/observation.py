"""A seat's view and knowledge as a fixed-length vector of numbers in [-1, 1].

The encoder reads only a :class:`~facedown.bots.SeatInfo` (the seat's view, its knowledge and
its legal actions), never the game, so it cannot encode a card the seat does not know.  Seats
are seat-relative: block 0 is the observing seat, block 1 the next seat, and so on.

Layout, for ``n`` players and ``H`` = ``max_hand`` slots:

- per seat (``n`` blocks): per slot ``occupied, known, value/13`` (``3H``), then
  ``total/100, cards/H, to_act, caller, first, peeked`` (6);
- the phase, one-hot (8);
- top discard ``present, value/13``; held card ``present, visible, value/13``;
- own pending powers ``peek, spy, swap``; ``draw size, discard size`` over the deck size;
- ``called, final turns left / n``, ``round / 20``; and 1 when this decision is optional
  (an out-of-turn chance that PASS declines).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..bots import SeatInfo
from ..engine import Phase, Ruleset

VALUE_SCALE = 13.0
TOTAL_SCALE = 100.0
SEAT_FEATURES = 6
_PHASES = tuple(Phase)
GLOBAL_FEATURES = len(_PHASES) + 2 + 3 + 3 + 2 + 2 + 1 + 1
_POWERS = ("peek", "spy", "swap")


class ObservationEncoder:
    """Encodes what one seat may know at a table of ``players`` with ``max_hand`` slots."""

    def __init__(self, rules: Ruleset, players: int, max_hand: int) -> None:
        self.players = players
        self.max_hand = max_hand
        deck = rules.deck_cards
        self.values = {
            name: max(-1.0, min(1.0, value / VALUE_SCALE))
            for name, value in zip(deck.names, deck.values, strict=True)
        }
        self.deck_size = len(deck)
        self.seat_size = 3 * max_hand + SEAT_FEATURES
        self.size = players * self.seat_size + GLOBAL_FEATURES

    def encode(self, info: SeatInfo, *, optional: bool = False) -> npt.NDArray[np.float32]:
        v, n, h = info.view, self.players, self.max_hand
        out = np.zeros(self.size, dtype=np.float32)
        seat = info.seat
        values = self.values
        for r in range(n):
            owner = (seat + r) % n
            base = r * self.seat_size
            hand = v.hands[owner]
            for slot, filled in enumerate(hand[:h]):
                if filled:
                    at = base + 3 * slot
                    out[at] = 1.0
                    name = info.knowledge.get(f"{owner}:{slot}")
                    if name is not None:
                        out[at + 1] = 1.0
                        out[at + 2] = values[name]
            at = base + 3 * h
            out[at] = _clip(v.totals[owner] / TOTAL_SCALE)
            out[at + 1] = min(1.0, sum(hand) / h)
            out[at + 2] = v.to_act == owner
            out[at + 3] = v.caller == owner
            out[at + 4] = v.first == owner
            out[at + 5] = v.peeked[owner]
        at = n * self.seat_size
        out[at + _PHASES.index(v.phase)] = 1.0
        at += len(_PHASES)
        if v.top_discard is not None:
            out[at] = 1.0
            out[at + 1] = values[v.top_discard]
        at += 2
        if v.holding:
            out[at] = 1.0
            if v.held is not None:
                out[at + 1] = 1.0
                out[at + 2] = values[v.held]
        at += 3
        for power in v.powers:
            out[at + _POWERS.index(power)] = 1.0
        at += 3
        out[at] = v.draw_size / self.deck_size
        out[at + 1] = v.discard_size / self.deck_size
        at += 2
        if v.caller is not None:
            out[at] = 1.0
            out[at + 1] = _clip((v.final_turns_left or 0) / n)
        at += 2
        out[at] = min(1.0, v.round / 20)
        out[at + 1] = optional
        return out


def _clip(x: float) -> float:
    return max(-1.0, min(1.0, x))
