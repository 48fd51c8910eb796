"""Vectorised policies over a :class:`~facedown.batch.core.Batch`: one action index per game.

- :func:`random_actions`: uniform among the legal actions of each game's actor, except that a
  legal call is taken with probability ``call`` and otherwise left out (uniform play would call
  at a third of all turn starts and end rounds at once).
- :func:`easy_actions`: a simple heuristic in the spirit of the `easy` bot level (not the same
  player): it draws unless the top discard is worth at most ``take_below``, keeps a card lower
  than the highest card it knows in its hand (else replaces an unknown one when the card is
  low), uses every power (peek an unknown own card, spy an unknown card, swap its highest known
  card for an unknown one of another), and calls once the cards it knows sum to at most
  ``call_below`` with none unknown, or with probability ``call``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..engine import MAX_SET
from .core import (
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_SKIP,
    K_TAKE,
    K_UNDO,
    OPENING,
    PEEK,
    POWERS,
    SPY,
    SWAP,
    TAKEN,
    TURN_START,
    Batch,
    IntArray,
)


def sample(mask: npt.NDArray[np.bool_], rng: np.random.Generator) -> IntArray:
    """One index per row, uniform among the row's true entries (0 for an all-false row)."""
    counts = mask.sum(axis=1)
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    ranks = np.cumsum(mask, axis=1, dtype=np.int32)
    out = (ranks <= pick[:, None]).sum(axis=1)
    return np.where(counts > 0, out, 0)


def random_actions(
    batch: Batch,
    rng: np.random.Generator,
    *,
    call: float = 0.05,
    mask: npt.NDArray[np.bool_] | None = None,
) -> IntArray:
    """Random play that calls with probability ``call`` whenever a call is legal."""
    if mask is None:
        mask = batch.legal_mask()
    index = batch.codes.simple[K_CALL]
    can_call = mask[:, index].copy()
    mask[:, index] = False
    out = sample(mask, rng)
    calls = can_call & ((rng.random(batch.games) < call) | ~mask.any(axis=1))
    return np.where(calls, index, out)


def easy_actions(
    batch: Batch,
    rng: np.random.Generator,
    *,
    take_below: int = 3,
    call_below: int = 8,
    call: float = 0.02,
) -> IntArray:
    """The heuristic of the module docstring; always one of the legal actions."""
    mask = batch.legal_mask()
    out = random_actions(batch, rng, call=0.0, mask=mask.copy())
    codes, rows = batch.codes, np.arange(batch.games)
    seat = np.maximum(batch.actor, 0)
    hands = batch.hands[rows, seat]  # [g, h]
    filled = hands >= 0
    known = batch.knowledge(seat)[rows, seat] & filled  # own places known
    values = np.where(filled, batch.values[np.maximum(hands, 0)], 0)
    known_values = np.where(known, values, -(10**6))
    highest_slot = known_values.argmax(axis=1)
    highest = known_values.max(axis=1)
    unknown = filled & ~known
    first_unknown = np.where(unknown.any(axis=1), unknown.argmax(axis=1), -1)
    phase = batch.phase
    s = codes.simple
    # Turn start: call, take a low discard, or draw.
    top = batch.disc[rows, np.maximum(batch.ndisc - 1, 0)]
    top_value = np.where(batch.ndisc > 0, batch.values[top], 99)
    start = phase == TURN_START
    sure = (~unknown.any(axis=1)) & (np.where(known, values, 0).sum(axis=1) <= call_below)
    wants_call = start & mask[:, s[K_CALL]] & (sure | (rng.random(batch.games) < call))
    take = start & mask[:, s[K_TAKE]] & (top_value <= take_below)
    draw = start & mask[:, s[K_DRAW]]
    out = np.where(draw, s[K_DRAW], out)
    out = np.where(take, s[K_TAKE], out)
    out = np.where(wants_call, s[K_CALL], out)
    # Holding a card: keep it in place of a higher known card, or of an unknown one when low.
    held = phase == HOLDING
    holding = held | (phase == TAKEN)
    held_value = np.where(batch.held >= 0, batch.values[np.maximum(batch.held, 0)], 99)
    single = _single_replace(batch)
    better = holding & (highest > held_value)
    slot = np.where(better, highest_slot, np.where(held_value <= 4, first_unknown, -1))
    replace = holding & (slot >= 0)
    chosen = single[np.maximum(slot, 0)]
    out = np.where(replace & mask[rows, chosen], chosen, out)
    discard = holding & ~replace & mask[:, s[K_DISCARD]]
    out = np.where(discard, s[K_DISCARD], out)
    # Powers: the first legal one (random among legal ones already chose otherwise).
    powers = phase == POWERS
    out = np.where(powers, _first_power(batch, mask, first_unknown), out)
    return out


