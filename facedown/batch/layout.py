"""Where each number of a batch's state lives: the columns of its arrays, shared with the kernels.

A batch keeps its state in a few arrays indexed by game first, which the kernels take in two
bundles (:mod:`.bundles`, where every array is described): the games' ``State``, among them
``Z`` (``int64 [games, Z_FIELDS]``: one column per per-game number, named below) and ``S``
(``int64 [games, S_FIELDS, players]``: one row per per-seat number), and what the batch keeps
``Fixed``, among them the rules as one ``int64`` vector ``R`` (``R_FIELDS``) and the deck as one
``int64 [3, cards]`` table (value, rank, power bits).  Everything here is a plain int, which the
compiled kernels read as a constant.
"""

from __future__ import annotations

# ---------------------------------------------------------------- phases (the Phase enum's order)
OPENING, TURN_START, HOLDING, TAKEN, POWERS, TURN_END, ROUND_OVER, MATCH_OVER = range(8)

# Powers as bits of one number (the pending powers, a card's powers).
PEEK_BIT, SPY_BIT, SWAP_BIT = 1, 2, 4
POWER_BITS = (PEEK_BIT, SPY_BIT, SWAP_BIT)

# Action kinds (the engine's actions.KINDS order); K_PASS is the codec's index 0.
(
    K_OPENING,
    K_DRAW,
    K_TAKE,
    K_REPLACE,
    K_DISCARD,
    K_PEEK,
    K_SPY,
    K_SWAP,
    K_SKIP,
    K_END_TURN,
    K_CALL,
    K_TAP,
    K_UNDO,
    K_NEXT_ROUND,
) = range(14)
K_PASS = -1

# ---------------------------------------------------------------- Z: per game
(
    PHASE,
    TURN,
    FIRST,
    CALLER,
    FINALS,
    PASSES,
    RESHUFFLES,
    ROUND,
    HELD,
    HELD_DISC,
    PENDING,
    NDRAW,
    NDISC,
    WINDOW,  # the TAP window: the seat offset (1..players) to offer next; players: closed
    TURNS,
    PLAYED,
    ROUND_CALLER,
    SUDDEN_DEATH,
    ROUND_ENDED,
    MATCH_ENDED,
    NEED_DEAL_KEYS,  # the deal keys were used: refill them for the next round
    SHUFFLE_FOR,  # the (round, reshuffle) the shuffle keys are for: round << 20 | reshuffle
    ERROR,  # a kernel met what cannot happen (a bug): the batch refuses to go on
    ROUND_ACTIONS,  # actions of the round's play so far (the ruleset's round_action_limit)
) = range(24)
Z_FIELDS = 24

# ---------------------------------------------------------------- S: per game and seat
PLACES, PEEKED, TOTALS, HUNDRED_USED, WINNERS, ROUND_SCORES, HAND_TOTALS = range(7)
S_FIELDS = 7

# ---------------------------------------------------------------- R: the rules
(
    N,
    HAND_SIZE,
    OPENING_PEEK,
    MAX_HAND,
    CARDS,
    POWERS_WHILE_HOLDING,
    EXPLICIT_END_TURN,
    CALL_AT_START,
    CALL_AFTER_ACTION,
    TAP,
    TAP_PENALTY,
    SET_REPLACE,
    KEEP_TAKEN,
    UNDO_TAKE,
    RETURN_TAKEN,
    LOWEST_ZERO,
    LOWEST_TIE_CALLER,
    CALLER_STRICT,
    CALLER_LOWEST_ZERO,
    CALLER_PENALTY,
    CALLER_MULTIPLIER,
    MOON,
    MOON_POINTS,
    HUNDRED_RULE,  # 0 none, 1 once, 2 always
    HUNDRED_RESET,
    ROUNDS,  # -1: no fixed number
    SCORE_LIMIT,
    HAS_LIMIT,
    SUDDEN,
    FIRST_WINNER,  # 1: the round's winner starts the next round; 0: rotate
    ROUND_ACTION_LIMIT,  # the action of the round's play that ends it, at the latest
) = range(31)
R_FIELDS = 31

# ---------------------------------------------------------------- the deck table's rows
VALUE, RANK, POWER = range(3)

# The keys' rows: the next round's deal, the round's next reshuffle.
DEAL_KEYS, SHUFFLE_KEYS = range(2)
ROUND_SHIFT = 20
