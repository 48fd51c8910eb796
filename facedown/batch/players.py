"""The batch's players in compiled code, and a tournament's loop over them.

:func:`easy_choice` is :func:`facedown.batch.policies.easy_actions` (the ``batch-easy`` player)
for one game, as scalar code: it reads the deciding seat's legal list (:func:`.legal._listing`,
the list the mask is made of) instead of a mask over the codec, and draws its random fallback
(uniform among the legal actions but calls and taps) from that list only when its heuristic
leaves the choice open.  A test holds it to the numpy version, fallback given.

:func:`play_lineup` is a tournament's loop: every live game makes up to ``steps`` decisions, its
seats playing ``batch-easy`` or ``batch-random`` (:func:`.legal.choose`) as the lineup says, the
step included, and the round's result is added up per seat as it ends; a game stops once its
match (or round, for tournaments of rounds) is over, and is no longer visited.
"""

from __future__ import annotations

import numpy as np

from .bundles import Fixed, Plain, State, Tables
from .deal import _bit
from .jit import I64, inline, kernel
from .kernels import actor_of, needs_keys, step_one, window_offset
from .layout import (
    ERROR,
    HAND_TOTALS,
    HELD,
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_PEEK,
    K_SKIP,
    K_SPY,
    K_SWAP,
    K_TAKE,
    MATCH_ENDED,
    NDISC,
    PENDING,
    PHASE,
    PLAYED,
    POWERS,
    RANK,
    ROUND_CALLER,
    ROUND_ENDED,
    ROUND_SCORES,
    TAKEN,
    TOTALS,
    TURN_END,
    TURN_START,
    VALUE,
    WINNERS,
    N,
)
from .legal import _listing, choose

NONE = -(10**6)  # the value of a place whose card is unknown, below every card
NO_TOP = 99  # the value of the top discard of an empty pile, above every card

# The columns of a tournament's per-seat tally (``tally[g, column, seat]``).
SUMS, HAND_SUMS, CALLS, RESULT, WON = range(5)
TALLY_FIELDS = 5
# The columns of a tournament's per-game progress (``games[g, column]``).
DONE, ROUNDS = range(2)


@inline
def _has(buf: I64, count: int, a: int) -> bool:
    """Whether action ``a`` is among the first ``count`` of ``buf`` (the legal list)."""
    for i in range(count):  # noqa: SIM110 - a loop numba compiles
        if buf[i] == a:
            return True
    return False


@inline
def _first_power(fx: Fixed, T: Tables, buf: I64, count: int, first_unknown: int) -> int:
    """A peek at the first unknown own place when legal, else the first legal power (peeks,
    then spies, then swaps, each by codec index), else SKIP."""
    if first_unknown >= 0 and _has(buf, count, T.peek[first_unknown]):
        return int(T.peek[first_unknown])
    big = np.int64(1) << 60
    peek = spy = swap = big
    for i in range(count):
        a = buf[i]
        kind = fx.C[0, a]
        if kind == K_PEEK:
            peek = min(peek, a)
        elif kind == K_SPY:
            spy = min(spy, a)
        elif kind == K_SWAP:
            swap = min(swap, a)
    for first in (peek, spy, swap):
        if first < big:
            return int(first)
    return int(T.simple[K_SKIP])


@kernel  # called, not inlined: inlined in both loops it tripled the cold compile's time
def easy_choice(  # noqa: C901 - one branch per phase, as easy_actions' overrides
    st: State,
    fx: Fixed,
    T: Tables,
    g: int,
    buf: I64,
    occ: I64,
    take_below: int,
    call_below: int,
    call: float,
    fallback: int,
) -> int:
    """The batch-easy action of game ``g``'s deciding seat (the game not over); ``fallback``
    is the random choice to take where the heuristic has none (-1: draw it here)."""
    Z, hands, D = st.Z, st.hands, fx.D
    p = actor_of(st, fx, g)
    count, ntaps, calls = _listing(st, fx, T, g, buf, occ)
    phase = Z[g, PHASE]
    mask = st.known[g, p] | st.public[g]
    ndisc = Z[g, NDISC]
    top = st.disc[g, max(ndisc - 1, 0)]
    # What the seat knows of its own hand.
    highest, highest_slot, first_unknown, unknown, known_sum = NONE, 0, -1, 0, 0
    for s in range(hands.shape[2]):
        card = hands[g, p, s]
        if card < 0:
            continue
        if mask & _bit(card):
            value = D[VALUE, card]
            known_sum += value
            if value > highest:
                highest, highest_slot = value, s
        else:
            unknown += 1
            if first_unknown < 0:
                first_unknown = s
    sure = unknown == 0 and known_sum <= call_below
    if window_offset(st, fx, g) > 0:  # a TAP window: a card known to match, or PASS
        for s in range(hands.shape[2]):
            card = hands[g, p, s]
            if card >= 0 and mask & _bit(card) and D[RANK, card] == D[RANK, top]:
                return int(T.tap[s])
        return 0
    simple = T.simple
    if phase == TURN_END:
        if sure and _has(buf, count, simple[K_CALL]):
            return int(simple[K_CALL])
        return int(simple[K_END_TURN])
    if phase == POWERS:
        return _first_power(fx, T, buf, count, first_unknown)
    if phase == HOLDING and Z[g, PENDING] != 0:  # powers while holding: used first
        power = _first_power(fx, T, buf, count, first_unknown)
        if power != simple[K_SKIP]:
            return power
    if HOLDING <= phase <= TAKEN:  # holding the drawn card, or the taken discard
        held = Z[g, HELD]
        held_value = D[VALUE, held] if held >= 0 else NO_TOP
        slot = -1
        if highest > held_value:
            slot = highest_slot
        elif held_value <= 4:
            slot = first_unknown
        if slot >= 0:
            chosen = T.rep[slot, 0, 0, 0]
            if _has(buf, count, chosen):
                return int(chosen)
        elif _has(buf, count, simple[K_DISCARD]):
            return int(simple[K_DISCARD])
    elif phase == TURN_START:
        if _has(buf, count, simple[K_CALL]) and (sure or np.random.random() < call):
            return int(simple[K_CALL])
        top_value = D[VALUE, top] if ndisc > 0 else NO_TOP
        if top_value <= take_below and _has(buf, count, simple[K_TAKE]):
            return int(simple[K_TAKE])
        if _has(buf, count, simple[K_DRAW]):
            return int(simple[K_DRAW])
    if fallback >= 0:
        return fallback
    # Uniform among the legal actions but the call and the taps (the call when alone).
    rest = count - ntaps - calls
    if rest > 0:
        return int(buf[int(np.random.random() * rest)])
    return int(buf[rest]) if calls else 0


