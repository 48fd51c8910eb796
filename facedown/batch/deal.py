"""The batch's deals and reshuffles, compiled (the engine's ``deal`` and ``pop_draw``), and the
small helpers every kernel module shares (a card's bit, a hand's filled places, a push on the
discard pile).  See :mod:`.kernels` for the step these serve; the random keys of a deal or a
reshuffle are read from ``keys``, filled by the Python side (:class:`.core.Batch`).
"""

from __future__ import annotations

import numpy as np

from .bundles import Fixed, Plain, State
from .jit import I64, inline, kernel
from .layout import (
    CALLER,
    CARDS,
    DEAL_KEYS,
    ERROR,
    FINALS,
    FIRST,
    HAND_SIZE,
    HELD,
    HELD_DISC,
    NDISC,
    NDRAW,
    NEED_DEAL_KEYS,
    OPENING,
    OPENING_PEEK,
    PASSES,
    PEEKED,
    PENDING,
    PHASE,
    PLACES,
    RESHUFFLES,
    ROUND,
    ROUND_ACTIONS,
    ROUND_SHIFT,
    SHUFFLE_FOR,
    SHUFFLE_KEYS,
    TURN,
    TURN_START,
    TURNS,
    N,
)

ONE = np.uint64(1)


# ------------------------------------------------------------------ small helpers
@inline
def _bit(card: int) -> np.uint64:
    return ONE << np.uint64(card)


@kernel
def _order(keys: np.ndarray, count: int, out: np.ndarray) -> None:
    """``out[:count]``: the stable order of ``keys[:count]`` (Python's sorted by key)."""
    for i in range(count):
        out[i] = i
    for i in range(1, count):  # insertion sort: stable, and quick for a deck
        j = i
        v = out[i]
        k = keys[v]
        while j > 0 and keys[out[j - 1]] > k:
            out[j] = out[j - 1]
            j -= 1
        out[j] = v


@inline
def _filled(st: State, g: int, p: int) -> int:
    """How many places of ``p``'s hand hold a card."""
    hands = st.hands
    count = 0
    for s in range(st.S[g, PLACES, p]):
        if hands[g, p, s] >= 0:
            count += 1
    return count


@inline
def _push(st: State, g: int, card: int) -> None:
    """Put ``card`` on top of the discard pile."""
    Z = st.Z
    st.disc[g, Z[g, NDISC]] = card
    Z[g, NDISC] += 1


# ------------------------------------------------------------------ dealing
@kernel
def _deal(st: State, fx: Fixed, g: int, first: int) -> None:
    """The engine's deal_round (shuffled from the keys), starting with ``first``."""
    Z, S, hands, known, R = st.Z, st.S, st.hands, st.known, fx.R
    n, size, cards = R[N], R[HAND_SIZE], R[CARDS]
    Z[g, ROUND] += 1
    Z[g, FIRST] = first
    order = st.draw[g]  # the shuffled deck is laid out where the draw pile will be
    _order(st.keys[g, DEAL_KEYS], cards, order)
    Z[g, NEED_DEAL_KEYS] = 1
    end = cards
    for p in range(n):
        for s in range(hands.shape[2]):
            hands[g, p, s] = -1
        for j in range(size):
            hands[g, p, j] = order[end - 1 - j]
        end -= size
        S[g, PLACES, p] = size
        S[g, PEEKED, p] = 0
        known[g, p] = 0
    st.disc[g, 0] = order[end - 1]
    Z[g, NDISC] = 1
    Z[g, NDRAW] = end - 1  # the draw pile is the rest of the order, in place
    Z[g, HELD] = -1
    Z[g, HELD_DISC] = 0
    Z[g, PENDING] = 0
    Z[g, CALLER] = -1
    Z[g, FINALS] = 0
    Z[g, PASSES] = 0
    Z[g, RESHUFFLES] = 0
    Z[g, ROUND_ACTIONS] = 0
    st.public[g] = 0
    Z[g, TURN] = first
    if R[OPENING_PEEK] == 0:
        Z[g, PHASE] = TURN_START
        Z[g, TURNS] += 1
    else:
        Z[g, PHASE] = OPENING


@kernel
def deal_all(state: Plain, fixed: Plain, games: I64) -> None:
    """Deal the first round of ``games`` (seat 0 starts)."""
    st, fx = State(*state), Fixed(*fixed)
    for g in games:
        _deal(st, fx, g, 0)


@kernel
def _reshuffle(st: State, g: int) -> bool:
    """The draw pile is empty: the discard pile but its top becomes the new draw pile, in the
    order of the shuffle keys (the engine's pop_draw); False when it has too few cards."""
    Z, draw, disc, known = st.Z, st.draw, st.disc, st.known
    if Z[g, NDISC] < 2:
        return False
    count = Z[g, NDISC] - 1
    top = disc[g, count]
    Z[g, RESHUFFLES] += 1
    if Z[g, SHUFFLE_FOR] != (Z[g, ROUND] << ROUND_SHIFT) | Z[g, RESHUFFLES]:
        Z[g, ERROR] = 1  # the keys of this reshuffle were not filled in: a bug
    Z[g, SHUFFLE_FOR] = -1
    order = draw[g]  # the draw pile is empty: its row holds the order, then the cards
    _order(st.keys[g, SHUFFLE_KEYS], count, order)
    mask = np.uint64(0)
    for i in range(count):
        card = disc[g, order[i]]
        mask |= _bit(card)
        draw[g, i] = card
    # Cards shuffled into the draw pile are unknown to everyone from now on.
    st.public[g] &= ~mask
    for p in range(known.shape[1]):
        known[g, p] &= ~mask
    Z[g, NDRAW] = count
    disc[g, 0] = top
    Z[g, NDISC] = 1
    return True


@inline
def _pop_draw(st: State, fx: Fixed, g: int) -> int:
    """The top card of the draw pile, the discard pile recycled first when needed (-1: none)."""
    Z = st.Z
    if Z[g, NDRAW] == 0 and not _reshuffle(st, g):
        return -1
    Z[g, NDRAW] -= 1
    return int(st.draw[g, Z[g, NDRAW]])
