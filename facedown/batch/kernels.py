"""The batch's step, compiled: one loop over the games, the rules as scalar code per game.

Every kernel mirrors a function of the reference engine (``facedown.engine.transitions``,
``scoring`` and ``deal``) on one game of the arrays bundled in :mod:`.bundles` (their columns
named in :mod:`.layout`); the differential tests hold each game to the engine after every step.
They are split by what they do: :mod:`.deal` (deals and reshuffles, the shared helpers),
:mod:`.turns` (each action kind, the end of a turn), :mod:`.scoring` (the end of a round and of
the match), and this module: who acts (:func:`actor_of`, the TAP window) and the step.
:func:`step` applies one action per game (the codec's numbering), :func:`deal_all` deals the
first round.  The random keys of a deal or a reshuffle are read from ``keys``, filled by the
Python side (the engine's streams, or numpy's); a game that used them says so in ``Z``
(``NEED_DEAL_KEYS``, ``SHUFFLE_FOR``).

Compiled by numba with ``cache=True``: the first import on a machine compiles (its time is in
docs/batch.md), later ones load the cache.
"""

from __future__ import annotations

from typing import Any

from .bundles import Fixed, Plain, State
from .deal import _bit, _filled, _push, deal_all
from .jit import I64, B, inline, kernel
from .layout import (
    ERROR,
    HELD,
    HELD_DISC,
    K_PASS,
    MATCH_ENDED,
    MATCH_OVER,
    NDISC,
    NDRAW,
    NEED_DEAL_KEYS,
    OPENING,
    PEEKED,
    PHASE,
    PLAYED,
    RESHUFFLES,
    ROUND,
    ROUND_ACTION_LIMIT,
    ROUND_ACTIONS,
    ROUND_ENDED,
    ROUND_SHIFT,
    SHUFFLE_FOR,
    TAP,
    TAP_PENALTY,
    TURN,
    TURN_END,
    TURN_START,
    WINDOW,
    N,
)
from .scoring import _end_round
from .turns import _act, _follow

__all__ = ["actor_of", "actors", "deal_all", "needs_keys", "step", "step_one", "window_offset"]


# ------------------------------------------------------------------ who acts
@inline
def window_offset(st: State, fx: Fixed, g: int) -> int:
    """The offset from the turn player of the seat the TAP window offers a tap now (0: none)."""
    Z, R = st.Z, fx.R
    phase = Z[g, PHASE]
    if R[TAP] == 0 or phase < TURN_START or phase > TURN_END or Z[g, NDISC] == 0:
        return 0
    n = R[N]
    for j in range(Z[g, WINDOW], n):
        if _filled(st, g, (Z[g, TURN] + j) % n) > 0:
            return j
    return 0


@inline
def actor_of(st: State, fx: Fixed, g: int) -> int:
    """The seat game ``g`` asks now (-1 once the match is over)."""
    phase = st.Z[g, PHASE]
    if phase == MATCH_OVER:
        return -1
    if phase == OPENING:
        for p in range(fx.R[N]):
            if st.S[g, PEEKED, p] == 0:
                return p
        return -1
    j = window_offset(st, fx, g)
    return int((st.Z[g, TURN] + j) % fx.R[N])


@kernel
def actors(state: Plain, fixed: Plain, out: Any, window: B) -> None:
    """Each game's deciding seat, and whether it decides in a TAP window."""
    st, fx = State(*state), Fixed(*fixed)
    for g in range(st.Z.shape[0]):
        out[g] = actor_of(st, fx, g)
        window[g] = window_offset(st, fx, g) > 0


# ------------------------------------------------------------------ the step
@inline
def step_one(st: State, fx: Fixed, g: int, a: int) -> None:
    """Apply action ``a`` in game ``g`` (not over); PASS declines a TAP window."""
    Z, R = st.Z, fx.R
    if fx.C[0, a] == K_PASS:  # only legal in a TAP window: the next seat is offered one
        Z[g, WINDOW] = window_offset(st, fx, g) + 1
        return
    p = actor_of(st, fx, g)
    counted = TURN_START <= Z[g, PHASE] <= TURN_END  # an action of the round's play
    played = Z[g, PLAYED]
    then = _act(st, fx, g, p, a)
    _follow(st, fx, g, p, then)
    # The round's bound (the engine's end_at_limit); a round that this action ended (the next
    # one is already dealt here) is not counted.
    if counted and Z[g, PLAYED] == played:
        Z[g, ROUND_ACTIONS] += 1
        if Z[g, ROUND_ACTIONS] >= R[ROUND_ACTION_LIMIT]:
            card = Z[g, HELD]  # back where it came from, as the engine puts it
            if card >= 0:
                if Z[g, HELD_DISC]:
                    _push(st, g, card)
                else:
                    st.draw[g, Z[g, NDRAW]] = card
                    Z[g, NDRAW] += 1
                    st.public[g] &= ~_bit(card)
                    for q in range(R[N]):
                        st.known[g, q] &= ~_bit(card)
                Z[g, HELD] = -1
                Z[g, HELD_DISC] = 0
            _end_round(st, fx, g)
    Z[g, WINDOW] = 1 if R[TAP] else R[N]  # the table changed: a new window


@inline
def needs_keys(st: State, fx: Fixed, g: int) -> bool:
    """Whether game ``g`` used its deal keys, could reshuffle in its next action without the
    keys for it, or met an impossible state: the Python side looks at it before it goes on."""
    Z = st.Z
    if Z[g, NEED_DEAL_KEYS] or Z[g, ERROR]:
        return True
    if Z[g, PHASE] == MATCH_OVER or Z[g, NDRAW] > max(1, fx.R[TAP_PENALTY]):
        return False
    return bool(Z[g, SHUFFLE_FOR] != (Z[g, ROUND] << ROUND_SHIFT) | (Z[g, RESHUFFLES] + 1))


@kernel
def step(state: Plain, fixed: Plain, act: I64, todo: I64) -> int:
    """Apply one action per game (ignored once a match is over); the games that need keys
    (:func:`needs_keys`) are listed in ``todo``; returns how many."""
    st, fx = State(*state), Fixed(*fixed)
    Z = st.Z
    count = 0
    for g in range(Z.shape[0]):
        Z[g, ROUND_ENDED] = 0
        Z[g, MATCH_ENDED] = 0
        if Z[g, PHASE] == MATCH_OVER:
            continue
        step_one(st, fx, g, act[g])
        if needs_keys(st, fx, g):
            todo[count] = g
            count += 1
    return count
