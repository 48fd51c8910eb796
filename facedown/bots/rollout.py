"""A quick player for playouts inside a search: it reads a sampled game directly.

Search bots build whole games from deals they sample themselves (the real game is never seen),
then play them out.  Going through views and knowledge dictionaries would cost ten times as much,
so this policy reads the sampled :class:`~facedown.engine.Game`: each seat uses only the cards
its own knowledge mask holds there, and counts every other card at the deck's mean value.  It
plays a lean version of the `hard` heuristics (see :mod:`facedown.bots.evaluate` and
:mod:`facedown.bots.calling`) with closed-form estimates in place of sampling.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine import PLAY_PHASES, Action, Game, Phase
from ..engine import actions as A
from .calling import relative, round_scores
from .leaf import leaf_value
from .profiles import HARD, Profile

# The phases a playout meets, as module names (quicker to reach than enum members).
TURN_START, HOLDING, TAKEN = Phase.TURN_START, Phase.HOLDING, Phase.TAKEN
POWERS, TURN_END = Phase.POWERS, Phase.TURN_END

MAX_PLAYOUT_ACTIONS = 150  # after this many actions every seat calls when it can
NONE = -1e9  # the worth of an empty slot: never the one to replace
# Standard normal quantiles standing in for random draws of a hand total (deterministic).
_Z = (-1.53, -0.89, -0.49, -0.16, 0.16, 0.49, 0.89, 1.53)


class PlayoutPolicy:
    """The rollout player of every seat of a sampled game."""

    def __init__(
        self, game: Game, profile: Profile = HARD, turns: int = 0, *, calls: bool = True
    ) -> None:
        """A player for the playouts of ``game``, with the worths of ``profile``; the round
        has gone ``turns`` turns (players keep low cards: the longer, the lower the unknown
        cards of the others); with ``calls`` False nobody calls (playouts to a horizon)."""
        values = game.deck.values
        self.values = values
        self.mean = sum(values) / len(values)
        self.var = sum((v - self.mean) ** 2 for v in values) / len(values)
        self.powers = game.deck.powers
        self.rules = game.rules
        self.holding = game.rules.power_timing == "holding"
        self.profile = profile
        self.peek_value = profile.peek_value
        self.spy_value = profile.spy_value
        self.know_bonus = profile.know_bonus
        self.swap_min = profile.swap_min
        self.horizon = profile.horizon
        self.call_bias = profile.call_bias
        self.start_turns = turns
        self.calls = calls
        self.guess = self.mean  # an opponent's unknown card: set by :meth:`at_action`
        self._turn_actions = 2.5 * game.players  # actions in a turn of every seat, roughly
        self.at_action(0)
        self.ranks = game.deck.ranks
        self.sets = game.rules.set_replace
        self.tap = game.rules.tap
        self._gain: dict[float, float] = {}

    def at_action(self, n: int) -> None:
        """The playout is ``n`` actions old: estimate the others' unknown cards for that time."""
        turns = self.start_turns + int(n / self._turn_actions)
        self.guess = self.mean - self.profile.opponent_bias(turns)

    # ------------------------------------------------------------------ estimates
    def gain(self, worst: float) -> float:
        """Expected points a draw takes off a hand whose highest card is worth ``worst``."""
        found = self._gain.get(worst)
        if found is None:
            values = self.values
            found = sum(worst - v for v in values if v < worst) / len(values)
            self._gain[worst] = found
        return found

    def _own(self, game: Game, seat: int) -> list[float]:
        mask = game.known[seat] | game.public
        values, mean = self.values, self.mean
        return [
            (values[c] if (mask >> c) & 1 else mean) if c >= 0 else NONE for c in game.hands[seat]
        ]

    def _theirs(self, game: Game, seat: int, owner: int) -> list[float]:
        mask = game.known[seat] | game.public
        values, guess = self.values, self.guess
        return [
            (values[c] if (mask >> c) & 1 else guess) if c >= 0 else NONE for c in game.hands[owner]
        ]

    # ------------------------------------------------------------------ decisions
    def action(self, game: Game, seat: int, late: bool = False) -> Action:
        """The action ``seat`` takes now (``late``: the playout is long, call when possible)."""
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        phase = game.phase
        kinds = {a.kind: a for a in legal}
        if phase == TURN_START:
            if A.CALL in kinds and self._calls(game, seat, late):
                return kinds[A.CALL]
            return self._start(game, seat, kinds) or legal[0]
        if phase is HOLDING or phase is TAKEN:
            return self._keep(game, seat, kinds, legal) or legal[0]
        if phase == POWERS:
            return self._power(game, seat) or kinds.get(A.SKIP) or legal[0]
        if phase == TURN_END:
            if A.CALL in kinds and self._calls(game, seat, late):
                return kinds[A.CALL]
            return kinds.get(A.END_TURN) or legal[0]
        return legal[0]

    def taps(self, game: Game) -> None:
        """Every seat TAPs the cards it knows to match the top discard (sure hits, as `hard`
        does; never a card worth less than nothing), seats after the turn player first."""
        if not self.tap or game.phase not in PLAY_PHASES:
            return
        ranks, values, n = self.ranks, self.values, game.players
        for _ in range(4 * n):
            pile = game.discard_pile
            if not pile:
                return
            rank = ranks[pile[-1]]
            found: Action | None = None
            for i in range(1, n + 1):
                seat = (game.turn + i) % n
                mask = game.known[seat] | game.public
                for slot, c in enumerate(game.hands[seat]):
                    if c >= 0 and (mask >> c) & 1 and ranks[c] == rank and values[c] > 0:
                        found = Action(seat, A.TAP, (slot,))
                        break
                if found is not None:
                    break
            if found is None or found not in game.legal_actions(found.player):
                return
            game.apply(found)
            if game.is_round_over:
                return

    def _calls(self, game: Game, seat: int, late: bool) -> bool:
        return late or (self.calls and self._call_worth(game, seat) > 0)

    def _start(self, game: Game, seat: int, kinds: dict[str, Action]) -> Action | None:
        own = self._own(game, seat)
        draw = kinds.get(A.DRAW)
        take = kinds.get(A.TAKE_DISCARD)
        if take is None or game.top_discard < 0:
            return draw or take
        if draw is None:
            return take
        slot = _argmax(own)
        if slot < 0:
            return draw
        worst = own[slot]
        bonus = self.know_bonus if own[slot] == self.mean else 0.0
        taken = worst - self.values[game.top_discard] + bonus
        return take if taken > self.gain(worst) + 0.5 else draw

    def _keep(
        self, game: Game, seat: int, kinds: dict[str, Action], legal: tuple[Action, ...]
    ) -> Action | None:
        if game.pending:  # powers while holding: use them first
            power = self._power(game, seat)
            if power is not None:
                return power
        own = self._own(game, seat)
        slot = _argmax(own)
        held = game.held
        if self.sets:
            found = self._set(game, seat)
            if found is not None:
                return found
        if slot >= 0:
            gain = (
                own[slot] - self.values[held] + (self.know_bonus if own[slot] == self.mean else 0)
            )
            discard = 0.0
            if game.phase == HOLDING and not self.holding:
                discard = sum(self._power_worth(game, seat, p) for p in self.powers[held])
            if gain > discard or game.phase == TAKEN:
                found = Action(seat, A.REPLACE, (slot,))
                if found in legal:
                    return found
        return kinds.get(A.DISCARD)

    def _set(self, game: Game, seat: int) -> Action | None:
        """Replace known equal cards worth more than the held card, all at once."""
        mask = game.known[seat] | game.public
        by_rank: dict[str, list[int]] = {}
        for slot, c in enumerate(game.hands[seat]):
            if c >= 0 and (mask >> c) & 1:
                by_rank.setdefault(self.ranks[c], []).append(slot)
        held = self.values[game.held]
        best: tuple[float, tuple[int, ...]] | None = None
        hand = game.hands[seat]
        for slots in by_rank.values():
            if len(slots) >= 2:
                gain = sum(self.values[hand[s]] for s in slots[:4]) - held
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, tuple(slots[:4]))
        if best is None:
            return None
        found = Action(seat, A.REPLACE, best[1])
        # Sets are a rule, not in the legal list: the game says whether this one is allowed.
        return found if game.is_legal(found) else None

    def _power_worth(self, game: Game, seat: int, power: str) -> float:
        final = game.caller >= 0
        mask = game.known[seat] | game.public
        if power == A.PEEK:
            hidden = any(c >= 0 and not (mask >> c) & 1 for c in game.hands[seat])
            return self.peek_value if hidden and not final else 0.0
        if power == A.SPY:
            return 0.0 if final else self.spy_value
        swap = self._best_swap(game, seat)
        return swap[0] if swap is not None else 0.0

    def _best_swap(self, game: Game, seat: int) -> tuple[float, int, int, int] | None:
        own = self._own(game, seat)
        slot = _argmax(own)
        if slot < 0:
            return None
        best: tuple[float, int, int, int] | None = None
        relative_gain = 1.0 + 1.0 / (game.players - 1)
        for o in range(game.players):
            if o == seat:
                continue
            for ts, v in enumerate(self._theirs(game, seat, o)):
                if v > NONE:
                    gain = (own[slot] - v) * relative_gain
                    if gain >= self.swap_min and (best is None or gain > best[0]):
                        best = (gain, slot, o, ts)
        return best

    def _power(self, game: Game, seat: int) -> Action | None:  # noqa: C901 - a playout hot loop, kept as is
        pending = game.pending
        mask = game.known[seat] | game.public
        final = game.caller >= 0
        if A.SWAP in pending:
            swap = self._best_swap(game, seat)
            if swap is not None:
                return Action(seat, A.SWAP, (swap[1],), swap[2], swap[3])
        if final:
            return None
        if A.PEEK in pending:
            for slot, c in enumerate(game.hands[seat]):
                if c >= 0 and not (mask >> c) & 1:
                    return Action(seat, A.PEEK, (slot,))
        if A.SPY in pending:
            for i in range(1, game.players):
                o = (seat + i) % game.players
                for ts, c in enumerate(game.hands[o]):
                    if c >= 0 and not (mask >> c) & 1:
                        return Action(seat, A.SPY, (ts,), o)
        return None

    def _call_worth(self, game: Game, seat: int) -> float:
        """:func:`facedown.bots.calling.call_worth` in closed form: totals spread over fixed
        quantiles instead of sampled deals."""
        n = game.players
        values, mean, guess, var = self.values, self.mean, self.guess, self.var
        mask = game.known[seat] | game.public
        means: list[float] = []
        sds: list[float] = []
        gains: list[float] = []
        for o in range(n):
            unknown = mean if o == seat else guess
            total = 0.0
            hidden = 0
            worst = NONE
            for c in game.hands[o]:
                if c < 0:
                    continue
                v: float
                if (mask >> c) & 1:
                    v = values[c]
                else:
                    v = unknown
                    hidden += 1
                total += v
                if v > worst:
                    worst = v
            means.append(total)
            sds.append((hidden * var) ** 0.5)
            gains.append(self.gain(worst) if worst > NONE else 0.0)
        # A quick refusal: far from the lowest total even in a good case, calling cannot pay.
        best_other = min(means[o] - gains[o] for o in range(n) if o != seat)
        if means[seat] - 1.2 * sds[seat] > best_other + 1.2 * max(sds) + self.call_bias:
            return -1.0
        h = self.horizon
        rules = self.rules
        now = later = 0.0
        for k in range(len(_Z)):
            totals = [means[o] + _Z[(k + 3 * o) % 8] * sds[o] for o in range(n)]
            called = [t - (gains[o] if o != seat else 0.0) for o, t in enumerate(totals)]
            on = [t - h * gains[o] for o, t in enumerate(totals)]
            now += relative(round_scores(rules, called, seat), seat)
            later += relative(round_scores(rules, on, -1), seat)
        return (later - now) / len(_Z) + self.call_bias


