"""A fixed numbering of every action a seat can take at a table, for a Discrete action space.

The universe is the same for every seat and every state of a table of ``players`` with hands of
up to ``max_hand`` slots: index 0 is PASS (no out-of-turn action), then each action kind with its
slots and its target.  Targets are seat-relative (``+1`` is the next seat), so one index means the
same move from every seat, which suits self-play.  Actions on slots at or past ``max_hand`` have
no index; the environment never needs them unless a hand grows past ``max_hand``.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..engine import MAX_SET, Action
from ..engine import actions as A

PASS = 0
# A seat-relative action: (kind, own or spied slots, target offset or 0, target slot or -1).
Key = tuple[str, tuple[int, ...], int, int]
_SIMPLE = (A.DRAW, A.TAKE_DISCARD, A.DISCARD, A.SKIP, A.END_TURN, A.CALL, A.UNDO, A.NEXT_ROUND)


class ActionCodec:
    """Maps engine :class:`Action` values to indexes and back, for one table size."""

    def __init__(self, players: int, max_hand: int, hand_size: int, opening_peek: int) -> None:
        self.players = players
        self.max_hand = max_hand
        slots = range(max_hand)
        keys: list[Key | None] = [None]  # PASS
        keys += [(kind, (), 0, -1) for kind in _SIMPLE]
        if opening_peek:
            keys += [
                (A.OPENING_PEEK, c, 0, -1) for c in combinations(range(hand_size), opening_peek)
            ]
        for size in range(1, MAX_SET + 1):
            keys += [(A.REPLACE, c, 0, -1) for c in combinations(slots, size)]
        keys += [(A.PEEK, (s,), 0, -1) for s in slots]
        keys += [(A.TAP, (s,), 0, -1) for s in slots]
        offsets = range(1, players)
        keys += [(A.SPY, (s,), d, -1) for d in offsets for s in slots]
        keys += [(A.SWAP, (s,), d, t) for s in slots for d in offsets for t in slots]
        self.keys = keys
        self.index: dict[Key, int] = {k: i for i, k in enumerate(keys) if k is not None}

    @property
    def size(self) -> int:
        return len(self.keys)

    def key(self, action: Action) -> Key:
        offset = (action.target - action.player) % self.players if action.target >= 0 else 0
        slots = action.slots
        if action.kind in (A.REPLACE, A.OPENING_PEEK):
            slots = tuple(sorted(slots))
        return (action.kind, slots, offset, action.target_slot)

    def encode(self, action: Action) -> int | None:
        """The index of ``action``, or None when its slots lie past ``max_hand``."""
        return self.index.get(self.key(action))

    def decode(self, index: int, seat: int) -> Action | None:
        """The action ``index`` means for ``seat`` (None for PASS)."""
        key = self.keys[index]
        if key is None:
            return None
        kind, slots, offset, target_slot = key
        target = (seat + offset) % self.players if offset else -1
        return Action(seat, kind, slots, target, target_slot)

    def mask(self, legal: Iterable[Action], *, optional: bool) -> npt.NDArray[np.int8]:
        """1 at the index of every legal action (and at PASS when acting is optional)."""
        out = np.zeros(self.size, dtype=np.int8)
        out[PASS] = optional
        index = self.index
        for action in legal:
            found = index.get(self.key(action))
            if found is not None:
                out[found] = 1
        return out
