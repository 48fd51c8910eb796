"""The arrays the kernels take, bundled by role: the games' :class:`State`, what the batch keeps
:class:`Fixed` for the step (the rules, the deck, the codec's actions), and the codec's index
:class:`Tables`, which only listing the legal actions reads.

Every kernel takes the bundles it needs (``st``, ``fx``, ``T``) and reads the fields it needs,
rather than a dozen arrays one by one; a bundle is a NamedTuple of arrays, which numba compiles
as a struct of them (reading a field costs nothing).  The columns of ``Z``, ``S`` and ``R`` are
named in :mod:`.layout`.

Two costs of a call set the bundles' cut.  The kernels the Python side calls (``deal_all``,
``actors``, ``step``, ``masks``, ``random_play``, ``play_random``, ``easy_play``,
``play_lineup``) take each bundle as a plain tuple of its arrays (``tuple(bundle)``) and name it
first (``State(*state)``): numba types a NamedTuple argument in Python at every call, 0.6 us more
per call and bundle (a tenth of a decision of a batch of one game), a plain tuple in C.  And
every array passed costs: from Python about 35 ns a call in a tuple (less as an argument of its
own), between kernels that are not inlined some ten numbers each.  So the step, which never
lists actions, does not take the Tables.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .jit import F64, I8, I64, U64
from .layout import S_FIELDS, Z_FIELDS

Plain = tuple[Any, ...]  # a bundle as the kernels the Python side calls take it


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


class Fixed(NamedTuple):
    """What the step reads besides the state: the same for every game, set when the batch is
    made (:func:`.fixed.fixed`) and never changed."""

    R: I64  # [R_FIELDS]: the rules (layout's R fields)
    D: I64  # [3, cards]: the deck, each card's value, rank id and power bits (VALUE, RANK, POWER)
    C: I64  # [4, actions]: each codec index's kind, count of slots, seat offset, target slot
    CS: I64  # [actions, width]: each codec index's slots (-1 past its count)


class Tables(NamedTuple):
    """The codec index of a kind and its arguments, for listing the legal actions (built by
    :func:`.fixed.tables`): ``simple[kind]`` (an action with no slot), ``opening`` (the opening
    looks), ``rep[s0, s1 + 1, s2 + 1, s3 + 1]`` (a replace of those sorted slots, 0 for none),
    ``peek[s]``, ``tap[s]``, ``spy[offset, s]`` and ``swap[s, offset, target]``."""

    simple: I64
    opening: I64
    rep: I64
    peek: I64
    tap: I64
    spy: I64
    swap: I64


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