def _single_replace(batch: Batch) -> IntArray:
    """The action index of the single replace of each slot."""
    codes = batch.codes
    rep = codes.replace[codes.count[codes.replace] == 1]
    out = np.zeros(batch.hand_cap, dtype=np.int64)
    out[codes.slots[rep, 0]] = rep
    return out


def _first_power(batch: Batch, mask: npt.NDArray[np.bool_], first_unknown: IntArray) -> IntArray:
    """A peek at an unknown own card when there is one, else the first legal power action."""
    codes = batch.codes
    rows = np.arange(batch.games)
    peek = codes.peek[np.maximum(first_unknown, 0)]
    good_peek = (first_unknown >= 0) & mask[rows, peek]
    powers = np.concatenate([codes.peek, codes.spy, codes.swap])
    legal = mask[:, powers]
    first = powers[legal.argmax(axis=1)]
    fallback = np.where(legal.any(axis=1), first, codes.simple[K_SKIP])
    return np.where(good_peek, peek, fallback)


class RandomPlayer:
    """:func:`random_actions` without building the legal mask: the legal actions of each game
    are counted by kind (slots, sets, targets) and one is drawn uniformly, so the choice has the
    same distribution as sampling the mask (a test checks it covers exactly the mask).
    """

    def __init__(self, batch: Batch, call: float = 0.05) -> None:
        self.batch, self.call = batch, call
        codes, h = batch.codes, batch.hand_cap
        if h > 16:
            raise ValueError("RandomPlayer handles hands of at most 16 places")
        # Sets and singles: every combination of occupied positions, by how many are occupied.
        by_bits = np.full(1 << h, -1, dtype=np.int64)
        for i in codes.replace:
            by_bits[sum(1 << int(s) for s in codes.slots[i] if s >= 0)] = i
        self.replace_by_bits = by_bits
        largest = MAX_SET if batch.rules.set_replace else 1
        tables = [_combos(m, largest) for m in range(h + 1)]
        width = max(len(t) for t in tables)
        self.combos = np.full((h + 1, max(width, 1), MAX_SET), -1, dtype=np.int64)
        self.combo_count = np.zeros(h + 1, dtype=np.int64)
        for m, table in enumerate(tables):
            self.combo_count[m] = len(table)
            for j, combo in enumerate(table):
                self.combos[m, j, : len(combo)] = combo
        self.opening = codes.opening
        spy = np.full((batch.players, h), -1, dtype=np.int64)
        for i in codes.spy:
            spy[codes.offset[i], codes.slots[i, 0]] = i
        self.spy = spy
        swap = np.full((h, batch.players, h), -1, dtype=np.int64)
        for i in codes.swap:
            swap[codes.slots[i, 0], codes.offset[i], codes.target_slot[i]] = i
        self.swap = swap
        self.peek = np.full(h, -1, dtype=np.int64)
        self.peek[codes.slots[codes.peek, 0]] = codes.peek

    def __call__(self, rng: np.random.Generator) -> IntArray:
        b = self.batch
        rules, rows, n = b.rules, np.arange(b.games), b.players
        out = np.zeros(b.games, dtype=np.int64)
        phase, s = b.phase, b.codes.simple
        seat = np.maximum(b.actor, 0)
        u = rng.random(b.games)
        at = np.flatnonzero(phase == OPENING)
        if at.size:
            out[at] = self.opening[(u[at] * self.opening.size).astype(np.int64)]
        at = np.flatnonzero(phase == TURN_START)
        if at.size:
            can_draw = (b.ndraw[at] > 0) | (b.ndisc[at] >= 2)
            occupied = (b.hands[at, seat[at]] >= 0).any(axis=1)
            can_take = (b.ndisc[at] > 0) & (occupied | rules.return_taken_discard)
            can_call = rules.call_at_turn_start & (b.caller[at] < 0)
            both = can_draw & can_take
            pick = np.where(
                both,
                np.where(u[at] < 0.5, s[K_DRAW], s[K_TAKE]),
                np.where(can_draw, s[K_DRAW], s[K_TAKE]),
            )
            calls = can_call & ((rng.random(at.size) < self.call) | ~(can_draw | can_take))
            out[at] = np.where(calls, s[K_CALL], pick)
        at = np.flatnonzero((phase == HOLDING) | (phase == TAKEN))
        if at.size:
            out[at] = self._holding(at, seat[at], u[at])
        at = np.flatnonzero(phase == POWERS)
        if at.size:
            out[at] = self._powers(at, seat[at], u[at], n)
        del rows
        return out

    def _occupied(self, at: IntArray, seat: IntArray) -> tuple[IntArray, IntArray]:
        """Each hand's occupied slots first, in order, and how many there are."""
        filled = self.batch.hands[at, seat] >= 0
        order = np.argsort(~filled, axis=1, kind="stable")
        return order, filled.sum(axis=1)

    def _holding(self, at: IntArray, seat: IntArray, u: npt.NDArray[np.float64]) -> IntArray:
        b, s = self.batch, self.batch.codes.simple
        rules = b.rules
        slots, nocc = self._occupied(at, seat)
        taken = b.phase[at] == TAKEN
        extra_discard = ~taken | rules.return_taken_discard | (nocc == 0)
        extra_undo = taken & rules.undo_take_discard
        replaces = self.combo_count[nocc]
        total = replaces + extra_discard + extra_undo
        r = (u * total).astype(np.int64)
        combo = self.combos[nocc, np.minimum(r, self.combos.shape[1] - 1)]  # positions
        chosen = np.take_along_axis(slots, np.maximum(combo, 0), axis=1)
        bits = np.where(combo >= 0, 1 << chosen, 0).sum(axis=1)
        out = self.replace_by_bits[bits]
        out = np.where(
            r >= replaces, np.where(extra_discard & (r == replaces), s[K_DISCARD], s[K_UNDO]), out
        )
        return out

    def _powers(self, at: IntArray, seat: IntArray, u: npt.NDArray[np.float64], n: int) -> IntArray:
        b, s = self.batch, self.batch.codes.simple
        pend = b.pending[at]
        owners = (seat[:, None] + np.arange(n)[None, :]) % n  # offset d -> seat
        filled = b.hands[at[:, None], owners] >= 0  # [k, n, h] by offset
        counts = filled.sum(axis=2)  # [k, n]
        mine = counts[:, 0]
        others = counts[:, 1:].sum(axis=1)
        peeks = np.where(pend[:, PEEK], mine, 0)
        spies = np.where(pend[:, SPY], others, 0)
        swaps = np.where(pend[:, SWAP], mine * others, 0)
        total = peeks + spies + swaps + 1  # and skip
        r = (u * total).astype(np.int64)
        out = np.full(at.size, s[K_SKIP], dtype=np.int64)
        order = np.argsort(~filled, axis=2, kind="stable")  # occupied slots first, by offset
        k = np.arange(at.size)
        is_peek = r < peeks
        own_slot = order[k, 0, np.minimum(r, b.hand_cap - 1)]
        out = np.where(is_peek, self.peek[own_slot], out)
        r2 = r - peeks
        is_spy = ~is_peek & (r2 < spies)
        target, slot = _nth_other(
            order, counts, np.minimum(np.maximum(r2, 0), np.maximum(others - 1, 0))
        )
        out = np.where(is_spy, self.spy[target, slot], out)
        r3 = r2 - spies
        is_swap = ~is_peek & ~is_spy & (r3 < swaps)
        safe = np.maximum(others, 1)
        mine_at = np.minimum(np.maximum(r3, 0) // safe, b.hand_cap - 1)
        target, slot = _nth_other(order, counts, np.maximum(r3, 0) % safe)
        own_slot = order[k, 0, mine_at]
        out = np.where(is_swap, self.swap[own_slot, target, slot], out)
        return out


def _nth_other(order: IntArray, counts: IntArray, r: IntArray) -> tuple[IntArray, IntArray]:
    """The ``r``-th occupied place among the other seats: (seat offset, slot)."""
    k = np.arange(r.size)
    ends = np.cumsum(counts[:, 1:], axis=1)  # [k, n-1]
    offset = (ends <= r[:, None]).sum(axis=1)  # index into the other seats
    offset = np.minimum(offset, counts.shape[1] - 2)
    before = np.where(offset > 0, ends[k, np.maximum(offset - 1, 0)], 0)
    pos = np.clip(r - before, 0, order.shape[2] - 1)
    return offset + 1, order[k, offset + 1, pos]


def _combos(m: int, largest: int) -> list[tuple[int, ...]]:
    """Every single position of ``range(m)``, and every set of 2 to ``largest`` of them."""
    out: list[tuple[int, ...]] = []
    for size in range(1, min(largest, m) + 1):
        out += list(combinations(range(m), size))
    return out
