"""Vectorised policies over a :class:`~facedown.batch.core.Batch`: one action index per game.

The batch's players carry names of their own, ``batch-random`` and ``batch-easy``
(:data:`PLAYERS`): they are not the bot levels ``random`` and ``easy`` of
:mod:`facedown.bots`, whose decisions they only resemble.

- ``batch-random``: :class:`RandomPlayer` (compiled) and :func:`random_actions` (numpy, from
  the mask): uniform among the legal actions of each game's deciding seat, except that a legal
  call is taken with probability ``call`` and a tap with probability ``tap``, and otherwise left
  out (uniform play would call at a third of all turn starts and end rounds at once, and tap at
  almost every chance where the rules have TAP).
- ``batch-easy``: :class:`EasyPlayer` (compiled) and :func:`easy_actions` (numpy, from the
  mask), a test holding the two to the same decisions: a simple heuristic in the spirit of the
  `easy` bot level (not the same player).  It draws unless the top discard is worth at most
  ``take_below``, keeps a card lower than the highest card it knows in its hand (else replaces
  an unknown one when the card is low), uses every power (a peek at an unknown own card where
  it can, else the first power action in the codec's order, peeks then spies then swaps; while
  holding, where the rules give powers then), calls once the cards it knows sum to at most
  ``call_below`` with none unknown, or with probability ``call``, ends its turn where turns end
  by END TURN, and in a TAP window taps a card it knows to match the top discard, else passes.
  Where none of this decides, it plays uniformly among the legal actions but calls and taps.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import players
from .core import (
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_SKIP,
    K_TAKE,
    POWERS,
    TAKEN,
    TURN_END,
    TURN_START,
    Batch,
    IntArray,
)

PLAYERS = ("batch-random", "batch-easy")


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
    tap: float = 0.05,
    mask: npt.NDArray[np.bool_] | None = None,
) -> IntArray:
    """Random play that calls with probability ``call`` whenever a call is legal, and taps
    (uniformly among its taps) with probability ``tap`` whenever a tap is legal."""
    if mask is None:
        mask = batch.legal_mask()
    index = batch.codes.simple[K_CALL]
    can_call = mask[:, index].copy()
    mask[:, index] = False
    taps = batch.codes.tap
    tapping = mask[:, taps].copy()
    mask[:, taps] = False
    out = sample(mask, rng)
    rest = mask.any(axis=1)
    can_tap = tapping.any(axis=1)
    tapped = taps[sample(tapping, rng)] if taps.size else out
    out = np.where(can_tap & ((rng.random(batch.games) < tap) | ~rest), tapped, out)
    calls = can_call & ((rng.random(batch.games) < call) | ~(rest | can_tap))
    return np.where(calls, index, out)


def easy_actions(
    batch: Batch,
    rng: np.random.Generator,
    *,
    take_below: int = 3,
    call_below: int = 8,
    call: float = 0.02,
    fallback: IntArray | None = None,
) -> IntArray:
    """The heuristic of the module docstring; always one of the legal actions.  Where the
    heuristic leaves the choice open it takes ``fallback`` (drawn uniformly among the legal
    actions but calls and taps when not given)."""
    mask = batch.legal_mask()
    if fallback is None:
        others = mask.copy()
        others[:, batch.codes.tap] = False  # it taps only in a window, a card it knows to match
        fallback = random_actions(batch, rng, call=0.0, mask=others)
    out = fallback
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
    first_power = _first_power(batch, mask, first_unknown)
    out = np.where(powers, first_power, out)
    # Powers while holding (where the rules give them then): used before the card is placed.
    early = held & batch.pending.any(axis=1) & (first_power != s[K_SKIP])
    out = np.where(early, first_power, out)
    # After the action, where turns end by END TURN: end it, or call when sure.
    ending = phase == TURN_END
    out = np.where(ending, np.where(mask[:, s[K_CALL]] & sure, s[K_CALL], s[K_END_TURN]), out)
    # A TAP window: tap a card it knows to match the top discard, else PASS.
    matching = known & (batch.rank[np.maximum(hands, 0)] == batch.rank[top][:, None])
    tap = batch.tables.tap[matching.argmax(axis=1)]
    out = np.where(batch.in_window, np.where(matching.any(axis=1), tap, 0), out)
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
    """:func:`random_actions` in compiled code, without building the legal mask: each game's
    legal actions are listed (:func:`facedown.batch.legal.choose`, the list the mask is made
    of) and one is drawn: a legal call with probability ``call``, a tap with probability
    ``tap``, otherwise uniformly among the rest.
    """

    def __init__(self, batch: Batch, call: float = 0.05, tap: float = 0.05) -> None:
        self.batch, self.call, self.tap = batch, call, tap

    def __call__(self, rng: np.random.Generator) -> IntArray:
        return self.batch.random_actions(int(rng.integers(2**31)), self.call, self.tap)

    def play(self, rng: np.random.Generator, steps: int) -> int:
        """Up to ``steps`` decisions of this player in every game at once, the step included
        (:meth:`Batch.play_random`); returns the decisions made."""
        return self.batch.play_random(steps, int(rng.integers(2**31)), self.call, self.tap)


class EasyPlayer:
    """:func:`easy_actions` in compiled code (:func:`facedown.batch.players.easy_play`): the
    same heuristic read from each game's legal list, its random fallback drawn from numba's
    generator (seeded from the ``rng`` given) only where the heuristic leaves the choice open.
    """

    def __init__(
        self, batch: Batch, take_below: int = 3, call_below: int = 8, call: float = 0.02
    ) -> None:
        self.batch, self.take_below, self.call_below, self.call = (
            batch,
            take_below,
            call_below,
            call,
        )

    def __call__(self, rng: np.random.Generator, fallback: IntArray | None = None) -> IntArray:
        """One action per game (0 once over); ``fallback``: the random choice per game where
        the heuristic has none (drawn here when not given)."""
        b = self.batch
        out = np.empty(b.games, dtype=np.int64)
        given = np.empty(0, dtype=np.int64) if fallback is None else fallback.astype(np.int64)
        buf, occ = b._scratch
        seed = int(rng.integers(2**31))
        settings = (self.take_below, self.call_below, self.call)
        players.easy_play(*b._all_bundles, buf, occ, seed, *settings, given, out)
        return out
