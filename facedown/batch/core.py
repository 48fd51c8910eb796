"""Many matches of one ruleset and table size as arrays, advanced one decision at a time.

:class:`Batch` holds ``games`` matches; :meth:`Batch.step` takes one action index per game (the
:class:`facedown.rl.actions.ActionCodec` numbering, for the seat in :attr:`Batch.actor`) and
advances every game that is not over, in compiled code (:mod:`.kernels`: one loop over the
games, the rules as scalar code per game).  The reference engine (:class:`facedown.engine.Game`)
is the authority: the differential tests replay every batch game on it and compare state, scores
and knowledge after every step.

Turn structure: the batch asks one seat per game at a time.  In the opening, the lowest seat
still to look; in play, the turn player, except where the rules have TAP: after every change of
the table during play, each other seat that holds a card is offered one decision first, in seat
order after the turn player (the arbiter's ``may_tap``), TAP one of its cards or PASS (index 0);
a TAP changes the table and opens a new window.  This is :mod:`facedown.rl.env`'s structure: a
TAP is the engine's ``apply(tap)`` at that moment, a PASS no engine action.  A finished round
is dealt on at once (the engine's ``next_round`` by that seat), so a game never waits at a reveal.

Every ruleset on a deck of at most 64 cards is played: the four presets and their custom rules.
Anything else is refused with :class:`UnsupportedRules` naming what (never approximated).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..engine import Phase, Ruleset, shuffle_rng
from ..rl.actions import ActionCodec
from . import kernels, layout
from . import legal as L
from .bundles import new_state
from .fixed import POWER_NAMES, Codes, fixed, tables
from .layout import (
    DEAL_KEYS,
    HOLDING,
    K_CALL,
    K_DISCARD,
    K_DRAW,
    K_END_TURN,
    K_SKIP,
    K_TAKE,
    K_UNDO,
    MATCH_OVER,
    OPENING,
    POWER,
    POWER_BITS,
    POWERS,
    RANK,
    ROUND_OVER,
    ROUND_SHIFT,
    SHUFFLE_KEYS,
    TAKEN,
    TURN_END,
    TURN_START,
    VALUE,
)

Shuffles = Literal["engine", "numpy"]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

PHASES = tuple(Phase)
PEEK, SPY, SWAP = range(3)
MAX_CARDS = 64
__all__ = [
    "HOLDING",
    "K_CALL",
    "K_DISCARD",
    "K_DRAW",
    "K_END_TURN",
    "K_SKIP",
    "K_TAKE",
    "K_UNDO",
    "MATCH_OVER",
    "OPENING",
    "POWERS",
    "POWER_NAMES",
    "ROUND_OVER",
    "TAKEN",
    "TURN_END",
    "TURN_START",
    "Batch",
    "UnsupportedRules",
    "unsupported",
]


class UnsupportedRules(ValueError):
    """The batch does not play this ruleset; the message names what it lacks."""


def unsupported(rules: Ruleset) -> list[str]:
    """What the batch cannot play in ``rules`` (empty: it plays them all)."""
    if len(rules.deck_cards) > MAX_CARDS:
        return [f"decks of more than {MAX_CARDS} cards"]
    return []


class Batch:
    """``games`` matches of ``rules`` at ``players`` seats, as arrays (see the module doc)."""

    def __init__(
        self,
        rules: Ruleset,
        players: int,
        games: int,
        *,
        seeds: Sequence[int] | None = None,
        shuffles: Shuffles = "engine",
        rng: np.random.Generator | None = None,
    ) -> None:
        missing = unsupported(rules)
        if missing:
            raise UnsupportedRules("the batch does not play: " + "; ".join(missing))
        deck = rules.deck_cards
        if not 2 <= players <= 8 or players * rules.hand_size + 1 > len(deck):
            raise ValueError(f"{players} players cannot play this ruleset")
        if rules.sudden_death and players > 2:
            # The engine's sudden-death round is played by the tied alone (docs/rules/README.md);
            # the kernels deal every seat, which is the same only when two play.
            raise UnsupportedRules(
                "the batch does not play: a sudden-death round with more than two players"
            )
        if shuffles not in ("engine", "numpy"):
            raise ValueError("shuffles is 'engine' (the reference engine's deals) or 'numpy'")
        self.rules, self.players, self.games, self.shuffles = rules, players, games, shuffles
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.seeds = list(seeds) if seeds is not None else list(range(games))
        if len(self.seeds) != games:
            raise ValueError("seeds must give one seed per game")
        self.cards = len(deck)
        self.hand_cap = h = rules.max_hand
        self.codec = ActionCodec(players, h, rules.hand_size, rules.opening_peek)
        self.codes = Codes(self.codec, rules.hand_size)
        # The kernels' bundles (see .bundles), and their fields by the names of before.
        self.state = st = new_state(games, players, h, self.cards)
        self.fixed = fx = fixed(rules, players, self.codes)
        self.tables = tables(self.codes, players, h)
        self.Z, self.S, self.hands, self.draw, self.disc = st.Z, st.S, st.hands, st.draw, st.disc
        self.known_bits, self.public_bits, self.keys = st.known, st.public, st.keys
        self.R, self.deck_table = fx.R, fx.D
        self.values, self.rank = self.deck_table[VALUE], self.deck_table[RANK]
        self.card_powers = (self.deck_table[POWER, :, None] & np.array(POWER_BITS)) != 0
        # As the kernels the Python side calls take them, plain tuples (see .bundles): the
        # step's bundles, and with the index tables those of the kernels that list actions.
        self._bundles = (tuple(st), tuple(fx))
        self._all_bundles = (*self._bundles, tuple(self.tables))
        self._rows = np.arange(games)
        self._scratch = (np.empty(self.codec.size, np.int64), np.empty(h, np.int64))
        self.Z[:, layout.WINDOW] = 1 if rules.tap else players
        self._fill_deal_keys(self._rows, np.ones(games, dtype=np.int64))
        kernels.deal_all(*self._bundles, self._rows)
        self._todo = np.empty(games, dtype=np.int64)
        self._refill(self._rows)

    # ------------------------------------------------------------------ the state by name
    def _z(self, field: int) -> IntArray:
        view: IntArray = self.Z[:, field]
        return view

    def _s(self, field: int) -> IntArray:
        view: IntArray = self.S[:, field]
        return view

    phase = property(lambda self: self._z(layout.PHASE), doc="the Phase enum's order")
    turn = property(lambda self: self._z(layout.TURN))
    first = property(lambda self: self._z(layout.FIRST))
    caller = property(lambda self: self._z(layout.CALLER))
    finals = property(lambda self: self._z(layout.FINALS))
    passes = property(lambda self: self._z(layout.PASSES))
    reshuffles = property(lambda self: self._z(layout.RESHUFFLES))
    round_actions = property(lambda self: self._z(layout.ROUND_ACTIONS))
    round_no = property(lambda self: self._z(layout.ROUND))
    held = property(lambda self: self._z(layout.HELD))
    ndraw = property(lambda self: self._z(layout.NDRAW))
    ndisc = property(lambda self: self._z(layout.NDISC))
    turns = property(lambda self: self._z(layout.TURNS), doc="turns begun, as the engine counts")
    rounds_played = property(lambda self: self._z(layout.PLAYED))
    round_caller = property(lambda self: self._z(layout.ROUND_CALLER), doc="the last round's")
    places = property(lambda self: self._s(layout.PLACES), doc="each hand's length")
    totals = property(lambda self: self._s(layout.TOTALS))
    round_scores = property(lambda self: self._s(layout.ROUND_SCORES), doc="the last round's")
    hand_totals = property(lambda self: self._s(layout.HAND_TOTALS), doc="the last round's")

    # Flags: a bool per game (Z's columns) or per game and seat (S's rows); round_ended and
    # match_ended: whether one ended in the last step.
    held_disc = property(lambda self: self._z(layout.HELD_DISC) != 0)
    sudden_death_played = property(lambda self: self._z(layout.SUDDEN_DEATH) != 0)
    round_ended = property(lambda self: self._z(layout.ROUND_ENDED) != 0, doc="in the last step")
    match_ended = property(lambda self: self._z(layout.MATCH_ENDED) != 0, doc="in the last step")
    peeked = property(lambda self: self._s(layout.PEEKED) != 0)
    hundred_used = property(lambda self: self._s(layout.HUNDRED_USED) != 0)
    winners = property(lambda self: self._s(layout.WINNERS) != 0)

    @property
    def pending(self) -> BoolArray:
        """The pending powers (peek, spy, swap) of each game's turn player."""
        bits = self.Z[:, layout.PENDING]
        out: BoolArray = (bits[:, None] & np.array(POWER_BITS)[None, :]) != 0
        return out

    @property
    def known(self) -> BoolArray:
        """``[games, players, cards]``: the cards each seat has learned where they lie now."""
        shifts = np.arange(self.cards, dtype=np.uint64)
        out: BoolArray = ((self.known_bits[:, :, None] >> shifts) & np.uint64(1)) != 0
        return out

    @property
    def public(self) -> BoolArray:
        """``[games, cards]``: the cards shown to everyone where they lie now."""
        shifts = np.arange(self.cards, dtype=np.uint64)
        out: BoolArray = ((self.public_bits[:, None] >> shifts) & np.uint64(1)) != 0
        return out

    # ------------------------------------------------------------------ who acts
    @property
    def over(self) -> BoolArray:
        """Games whose match is over."""
        over: BoolArray = self.phase == MATCH_OVER
        return over

    def _actors(self) -> tuple[IntArray, BoolArray]:
        out = np.empty(self.games, dtype=np.int64)
        window = np.empty(self.games, dtype=np.bool_)
        kernels.actors(*self._bundles, out, window)
        return out, window

    @property
    def actor(self) -> IntArray:
        """The seat each game asks now (-1 once the match is over)."""
        return self._actors()[0]

    @property
    def in_window(self) -> BoolArray:
        """Games whose deciding seat is offered a TAP out of turn (PASS declines it)."""
        out: BoolArray = self._actors()[1]
        return out

    # ------------------------------------------------------------------ the random keys
    def _fill_deal_keys(self, gi: IntArray, round_no: IntArray) -> None:
        self._fill(gi, round_no, np.zeros(gi.size, dtype=np.int64), DEAL_KEYS)

    def _fill(self, gi: IntArray, round_no: IntArray, reshuffle: IntArray, row: int) -> None:
        """The random keys of one shuffle per game: each game's engine stream, or numpy's."""
        if gi.size == 0:
            return
        c = self.cards
        if self.shuffles == "numpy":
            self.keys[gi, row] = self.rng.random((gi.size, c))
            return
        keys = self.keys
        for game, rnd, k in zip(gi.tolist(), round_no.tolist(), reshuffle.tolist(), strict=True):
            draw = shuffle_rng(self.seeds[game], rnd, k).random
            keys[game, row] = [draw() for _ in range(c)]

    def _refill(self, todo: IntArray) -> None:
        """Fill what the games ``todo`` used: the next round's deal keys, and the next
        reshuffle's keys of a game whose draw pile one action could empty; refuse to go on
        after an impossible state."""
        Z, R = self.Z, layout
        bad = todo[Z[todo, R.ERROR] != 0]
        if bad.size:
            raise RuntimeError(f"the batch met an impossible state in games {bad[:5].tolist()}")
        used = todo[Z[todo, R.NEED_DEAL_KEYS] != 0]
        if used.size:
            self._fill_deal_keys(used, Z[used, R.ROUND] + 1)
            Z[used, R.NEED_DEAL_KEYS] = 0
        reach = max(1, self.rules.tap_penalty_cards)
        want = (Z[todo, R.ROUND] << ROUND_SHIFT) | (Z[todo, R.RESHUFFLES] + 1)
        low = (Z[todo, R.NDRAW] <= reach) & (Z[todo, R.SHUFFLE_FOR] != want)
        low &= Z[todo, R.PHASE] != MATCH_OVER
        gi = todo[low]
        if gi.size:
            self._fill(gi, Z[gi, R.ROUND], Z[gi, R.RESHUFFLES] + 1, SHUFFLE_KEYS)
            Z[gi, R.SHUFFLE_FOR] = want[low]

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Per game, the legal action indexes of :attr:`actor` (all false once over)."""
        mask = np.zeros((self.games, self.codec.size), dtype=np.bool_)
        L.masks(*self._all_bundles, *self._scratch, mask)
        return mask

    def random_actions(self, seed: int, call: float, tap: float) -> IntArray:
        """One legal action per game, uniform but for calls and taps (see
        :func:`.legal.choose`), drawn from numba's generator seeded with ``seed``."""
        out = np.empty(self.games, dtype=np.int64)
        buf, occ = self._scratch
        L.random_play(*self._all_bundles, buf, occ, seed, call, tap, out)
        return out

    def play_random(self, steps: int, seed: int, call: float, tap: float) -> int:
        """Random play (:meth:`random_actions`' choice) and the step in one compiled loop: up to
        ``steps`` decisions in each game, one game after the other (for random play at speed:
        the benchmark).  :attr:`round_ended` and :attr:`match_ended` say whether one ended in
        the call; a round's scores are the last round's.  Returns the decisions made."""
        buf, occ = self._scratch
        todo = self._todo
        count, made = L.play_random(*self._all_bundles, buf, occ, seed, call, tap, steps, todo)
        if count:
            self._refill(todo[:count])
        return int(made)

    # ------------------------------------------------------------------ the step
    def step(self, actions: npt.ArrayLike, *, check: bool = True) -> None:
        """Apply one action index per game (ignored for games that are over).

        ``check`` refuses (ValueError, nothing changed) an index that is not legal for a game's
        actor; without it the caller vouches that every index came from :meth:`legal_mask`.
        """
        act = np.ascontiguousarray(actions, dtype=np.int64)
        if act.shape != (self.games,):
            raise ValueError(f"step takes one action per game: shape ({self.games},)")
        if check:
            live = self.phase != MATCH_OVER
            inside = (act >= 0) & (act < self.codec.size)
            mask = self.legal_mask()
            bad = live & ~(inside & mask[self._rows, np.clip(act, 0, self.codec.size - 1)])
            if bad.any():
                games = np.flatnonzero(bad)[:5].tolist()
                raise ValueError(f"actions not legal now in games {games}")
        todo = self._todo
        count = kernels.step(*self._bundles, act, todo)
        if count:
            self._refill(todo[:count])

    # ------------------------------------------------------------------ knowledge
    def knowledge(self, seat: IntArray) -> BoolArray:
        """Per game, which places of every hand ``seat[g]`` knows: ``[games, players, places]``."""
        rows = self._rows
        mask = self.known_bits[rows, seat] | self.public_bits  # [g]
        hands = self.hands
        filled = hands >= 0
        cards = np.maximum(hands, 0).astype(np.uint64)
        known: BoolArray = filled & (((mask[:, None, None] >> cards) & np.uint64(1)) != 0)
        return known

    def memory_bytes(self) -> int:
        """The bytes of every per-game array (the state of all games)."""
        return sum(
            v.nbytes
            for v in vars(self).values()
            if isinstance(v, np.ndarray) and v.shape[:1] == (self.games,)
        )
