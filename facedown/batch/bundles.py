"""The arrays the kernels take, bundled by role: the games' :class:`State`, and what the batch
:class:`Fixed` when it was made (the rules, the deck, the codec's actions).

Every kernel takes the two bundles (``st``, ``fx``) and reads the fields it needs, rather than a
dozen arrays one by one; a bundle is a NamedTuple of arrays, which numba compiles as a struct of
them (reading a field costs nothing).  The columns of ``Z``, ``S`` and ``R`` are named in
:mod:`.layout`.

The kernels the Python side calls (``deal_all``, ``actors``, ``step``, ``masks``, ``random_play``,
``play_random``, ``easy_play``, ``play_lineup``) take each bundle as a plain tuple of its arrays
(:func:`plain`) and name it first (:func:`named`): numba types a plain tuple's arrays in C at
each call, a NamedTuple in Python, which cost 0.6 us more per call and bundle (a tenth of a
decision of a batch of one game).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .jit import F64, I8, I64, U64, inline
from .layout import S_FIELDS, Z_FIELDS

Plain = tuple[Any, ...]


class State(NamedTuple):
    """The state of every game, indexed by game first (the one bundle a step changes)."""

    Z: I64  # [games, Z_FIELDS]: one column per number of a game (layout's Z fields)
    S: I64  # [games, S_FIELDS, players]: one row per number of each seat (layout's S fields)
    hands: I8  # [games, players, max_hand]: card ids, -1 for an empty place
    draw: I8  # [games, cards]: the draw pile, bottom first (Z's NDRAW cards; the top is last)
    disc: I8  # [games, cards]: the discard pile, bottom first (Z's NDISC cards)
    known: U64  # [games, players]: a bit per card that seat has learned where it lies now
    public: U64  # [games]: a bit per card shown to everyone where it lies now
    keys: F64  # [games, 2, cards]: the random keys of the next deal and the next reshuffle


class Tables(NamedTuple):
    """Codec indexes by kind and arguments: ``simple[kind]`` (an action with no slot),
    ``opening`` (the opening looks), ``rep[s0, s1 + 1, s2 + 1, s3 + 1]`` (a replace of those
    sorted slots, 0 for none), ``peek[s]``, ``tap[s]``, ``spy[offset, s]`` and
    ``swap[s, offset, target]`` (built by :func:`.fixed.tables`)."""

    simple: I64
    opening: I64
    rep: I64
    peek: I64
    tap: I64
    spy: I64
    swap: I64


class Fixed(NamedTuple):
    """What a batch fixes when it is made: the same for every game, never changed by a kernel."""

    R: I64  # [R_FIELDS]: the rules (layout's R fields)
    D: I64  # [3, cards]: the deck, each card's value, rank id and power bits (VALUE, RANK, POWER)
    C: I64  # [4, actions]: each codec index's kind, count of slots, seat offset, target slot
    CS: I64  # [actions, width]: each codec index's slots (-1 past its count)
    T: Tables  # the other way: the codec index of a kind and its arguments


def new_state(games: int, players: int, hand: int, cards: int) -> State:
    """The arrays of ``games`` games before their first deal (``hand``: a hand's most places)."""
    return State(
        Z=np.zeros((games, Z_FIELDS), dtype=np.int64),
        S=np.zeros((games, S_FIELDS, players), dtype=np.int64),
        hands=np.full((games, players, hand), -1, dtype=np.int8),
        draw=np.zeros((games, cards), dtype=np.int8),
        disc=np.zeros((games, cards), dtype=np.int8),
        known=np.zeros((games, players), dtype=np.uint64),
        public=np.zeros(games, dtype=np.uint64),
        keys=np.zeros((games, 2, cards), dtype=np.float64),
    )


def plain(bundle: Plain) -> Plain:
    """A bundle as the kernels the Python side calls take it: a plain tuple (nested ones too)."""
    return tuple(plain(x) if isinstance(x, tuple) else x for x in bundle)


@inline
def named(state: Plain, fixed: Plain) -> tuple[State, Fixed]:
    """The bundles :func:`plain` made, named again (in compiled code, at no cost)."""
    R, D, C, CS, T = fixed
    return State(*state), Fixed(R, D, C, CS, Tables(*T))
