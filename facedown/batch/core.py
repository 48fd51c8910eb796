"""Many matches of one ruleset and table size as numpy arrays, advanced one decision at a time.

:class:`Batch` holds ``games`` matches; :meth:`Batch.step` takes one action index per game (the
:class:`facedown.rl.actions.ActionCodec` numbering, for the seat in :attr:`Batch.actor`) and
advances every game that is not over.  The reference engine (:class:`facedown.engine.Game`) is
the authority: the differential tests replay every batch game on it and compare state, scores
and knowledge after every step.

Turn structure: the batch asks one seat per game at a time, the seat the engine's arbiter asks
first (``Game.awaiting().first``): in the opening the lowest seat still to look, in play the turn
player.  A finished round is dealt on at once (the engine's ``next_round`` by that seat), so a
game never waits at a reveal.

Supported rules: every ruleset whose powers come by discarding the drawn card
(``power_timing: discard``), whose turns end by themselves (``explicit_end_turn: false``) and
that plays without TAP, on a deck of at most 64 cards: the cabo, kivo and kaboom presets and
every custom ruleset of that kind (sets and failed sets, undo, return of the taken discard,
every scoring and match-end rule, both first-player rules, any hand size and peek).  Anything
else is refused with :class:`UnsupportedRules` naming the fields (never approximated).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ..engine import MAX_SET, Phase, Ruleset
from ..engine import actions as A
from ..rl.actions import ActionCodec

Shuffles = Literal["engine", "numpy"]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Phases as small ints, in the order of the Phase enum (the observation's one-hot order).
PHASES = tuple(Phase)
OPENING, TURN_START, HOLDING, TAKEN, POWERS, TURN_END, ROUND_OVER, MATCH_OVER = range(8)
PEEK, SPY, SWAP = range(3)
POWER_NAMES = ("peek", "spy", "swap")
MAX_CARDS = 64

# Action kinds as small ints (the codec's keys give the kind by name).
KIND_IDS = {kind: i for i, kind in enumerate(A.KINDS)}
K_OPENING, K_DRAW, K_TAKE, K_REPLACE, K_DISCARD = (
    KIND_IDS[k] for k in (A.OPENING_PEEK, A.DRAW, A.TAKE_DISCARD, A.REPLACE, A.DISCARD)
)
K_PEEK, K_SPY, K_SWAP, K_SKIP, K_CALL, K_UNDO = (
    KIND_IDS[k] for k in (A.PEEK, A.SPY, A.SWAP, A.SKIP, A.CALL, A.UNDO)
)
K_PASS = -1
_NO_SCORE = 1 << 40  # above any hand total: a caller's own column, left out of a minimum


class UnsupportedRules(ValueError):
    """The batch does not play this ruleset; the message names what it lacks."""


def unsupported(rules: Ruleset) -> list[str]:
    """What the batch cannot play in ``rules`` (empty: it plays them all)."""
    missing = []
    if rules.tap:
        missing.append("tap (TAP out of turn: boyo)")
    if rules.power_timing != "discard":
        missing.append("power_timing 'holding' (powers while holding: boyo)")
    if rules.explicit_end_turn:
        missing.append("explicit_end_turn (END TURN and calls after the action: boyo)")
    if len(rules.deck_cards) > MAX_CARDS:
        missing.append(f"decks of more than {MAX_CARDS} cards")
    return missing


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
            for kind in (K_DRAW, K_TAKE, K_DISCARD, K_SKIP, K_CALL, K_UNDO)
        }

        def where(kind: int) -> IntArray:
            return np.flatnonzero(self.kind == kind)

        self.opening = where(K_OPENING)
        self.replace = where(K_REPLACE)
        self.peek = where(K_PEEK)
        self.spy = where(K_SPY)
        self.swap = where(K_SWAP)


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
        if shuffles not in ("engine", "numpy"):
            raise ValueError("shuffles is 'engine' (the reference engine's deals) or 'numpy'")
        self.rules, self.players, self.games, self.shuffles = rules, players, games, shuffles
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.seeds = list(seeds) if seeds is not None else list(range(games))
        if len(self.seeds) != games:
            raise ValueError("seeds must give one seed per game")
        self.cards = len(deck)
        self.hand_cap = rules.max_hand
        self.codec = ActionCodec(players, rules.max_hand, rules.hand_size, rules.opening_peek)
        self.codes = Codes(self.codec, rules.hand_size)
        self.values = np.array(deck.values, dtype=np.int64)
        rank_ids = {r: i for i, r in enumerate(sorted(set(deck.ranks)))}
        self.rank = np.array([rank_ids[r] for r in deck.ranks], dtype=np.int64)
        self.card_powers = np.array(
            [[name in p for name in POWER_NAMES] for p in deck.powers], dtype=np.bool_
        )
        g, n, h, c = games, players, rules.max_hand, len(deck)
        self.hands = np.full((g, n, h), -1, dtype=np.int64)
        self.places = np.zeros((g, n), dtype=np.int64)  # a hand's length (its places)
        self.draw = np.zeros((g, c), dtype=np.int64)  # bottom first; the top is draw[ndraw - 1]
        self.ndraw = np.zeros(g, dtype=np.int64)
        self.disc = np.zeros((g, c), dtype=np.int64)
        self.ndisc = np.zeros(g, dtype=np.int64)
        self.held = np.full(g, -1, dtype=np.int64)
        self.held_disc = np.zeros(g, dtype=np.bool_)
        self.pending = np.zeros((g, 3), dtype=np.bool_)
        self.phase = np.zeros(g, dtype=np.int64)
        self.turn = np.zeros(g, dtype=np.int64)
        self.first = np.zeros(g, dtype=np.int64)
        self.caller = np.full(g, -1, dtype=np.int64)
        self.finals = np.zeros(g, dtype=np.int64)
        self.passes = np.zeros(g, dtype=np.int64)
        self.reshuffles = np.zeros(g, dtype=np.int64)
        self.round_no = np.zeros(g, dtype=np.int64)
        self.peeked = np.zeros((g, n), dtype=np.bool_)
        self.known = np.zeros((g, n, c), dtype=np.bool_)
        self.public = np.zeros((g, c), dtype=np.bool_)
        self.totals = np.zeros((g, n), dtype=np.int64)
        self.hundred_used = np.zeros((g, n), dtype=np.bool_)
        self.sudden_death_played = np.zeros(g, dtype=np.bool_)
        self.winners = np.zeros((g, n), dtype=np.bool_)
        self.round_scores = np.zeros((g, n), dtype=np.int64)  # the last round's
        self.hand_totals = np.zeros((g, n), dtype=np.int64)
        self.round_caller = np.full(g, -1, dtype=np.int64)  # the last round's caller
        self.rounds_played = np.zeros(g, dtype=np.int64)
        # What the last step did, per game (rewards are read from these).
        self.round_ended = np.zeros(g, dtype=np.bool_)
        self.match_ended = np.zeros(g, dtype=np.bool_)
        self.turns = np.zeros(g, dtype=np.int64)  # turns begun, as the engine's events count
        self._rows = np.arange(g)
        self._ending: list[IntArray] = []
        self._deal(self._rows, np.zeros(g, dtype=np.int64))

    # ------------------------------------------------------------------ who acts
    @property
    def over(self) -> BoolArray:
        """Games whose match is over."""
        over: BoolArray = self.phase == MATCH_OVER
        return over

    @property
    def actor(self) -> IntArray:
        """The seat each game asks now (-1 once the match is over)."""
        unpeeked = np.argmin(self.peeked, axis=1)
        out = np.where(self.phase == OPENING, unpeeked, self.turn)
        actor: IntArray = np.where(self.phase == MATCH_OVER, -1, out)
        return actor

    # ------------------------------------------------------------------ dealing
    def _order(self, gi: IntArray, round_no: IntArray, reshuffle: int, cards: int) -> IntArray:
        """Random orders of ``range(cards)``: each game's engine stream, or numpy's."""
        if self.shuffles == "numpy":
            keys = self.rng.random((gi.size, cards))
            return np.argsort(keys, axis=1, kind="stable")
        out = np.empty((gi.size, cards), dtype=np.int64)
        for row, (game, rnd) in enumerate(zip(gi.tolist(), round_no.tolist(), strict=True)):
            seed = (self.seeds[game] << 40) ^ (rnd << 20) ^ reshuffle
            draw = random.Random(seed).random
            stream = [draw() for _ in range(cards)]
            out[row] = sorted(range(cards), key=stream.__getitem__)
        return out

    def _deal(self, gi: IntArray, first: IntArray) -> None:
        if gi.size == 0:
            return
        n, size, c = self.players, self.rules.hand_size, self.cards
        self.round_no[gi] += 1
        self.first[gi] = first
        order = self._order(gi, self.round_no[gi], 0, c)
        # Each hand takes the next cards off the end of the order, the last first.
        taken = order[:, ::-1][:, : n * size].reshape(gi.size, n, size)
        self.hands[gi] = -1
        self.hands[gi, :, :size] = taken
        self.places[gi] = size
        rest = c - n * size
        self.disc[gi, 0] = order[:, rest - 1]
        self.ndisc[gi] = 1
        self.draw[gi, : rest - 1] = order[:, : rest - 1]
        self.ndraw[gi] = rest - 1
        self.held[gi] = -1
        self.held_disc[gi] = False
        self.pending[gi] = False
        self.caller[gi] = -1
        self.finals[gi] = 0
        self.passes[gi] = 0
        self.reshuffles[gi] = 0
        self.peeked[gi] = False
        self.known[gi] = False
        self.public[gi] = False
        self.turn[gi] = first
        if self.rules.opening_peek == 0:
            self.phase[gi] = TURN_START
            self.turns[gi] += 1
        else:
            self.phase[gi] = OPENING

    def _reshuffle(self, gi: IntArray) -> None:
        """The draw pile is empty: the discard pile but its top becomes the new draw pile."""
        for game in gi.tolist():
            top = int(self.disc[game, self.ndisc[game] - 1])
            count = int(self.ndisc[game]) - 1
            recycled = self.disc[game, :count].copy()
            self.reshuffles[game] += 1
            one = np.array([game])
            order = self._order(one, self.round_no[one], int(self.reshuffles[game]), count)[0]
            recycled = recycled[order]
            self.public[game, recycled] = False
            self.known[game][:, recycled] = False
            self.draw[game, :count] = recycled
            self.ndraw[game] = count
            self.disc[game, 0] = top
            self.ndisc[game] = 1

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Per game, the legal action indexes of :attr:`actor` (all false once over)."""
        codes, rules, g = self.codes, self.rules, self.games
        mask = np.zeros((g, self.codec.size), dtype=np.bool_)
        actor = self.actor
        seat = np.maximum(actor, 0)
        rows = self._rows
        occ = self.hands[rows, seat] >= 0  # [g, h]
        nocc = occ.sum(axis=1)
        phase = self.phase
        op = phase == OPENING
        if op.any():
            at = np.flatnonzero(op)
            slots = codes.slots[codes.opening][:, : rules.opening_peek]
            mask[at[:, None], codes.opening[None, :]] = occ[at][:, slots].all(axis=2)
        start = phase == TURN_START
        s = codes.simple
        mask[:, s[K_DRAW]] = start & ((self.ndraw > 0) | (self.ndisc >= 2))
        mask[:, s[K_TAKE]] = start & (self.ndisc > 0) & ((nocc > 0) | rules.return_taken_discard)
        mask[:, s[K_CALL]] = start & rules.call_at_turn_start & (self.caller < 0)
        holding = (phase == HOLDING) | (phase == TAKEN)
        if holding.any():
            at = np.flatnonzero(holding)
            rep = codes.replace
            counts = codes.count[rep]
            slots = np.maximum(codes.slots[rep], 0)
            valid = codes.slots[rep] >= 0
            filled = occ[at][:, slots] | ~valid[None, :, :]
            largest = np.where(nocc[at] >= 2, np.minimum(MAX_SET, nocc[at]), 0)
            if not rules.set_replace:
                largest[:] = 0
            fits = (counts[None, :] == 1) | (counts[None, :] <= largest[:, None])
            mask[at[:, None], rep[None, :]] = filled.all(axis=2) & fits
        mask[:, s[K_DISCARD]] = (phase == HOLDING) | (
            (phase == TAKEN) & (rules.return_taken_discard | (nocc == 0))
        )
        mask[:, s[K_UNDO]] = (phase == TAKEN) & rules.undo_take_discard
        powers = phase == POWERS
        if powers.any():
            self._power_mask(mask, np.flatnonzero(powers), seat, occ)
        mask[:, s[K_SKIP]] = powers
        return mask

    def _power_mask(
        self, mask: npt.NDArray[np.bool_], at: IntArray, seat: IntArray, occ: BoolArray
    ) -> None:
        codes, n = self.codes, self.players
        pend = self.pending[at]
        mine = occ[at]
        idx = codes.peek
        mask[at[:, None], idx[None, :]] = mine[:, codes.slots[idx, 0]] & pend[:, PEEK, None]
        idx = codes.spy
        owner = (seat[at][:, None] + codes.offset[idx][None, :]) % n
        theirs = self.hands[at[:, None], owner, codes.slots[idx, 0][None, :]] >= 0
        mask[at[:, None], idx[None, :]] = theirs & pend[:, SPY, None]
        idx = codes.swap
        owner = (seat[at][:, None] + codes.offset[idx][None, :]) % n
        theirs = self.hands[at[:, None], owner, codes.target_slot[idx][None, :]] >= 0
        own = mine[:, codes.slots[idx, 0]]
        mask[at[:, None], idx[None, :]] = own & theirs & pend[:, SWAP, None]

    # ------------------------------------------------------------------ the step
    def step(self, actions: npt.ArrayLike, *, check: bool = True) -> None:
        """Apply one action index per game (ignored for games that are over).

        ``check`` refuses (ValueError, nothing changed) an index that is not legal for a game's
        actor; without it the caller vouches that every index came from :meth:`legal_mask`.
        """
        act = np.asarray(actions, dtype=np.int64)
        if act.shape != (self.games,):
            raise ValueError(f"step takes one action per game: shape ({self.games},)")
        live = self.phase != MATCH_OVER
        if check:
            mask = self.legal_mask()
            bad = live & ~mask[self._rows, np.clip(act, 0, self.codec.size - 1)]
            bad |= live & ((act < 0) | (act >= self.codec.size))
            if bad.any():
                games = np.flatnonzero(bad)[:5].tolist()
                raise ValueError(f"actions not legal now in games {games}")
        self.round_ended[:] = False
        self.match_ended[:] = False
        kind = np.where(live, self.codes.kind[np.clip(act, 0, None)], K_PASS)
        actor = self.actor
        self._ending = []  # games whose turn the handlers ended: ended together below
        for k, handler in self._handlers():
            gi = np.flatnonzero(kind == k)
            if gi.size:
                handler(gi, actor[gi], act[gi])
        if self._ending:
            self._end_turn(np.concatenate(self._ending))

    def _handlers(self) -> list[tuple[int, Any]]:
        return [
            (K_OPENING, self._opening_peek),
            (K_DRAW, self._draw),
            (K_TAKE, self._take),
            (K_UNDO, self._undo),
            (K_REPLACE, self._replace),
            (K_DISCARD, self._discard),
            (K_PEEK, self._peek),
            (K_SPY, self._spy),
            (K_SWAP, self._swap),
            (K_SKIP, self._skip),
            (K_CALL, self._call),
        ]

    def _opening_peek(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        self.peeked[gi, p] = True
        for j in range(self.rules.opening_peek):
            card = self.hands[gi, p, self.codes.slots[act, j]]
            self.known[gi, p, card] = True
        done = gi[self.peeked[gi].all(axis=1)]
        self.phase[done] = TURN_START
        self.turns[done] += 1
        self._ending.append(self._stuck(done))

    def _draw(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        empty = gi[self.ndraw[gi] == 0]
        if empty.size:
            self._reshuffle(empty)
        self.ndraw[gi] -= 1
        card = self.draw[gi, self.ndraw[gi]]
        self.held[gi] = card
        self.held_disc[gi] = False
        self.known[gi, p, card] = True
        self.phase[gi] = HOLDING

    def _take(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        self.ndisc[gi] -= 1
        card = self.disc[gi, self.ndisc[gi]]
        self.held[gi] = card
        self.held_disc[gi] = True
        self.public[gi, card] = True
        self.phase[gi] = TAKEN

    def _push(self, gi: IntArray, cards: IntArray) -> None:
        self.disc[gi, self.ndisc[gi]] = cards
        self.ndisc[gi] += 1

    def _undo(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        self._push(gi, self.held[gi])
        self.held[gi] = -1
        self.phase[gi] = TURN_START

    def _replace(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        card = self.held[gi].copy()
        self.held[gi] = -1
        self.pending[gi] = False
        slots = self.codes.slots[act]  # [k, 4], sorted, -1 padded
        count = self.codes.count[act]
        valid = slots >= 0
        here = self.hands[gi[:, None], p[:, None], np.maximum(slots, 0)]  # [k, 4]
        ranks = self.rank[here]
        same = ((ranks == ranks[:, :1]) | ~valid).all(axis=1)
        fail = (count > 1) & ~same
        if fail.any():
            f = np.flatnonzero(fail)
            self._fail_set(gi[f], p[f], slots[f], here[f], card[f])
        ok = np.flatnonzero(~fail)
        g, pp, sl, out = gi[ok], p[ok], slots[ok], here[ok]
        self.hands[g, pp, sl[:, 0]] = card[ok]
        for j in range(MAX_SET):  # a set has at most MAX_SET slots; the rest is padding
            has = np.flatnonzero(sl[:, j] >= 0)
            if j > 0 and has.size:
                self.hands[g[has], pp[has], sl[has, j]] = -1
            if has.size:
                self._push(g[has], out[has, j])
        self._ending.append(g)

    def _fail_set(
        self, gi: IntArray, p: IntArray, slots: IntArray, here: IntArray, card: IntArray
    ) -> None:
        valid = slots >= 0
        rows = np.repeat(gi, valid.sum(axis=1))
        self.public[rows, here[valid]] = True
        keep = self.rules.failed_set == "keep_taken"
        room = self.places[gi, p] < self.hand_cap
        kept = np.flatnonzero(room) if keep else np.zeros(0, dtype=np.int64)
        if kept.size:
            g, pp = gi[kept], p[kept]
            self.hands[g, pp, self.places[g, pp]] = card[kept]
            self.places[g, pp] += 1
        lost = np.flatnonzero(~room) if keep else np.arange(gi.size)
        if lost.size:
            self._push(gi[lost], card[lost])
        self._ending.append(gi)

    def _discard(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        card = self.held[gi]
        self.held[gi] = -1
        self._push(gi, card)
        gives = self.card_powers[card] & ~self.held_disc[gi, None]
        has = gives.any(axis=1)
        self.pending[gi] = gives
        self.phase[gi[has]] = POWERS
        self._ending.append(gi[~has])

    def _use_power(self, gi: IntArray, power: int) -> None:
        self.pending[gi, power] = False
        self._ending.append(gi[~self.pending[gi].any(axis=1)])

    def _peek(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        card = self.hands[gi, p, self.codes.slots[act, 0]]
        self.known[gi, p, card] = True
        self._use_power(gi, PEEK)

    def _spy(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        target = (p + self.codes.offset[act]) % self.players
        card = self.hands[gi, target, self.codes.slots[act, 0]]
        self.known[gi, p, card] = True
        self._use_power(gi, SPY)

    def _swap(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        target = (p + self.codes.offset[act]) % self.players
        mine, theirs = self.codes.slots[act, 0], self.codes.target_slot[act]
        a = self.hands[gi, p, mine].copy()
        self.hands[gi, p, mine] = self.hands[gi, target, theirs]
        self.hands[gi, target, theirs] = a
        self._use_power(gi, SWAP)

    def _skip(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        self.pending[gi] = False
        self._ending.append(gi)

    def _call(self, gi: IntArray, p: IntArray, act: IntArray) -> None:
        self.caller[gi] = p
        self.finals[gi] = self.players
        self._ending.append(gi)

    # ------------------------------------------------------------------ turns and rounds
    def _end_turn(self, gi: IntArray) -> None:
        """The turn player's turn is over: the next seat's begins, or the round ends."""
        while gi.size:
            self.pending[gi] = False
            called = self.caller[gi] >= 0
            self.finals[gi[called]] -= 1
            last = called & (self.finals[gi] == 0)
            self._end_round(gi[last])
            gi = gi[~last]
            self.turn[gi] = (self.turn[gi] + 1) % self.players
            self.phase[gi] = TURN_START
            self.turns[gi] += 1
            gi = self._stuck(gi)

    def _stuck(self, gi: IntArray) -> IntArray:
        """Games whose turn player has no turn action pass; returns those to end the turn of
        (a whole table of passes ends the round instead)."""
        gi = gi[self.ndraw[gi] == 0]
        if gi.size == 0:
            return gi
        rules = self.rules
        p = self.turn[gi]
        has_cards = (self.hands[gi, p] >= 0).any(axis=1)
        can = (self.ndisc[gi] >= 2) | (
            (self.ndisc[gi] > 0) & (has_cards | rules.return_taken_discard)
        )
        can |= rules.call_at_turn_start & (self.caller[gi] < 0)
        self.passes[gi[can]] = 0
        gi = gi[~can]
        self.passes[gi] += 1
        full = self.passes[gi] >= self.players
        self._end_round(gi[full])
        return gi[~full]

    def _end_round(self, gi: IntArray) -> None:
        if gi.size == 0:
            return
        scores, hand_totals = self._score(gi)
        new = self.totals[gi] + scores
        self._hundred(gi, new)
        self.totals[gi] = new
        self.round_scores[gi] = scores
        self.hand_totals[gi] = hand_totals
        self.round_caller[gi] = self.caller[gi]
        self.rounds_played[gi] += 1
        self.held[gi] = -1
        self.pending[gi] = False
        self.round_ended[gi] = True
        over = self._match_over(gi)
        done = gi[over]
        self.phase[done] = MATCH_OVER
        self.match_ended[done] = True
        on = gi[~over]
        self.phase[on] = ROUND_OVER
        self._deal(on, self._next_first(on))

    def _hundred(self, gi: IntArray, new: IntArray) -> None:
        rule = self.rules.hundred_rule
        if rule == "none":
            return
        hit = new == 100
        if rule == "once":
            hit &= ~self.hundred_used[gi]
        new[hit] = self.rules.hundred_reset
        used = self.hundred_used[gi]
        used[hit] = True
        self.hundred_used[gi] = used

    def _score(self, gi: IntArray) -> tuple[IntArray, IntArray]:
        rules, n = self.rules, self.players
        hands = self.hands[gi]
        filled = hands >= 0
        vals = np.where(filled, self.values[np.maximum(hands, 0)], 0)
        totals = vals.sum(axis=2)
        scores = totals.copy()
        caller = self.caller[gi]
        seats = np.arange(n)
        lowest = totals.min(axis=1, keepdims=True)
        tied = totals == lowest
        is_caller = seats[None, :] == caller[:, None]
        if rules.lowest_scores_zero:
            zeroed = tied
            if rules.lowest_tie_caller_only:
                caller_tied = (tied & is_caller).any(axis=1)
                zeroed = np.where(caller_tied[:, None], is_caller, tied)
            scores[zeroed] = 0
        called = np.flatnonzero(caller >= 0)
        if called.size:
            self._score_caller(totals, scores, called, caller[called])
        if rules.shoot_the_moon:
            twelve = ((vals == 12) & filled).sum(axis=2)
            thirteen = ((vals == 13) & filled).sum(axis=2)
            moon = (twelve >= 2) & (thirteen >= 2)
            any_moon = moon.any(axis=1)
            scores = np.where(any_moon[:, None], np.where(moon, 0, rules.moon_points), scores)
        return scores, totals

    def _score_caller(
        self, totals: IntArray, scores: IntArray, rows: IntArray, caller: IntArray
    ) -> None:
        rules, n = self.rules, self.players
        mine_column = np.arange(n)[None, :] == caller[:, None]
        others_min = np.where(mine_column, _NO_SCORE, totals[rows]).min(axis=1)
        mine = totals[rows, caller]
        lowest = mine < others_min if rules.caller_strictly_lowest else mine <= others_min
        zero = lowest & rules.caller_lowest_scores_zero & (scores[rows, caller] != 0)
        scores[rows[zero], caller[zero]] = 0
        bad = ~lowest
        scores[rows[bad], caller[bad]] = mine[bad] * rules.caller_multiplier + rules.caller_penalty

    def _match_over(self, gi: IntArray) -> BoolArray:
        rules = self.rules
        totals = self.totals[gi]
        leaders = totals == totals.min(axis=1, keepdims=True)
        over = np.zeros(gi.size, dtype=np.bool_)
        if rules.score_limit is not None:
            over |= totals.max(axis=1) > rules.score_limit
        if rules.rounds is not None:
            fixed = ~over & (self.round_no[gi] >= rules.rounds)
            if rules.sudden_death:
                extra = fixed & (leaders.sum(axis=1) > 1) & ~self.sudden_death_played[gi]
                self.sudden_death_played[gi[extra]] = True
                fixed &= ~extra
            over |= fixed
        self.winners[gi[over]] = leaders[over]
        return over

    def _next_first(self, gi: IntArray) -> IntArray:
        n = self.players
        if self.rules.first_player == "rotate":
            return (self.first[gi] + 1) % n
        order = (self.first[gi][:, None] + np.arange(n)[None, :]) % n
        scores = np.take_along_axis(self.round_scores[gi], order, axis=1)
        return np.take_along_axis(order, scores.argmin(axis=1)[:, None], axis=1)[:, 0]

    # ------------------------------------------------------------------ knowledge
    def knowledge(self, seat: IntArray) -> BoolArray:
        """Per game, which places of every hand ``seat[g]`` knows: ``[games, players, places]``."""
        rows = self._rows
        mask = self.known[rows, seat] | self.public  # [g, c]
        hands = self.hands
        filled = hands >= 0
        return filled & mask[rows[:, None, None], np.maximum(hands, 0)]

    def memory_bytes(self) -> int:
        """The bytes of every per-game array (the state of all games)."""
        return sum(
            v.nbytes
            for v in vars(self).values()
            if isinstance(v, np.ndarray) and v.shape[:1] == (self.games,)
        )