@kernel
def easy_play(
    state: Plain,
    fixed: Plain,
    tables: Plain,
    buf: I64,
    occ: I64,
    seed: int,
    take_below: int,
    call_below: int,
    call: float,
    fallback: I64,
    out: I64,
) -> None:
    """Per game, :func:`easy_choice`'s action (0 once over), numba's generator seeded with
    ``seed``; ``fallback`` gives each game's random choice, or is empty (drawn here)."""
    st, fx, T = State(*state), Fixed(*fixed), Tables(*tables)
    np.random.seed(seed)
    given = fallback.size > 0
    for g in range(st.Z.shape[0]):
        if actor_of(st, fx, g) < 0:
            out[g] = 0
            continue
        f = fallback[g] if given else -1
        out[g] = easy_choice(st, fx, T, g, buf, occ, take_below, call_below, call, f)


@inline
def _tally(st: State, fx: Fixed, tally: I64, progress: I64, g: int, per_round: bool) -> bool:
    """Add up the round game ``g`` just ended; whether the game is over (its result set)."""
    Z, S = st.Z, st.S
    n = fx.R[N]
    for p in range(n):
        tally[g, SUMS, p] += S[g, ROUND_SCORES, p]
        tally[g, HAND_SUMS, p] += S[g, HAND_TOTALS, p]
    caller = Z[g, ROUND_CALLER]
    if caller >= 0:
        tally[g, CALLS, caller] += 1
    progress[g, ROUNDS] += 1
    if per_round:
        low = S[g, ROUND_SCORES, 0]
        for p in range(1, n):
            low = min(low, S[g, ROUND_SCORES, p])
        for p in range(n):
            tally[g, RESULT, p] = S[g, ROUND_SCORES, p]
            tally[g, WON, p] = S[g, ROUND_SCORES, p] == low
    elif Z[g, MATCH_ENDED]:
        for p in range(n):
            tally[g, RESULT, p] = S[g, TOTALS, p]
            tally[g, WON, p] = S[g, WINNERS, p]
    else:
        return False
    progress[g, DONE] = 1
    return True


@kernel
def play_lineup(
    state: Plain,
    fixed: Plain,
    tables: Plain,
    buf: I64,
    occ: I64,
    easy: I64,
    live: I64,
    seed: int,
    call: float,
    tap: float,
    take_below: int,
    call_below: int,
    easy_call: float,
    steps: int,
    per_round: bool,
    tally: I64,
    progress: I64,
    todo: I64,
) -> tuple[int, int]:
    """Up to ``steps`` decisions in each game of ``live``, one game after the other: seat ``p``
    of game ``g`` plays batch-easy where ``easy[g, p]``, else batch-random (``call``, ``tap``);
    each round's result is added to ``tally`` as it ends and ``progress`` says which games are
    over and how many rounds each played; ``ROUND_ENDED`` and ``MATCH_ENDED`` say whether one
    ended during the call (as in ``legal.play_random``).  A game stops early when it is over or
    needs keys (listed in ``todo``).  Returns how many games need keys and how many decisions
    were made."""
    st, fx, T = State(*state), Fixed(*fixed), Tables(*tables)
    Z = st.Z
    np.random.seed(seed)
    count = 0
    made = 0
    for i in range(live.size):
        g = live[i]
        Z[g, ROUND_ENDED] = 0
        Z[g, MATCH_ENDED] = 0
        for _ in range(steps):
            p = actor_of(st, fx, g)
            if p < 0 or progress[g, DONE]:
                break
            if easy[g, p]:
                a = easy_choice(st, fx, T, g, buf, occ, take_below, call_below, easy_call, -1)
            else:
                a = choose(st, fx, T, g, buf, occ, call, tap)
            played = Z[g, PLAYED]
            step_one(st, fx, g, a)
            made += 1
            over = Z[g, PLAYED] != played and _tally(st, fx, tally, progress, g, per_round)
            if (needs_keys(st, fx, g) and not over) or Z[g, ERROR]:
                todo[count] = g
                count += 1
                break
            if over:
                break
    return count, made