def _argmax(values: list[float]) -> int:
    best, slot = NONE, -1
    for i, v in enumerate(values):
        if v > best:
            best, slot = v, i
    return slot


def play_out(game: Game, policy: PlayoutPolicy, max_actions: int = 4 * MAX_PLAYOUT_ACTIONS) -> bool:
    """Play the round of ``game`` to its end with ``policy`` at every seat (taps included).

    Returns False when the round did not end within ``max_actions``.
    """
    for n in range(max_actions):
        policy.taps(game)
        if game.is_round_over:
            return True
        if n % 8 == 0:
            policy.at_action(n)
        game.apply(policy.action(game, game.turn, late=n >= MAX_PLAYOUT_ACTIONS))
    return game.is_round_over


def play_turns(game: Game, policy: PlayoutPolicy, seat: int, turns: int) -> None:
    """Play on until ``seat`` is to begin its ``turns``-th turn from now, or the round ends."""
    started = 0
    was_start = game.phase == TURN_START and game.turn == seat
    for n in range(4 * MAX_PLAYOUT_ACTIONS):
        policy.taps(game)
        if game.is_round_over:
            return
        at_start = game.phase == TURN_START and game.turn == seat
        if at_start and not was_start:
            started += 1
            if started >= turns:
                return
        was_start = at_start
        if n % 8 == 0:
            policy.at_action(n)
        game.apply(policy.action(game, game.turn, late=n >= MAX_PLAYOUT_ACTIONS))


# How a horizon playout is scored: linear weights (:mod:`facedown.bots.leaf`), a function of
# the sampled game and the seat (a learned value), or None (the hand totals).
Leaf = tuple[float, ...] | Callable[[Game, int], float] | None


def playout_score(
    game: Game,
    policy: PlayoutPolicy,
    seat: int,
    horizon: int | None,
    leaf: Leaf = None,
) -> float:
    """How the sampled ``game`` turns out for ``seat`` (lower is better): its round score minus
    the others' mean at the end of the round; with a ``horizon`` of turns, if the round goes on,
    :func:`~facedown.bots.leaf.leaf_value` with the weights ``leaf`` (or ``leaf(game, seat)``
    when it is a function: a learned value), or without them the same difference of the hand
    totals then."""
    if horizon is None:
        finished = play_out(game, policy)
        return relative(game.history[-1].round_scores, seat) if finished else 0.0
    play_turns(game, policy, seat, horizon)
    if game.is_round_over:
        return relative(game.history[-1].round_scores, seat)
    if callable(leaf):
        return leaf(game, seat)
    if leaf is not None:
        return leaf_value(game, seat, leaf)
    return relative([game.hand_total(p) for p in range(game.players)], seat)
