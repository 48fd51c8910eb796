"""What a batch fixes when it is made, as arrays: the rules as a vector (:func:`rules_vector`),
the deck as a table (:func:`deck_table`), and the codec's actions both ways: each index's kind
and arguments (:class:`Codes`), and the index of a kind and its arguments (:func:`tables`).
:func:`fixed` bundles the first three for the kernels (:class:`.bundles.Fixed`); the index tables
are a bundle of their own (:class:`.bundles.Tables`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..engine import MAX_SET, Deck, Ruleset
from ..engine import actions as A
from ..rl.actions import ActionCodec
from . import layout
from .bundles import Fixed, Tables
from .layout import (
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_OPENING,
    K_PASS,
    K_PEEK,
    K_REPLACE,
    K_SKIP,
    K_SPY,
    K_SWAP,
    K_TAKE,
    K_TAP,
    K_UNDO,
    POWER_BITS,
)

IntArray = npt.NDArray[np.int64]

POWER_NAMES = ("peek", "spy", "swap")
KIND_IDS = {kind: i for i, kind in enumerate(A.KINDS)}


class Codes:
    """The codec's action indexes as arrays: kind, slots, seat offset and target slot."""

    def __init__(self, codec: ActionCodec, hand_size: int) -> None:
        size = codec.size
        self.width = max(MAX_SET, hand_size)  # the most slots an action names
        self.kind = np.full(size, K_PASS, dtype=np.int64)
        self.slots = np.full((size, self.width), -1, dtype=np.int64)
        self.count = np.zeros(size, dtype=np.int64)
        self.offset = np.zeros(size, dtype=np.int64)
        self.target_slot = np.full(size, -1, dtype=np.int64)
        for i, key in enumerate(codec.keys):
            if key is None:
                continue
            kind, slots, offset, target_slot = key
            self.kind[i] = KIND_IDS[kind]
            self.slots[i, : len(slots)] = slots
            self.count[i] = len(slots)
            self.offset[i] = offset
            self.target_slot[i] = target_slot
        self.simple = {
            kind: int(np.flatnonzero((self.kind == kind) & (self.count == 0))[0])
            for kind in (K_DRAW, K_TAKE, K_DISCARD, K_SKIP, K_CALL, K_UNDO, K_END_TURN)
        }
        # The kernels' form: kind, count, offset, target slot as rows of one table.
        self.table = np.stack([self.kind, self.count, self.offset, self.target_slot])

        def where(kind: str) -> IntArray:
            return np.flatnonzero(self.kind == KIND_IDS[kind])

        self.opening = where(A.OPENING_PEEK)
        self.replace = where(A.REPLACE)
        self.peek = where(A.PEEK)
        self.spy = where(A.SPY)
        self.swap = where(A.SWAP)
        self.tap = where(A.TAP)


def tables(codes: Codes, players: int, hand: int) -> Tables:
    """The index tables of a codec's actions (:class:`.bundles.Tables`)."""
    kind, slots, offset, target = codes.kind, codes.slots, codes.offset, codes.target_slot
    simple = np.full(14, -1, dtype=np.int64)
    rep = np.zeros((hand, hand + 1, hand + 1, hand + 1), dtype=np.int64)
    peek = np.zeros(hand, dtype=np.int64)
    tap = np.zeros(hand, dtype=np.int64)
    spy = np.zeros((players, hand), dtype=np.int64)
    swap = np.zeros((hand, players, hand), dtype=np.int64)
    opening = []
    for i in range(1, kind.size):
        k, sl = int(kind[i]), [int(s) for s in slots[i] if s >= 0]
        if k == K_OPENING:
            opening.append(i)
        elif k == K_REPLACE:
            padded = [*sl, -1, -1, -1][:MAX_SET]
            rep[padded[0], padded[1] + 1, padded[2] + 1, padded[3] + 1] = i
        elif k == K_PEEK:
            peek[sl[0]] = i
        elif k == K_TAP:
            tap[sl[0]] = i
        elif k == K_SPY:
            spy[offset[i], sl[0]] = i
        elif k == K_SWAP:
            swap[sl[0], offset[i], target[i]] = i
        elif not sl:
            simple[k] = i
    return Tables(simple, np.array(opening, dtype=np.int64), rep, peek, tap, spy, swap)


def deck_table(deck: Deck) -> IntArray:
    """``[3, cards]``: each card's value, rank id (ranks sorted) and power bits."""
    rank_ids = {r: i for i, r in enumerate(sorted(set(deck.ranks)))}
    named = list(zip(POWER_NAMES, POWER_BITS, strict=True))
    bits = [sum(bit for name, bit in named if name in powers) for powers in deck.powers]
    return np.array([deck.values, [rank_ids[r] for r in deck.ranks], bits], dtype=np.int64)


def rules_vector(rules: Ruleset, players: int) -> IntArray:
    """The ruleset as the kernels read it (:mod:`.layout`'s ``R`` fields)."""
    R = layout
    out = np.zeros(R.R_FIELDS, dtype=np.int64)
    values = {
        R.N: players,
        R.HAND_SIZE: rules.hand_size,
        R.OPENING_PEEK: rules.opening_peek,
        R.MAX_HAND: rules.max_hand,
        R.CARDS: len(rules.deck_cards),
        R.POWERS_WHILE_HOLDING: rules.power_timing == "holding",
        R.EXPLICIT_END_TURN: rules.explicit_end_turn,
        R.CALL_AT_START: rules.call_at_turn_start,
        R.CALL_AFTER_ACTION: rules.call_after_action,
        R.TAP: rules.tap,
        R.TAP_PENALTY: rules.tap_penalty_cards,
        R.SET_REPLACE: rules.set_replace,
        R.KEEP_TAKEN: rules.failed_set == "keep_taken",
        R.UNDO_TAKE: rules.undo_take_discard,
        R.RETURN_TAKEN: rules.return_taken_discard,
        R.LOWEST_ZERO: rules.lowest_scores_zero,
        R.LOWEST_TIE_CALLER: rules.lowest_tie_caller_only,
        R.CALLER_STRICT: rules.caller_strictly_lowest,
        R.CALLER_LOWEST_ZERO: rules.caller_lowest_scores_zero,
        R.CALLER_PENALTY: rules.caller_penalty,
        R.CALLER_MULTIPLIER: rules.caller_multiplier,
        R.MOON: rules.shoot_the_moon,
        R.MOON_POINTS: rules.moon_points,
        R.HUNDRED_RULE: ("none", "once", "always").index(rules.hundred_rule),
        R.HUNDRED_RESET: rules.hundred_reset,
        R.ROUNDS: -1 if rules.rounds is None else rules.rounds,
        R.SCORE_LIMIT: rules.score_limit or 0,
        R.HAS_LIMIT: rules.score_limit is not None,
        R.SUDDEN: rules.sudden_death,
        R.FIRST_WINNER: rules.first_player == "round_winner",
        R.ROUND_ACTION_LIMIT: rules.round_action_limit,
    }
    for field, value in values.items():
        out[field] = int(value)
    return out


def fixed(rules: Ruleset, players: int, codes: Codes) -> Fixed:
    """The fixed bundle of a batch of ``rules`` at ``players`` seats, its codec's ``codes``."""
    return Fixed(
        R=rules_vector(rules, players),
        D=deck_table(rules.deck_cards),
        C=codes.table,
        CS=codes.slots,
    )
