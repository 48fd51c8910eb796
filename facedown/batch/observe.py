"""What each seat may know, for every game of a batch at once, in :mod:`facedown.rl`'s encoding.

:func:`encode` returns, per game, the vector that
:class:`facedown.rl.observation.ObservationEncoder` (built with ``max_hand = rules.max_hand``)
gives for the same seat of the same state: the same layout, the same scales, the knowledge of
that seat alone (its own looks and what was shown to everyone).  A test holds the two equal.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..rl.observation import GLOBAL_FEATURES, SEAT_FEATURES, TOTAL_SCALE, VALUE_SCALE
from .core import HOLDING, PHASES, POWERS, TAKEN, TURN_END, TURN_START, Batch, IntArray

PLAY = (TURN_START, HOLDING, TAKEN, POWERS, TURN_END)
Floats = npt.NDArray[np.float32]


def size(batch: Batch) -> int:
    """The length of one observation."""
    return batch.players * (3 * batch.hand_cap + SEAT_FEATURES) + GLOBAL_FEATURES


def encode(batch: Batch, seat: IntArray, *, optional: npt.ArrayLike = False) -> Floats:
    """Per game, what ``seat[g]`` may know now, as one float32 vector (``[games, size]``)."""
    n, h, rows = batch.players, batch.hand_cap, np.arange(batch.games)
    seat = np.asarray(seat, dtype=np.int64)
    owners = (seat[:, None] + np.arange(n)[None, :]) % n  # [g, n]: seat-relative blocks
    hands = batch.hands[rows[:, None], owners]  # [g, n, h]
    filled = hands >= 0
    knows = batch.knowledge(seat)[rows[:, None], owners] & filled
    scaled = np.clip(batch.values / VALUE_SCALE, -1.0, 1.0)
    value = np.where(knows, scaled[np.maximum(hands, 0)], 0.0)
    slots = np.stack([filled, knows, value], axis=3).reshape(batch.games, n, 3 * h)
    in_play = np.isin(batch.phase, PLAY)
    to_act = np.where(in_play, batch.turn, -1)
    per_seat = np.stack(
        [
            np.clip(batch.totals[rows[:, None], owners] / TOTAL_SCALE, -1.0, 1.0),
            np.minimum(1.0, filled.sum(axis=2) / h),
            owners == to_act[:, None],
            owners == batch.caller[:, None],
            owners == batch.first[:, None],
            batch.peeked[rows[:, None], owners],
        ],
        axis=2,
    )
    blocks = np.concatenate([slots, per_seat], axis=2).reshape(batch.games, -1)
    return np.concatenate([blocks, _global(batch, seat, scaled, optional)], axis=1).astype(
        np.float32
    )


def _global(
    batch: Batch, seat: IntArray, scaled: npt.NDArray[np.float64], optional: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    g, n = batch.games, batch.players
    out = np.zeros((g, GLOBAL_FEATURES), dtype=np.float64)
    rows = np.arange(g)
    out[rows, batch.phase] = 1.0
    at = len(PHASES)
    top = batch.disc[rows, np.maximum(batch.ndisc - 1, 0)]
    present = batch.ndisc > 0
    out[:, at] = present
    out[:, at + 1] = np.where(present, scaled[top], 0.0)
    at += 2
    holding = (batch.phase == HOLDING) | (batch.phase == TAKEN)
    visible = holding & (batch.held_disc | (seat == batch.turn))
    out[:, at] = holding
    out[:, at + 1] = visible
    out[:, at + 2] = np.where(visible, scaled[np.maximum(batch.held, 0)], 0.0)
    at += 3
    mine = (seat == batch.turn)[:, None]
    out[:, at : at + 3] = batch.pending & mine
    at += 3
    out[:, at] = batch.ndraw / batch.cards
    out[:, at + 1] = batch.ndisc / batch.cards
    at += 2
    called = batch.caller >= 0
    out[:, at] = called
    out[:, at + 1] = np.where(called, np.clip(batch.finals / n, -1.0, 1.0), 0.0)
    at += 2
    out[:, at] = np.minimum(1.0, batch.round_no / 20)
    out[:, at + 1] = np.broadcast_to(np.asarray(optional, dtype=np.float64), (g,))
    return out
