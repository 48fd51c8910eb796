"""The heuristic player behind the `easy`, `medium` and `hard` levels.

Each decision: remember what the seat sees (:class:`~facedown.bots.memory.Memory`), estimate the
table (:class:`~facedown.bots.belief.Belief`), put a worth on every option
(:class:`~facedown.bots.evaluate.Evaluator`) and take the best one.  A TAP is made only for a card
the bot remembers to match the top discard; a set is attempted only when the bot knows the cards
are equal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import Action, Phase
from ..engine import actions as A
from .base import SeatInfo
from .belief import Belief
from .calling import call_worth
from .cardbook import card_book
from .evaluate import Evaluator
from .memory import Memory
from .profiles import HARD, Profile


class HeuristicBot:
    """A player of one seat for one match, with the failings its :class:`Profile` gives it."""

    def __init__(self, profile: Profile = HARD, seed: int | None = None) -> None:
        self.profile = profile
        self.rng = random.Random(seed)
        self.memory = Memory(profile.forget, self.rng)
        self.turns = 0  # own turns in this round
        self._last_phase: Phase | None = None
        self._tap_chance: tuple[object, ...] = ()
        self._tap_seen = True
        # The worth of calling at the last decision where the bot could call (None: it could
        # not, or it called for having played max_turns): what a search starts from.
        self.call_worth: float | None = None

    @property
    def reads_events(self) -> bool:
        """It reads ``info.events`` only when its memory follows them (the expert's option)."""
        return self.memory.follow_events

    # ------------------------------------------------------------------ the Bot protocol
    def choose(self, info: SeatInfo) -> Action:
        self._observe(info)
        self.call_worth = None
        action = self._decide(info) if len(info.legal) > 1 else info.legal[0]
        self.memory.last_action = action
        self._last_phase = info.view.phase
        return action

    def react(self, info: SeatInfo) -> Action | None:
        """Out of turn: TAP a card the bot remembers to match the top discard, or wait."""
        if not any(a.kind == A.TAP for a in info.legal):
            return None
        self._observe(info)
        return self._tap(info, self.belief(info))

    def watch(self, info: SeatInfo) -> None:
        """Between decisions: remember what the seat sees now (the Watcher protocol)."""
        self._observe(info)

    # ------------------------------------------------------------------ thinking
    def _observe(self, info: SeatInfo) -> None:
        if info.view.round != self.memory.round:  # a new round: count turns afresh
            self.turns = 0
            self._last_phase = None
        self.memory.observe(info)

    def belief(self, info: SeatInfo) -> Belief:
        p = self.profile
        return Belief(
            info,
            self.memory,
            card_book(info.rules),
            track_pile=p.track_pile,
            opp_bias=p.opponent_bias(self.turns),
            swap_bias=p.swap_bias,
        )

    def _noisy(self, worth: float) -> float:
        sd = self.profile.noise
        return worth + self.rng.gauss(0.0, sd) if sd > 0 else worth

    def _decide(self, info: SeatInfo) -> Action:
        phase = info.view.phase
        legal = info.legal
        if phase is Phase.OPENING:
            return legal[0]
        if phase.is_over:
            return _first(legal, A.NEXT_ROUND) or legal[0]
        # A new turn, unless we come back to its start: after a TAP, or an undone take.
        if phase is Phase.TURN_START and self._last_phase not in (
            Phase.TURN_START,
            Phase.TAKEN,
        ):
            self.turns += 1
            self.memory.forget_some()
        belief = self.belief(info)
        tap = self._tap(info, belief)
        if tap is not None:
            return tap
        ev = Evaluator(belief, info.rules, self.profile)
        if phase is Phase.TURN_START:
            action = self._turn_start(info, belief, ev)
        elif phase is Phase.HOLDING:
            action = self._holding(info, belief, ev)
        elif phase is Phase.TAKEN:
            action = self._taken(info, belief, ev)
        elif phase is Phase.POWERS:
            action = self._power(info, belief, ev) or _first(legal, A.SKIP)
        else:  # turn_end
            action = self._call(info, belief, ev) or _first(legal, A.END_TURN)
        return action if action is not None and info.allows(action) else _fallback(legal)

    def _tap(self, info: SeatInfo, belief: Belief) -> Action | None:
        top = belief.top
        taps = {a.slot: a for a in info.legal if a.kind == A.TAP}
        if top is None or not taps:
            return None
        rank = belief.book.ranks[top]
        best: tuple[int, int] | None = None
        for place in belief.mine():
            name = belief.known.get(place)
            if name is None or belief.book.ranks[name] != rank or place[1] not in taps:
                continue
            value = belief.value(name)
            if value > 0 and (best is None or value > best[0]):
                best = (value, place[1])
        if best is None:
            return None
        # One chance per discard: a player who overlooked it does not notice it later.
        chance = (belief.top, info.view.discard_size, info.view.round)
        if chance != self._tap_chance:
            self._tap_chance = chance
            self._tap_seen = self.rng.random() >= self.profile.tap_miss
        return taps[best[1]] if self._tap_seen else None

    def _call(self, info: SeatInfo, belief: Belief, ev: Evaluator) -> Action | None:
        call = _first(info.legal, A.CALL)
        if call is None:
            return None
        if self.turns >= self.profile.max_turns:
            return call
        worth = call_worth(belief, info.rules, ev, self.profile, self.rng)
        self.call_worth = worth
        if self.profile.call_noise > 0:
            worth += self.rng.gauss(0.0, self.profile.call_noise)
        return call if worth > 0 else None

    def _turn_start(self, info: SeatInfo, belief: Belief, ev: Evaluator) -> Action | None:
        call = self._call(info, belief, ev)
        if call is not None:
            return call
        draw = _first(info.legal, A.DRAW)
        take = _first(info.legal, A.TAKE_DISCARD)
        if take is not None and belief.top is not None:
            keep = ev.best_replace(belief.value(belief.top))
            take_worth = self._noisy(keep.gain) if keep is not None else 0.0
            if draw is None or take_worth > max(0.0, self._noisy(ev.draw_worth())):
                return take
        return draw or take

    def _holding(self, info: SeatInfo, belief: Belief, ev: Evaluator) -> Action | None:
        held = belief.held
        if held is None:
            return None
        if info.view.powers:  # powers while holding: use them first, then decide
            power = self._power(info, belief, ev)
            if power is not None:
                return power
            discard_worth = 0.0
        else:
            discard_worth = ev.powers_worth(belief.book.powers[held])
        keep = ev.best_replace(belief.value(held))
        if keep is not None and self._noisy(keep.gain) > self._noisy(discard_worth):
            return Action(info.seat, A.REPLACE, keep.slots)
        return _first(info.legal, A.DISCARD)

    def _taken(self, info: SeatInfo, belief: Belief, ev: Evaluator) -> Action | None:
        held = belief.held
        keep = ev.best_replace(belief.value(held)) if held is not None else None
        if keep is not None:
            return Action(info.seat, A.REPLACE, keep.slots)
        return _first(info.legal, A.DISCARD) or _first(info.legal, A.REPLACE)

    def _power(self, info: SeatInfo, belief: Belief, ev: Evaluator) -> Action | None:
        """The most useful power action available now (None: none is worth it)."""
        pending = info.view.powers
        best: tuple[float, Action] | None = None
        for power in pending:
            worth = ev.power_worth(power)
            if worth <= 0:
                continue
            action = self._power_action(info, belief, ev, power)
            if action is not None and (best is None or worth > best[0]):
                best = (worth, action)
        if best is None:
            return None
        action = best[1]
        if action.kind == A.PEEK:
            self.memory.look_again((info.seat, action.slot))
        elif action.kind == A.SPY:
            self.memory.look_again((action.target, action.slot))
        return action

    def _power_action(
        self, info: SeatInfo, belief: Belief, ev: Evaluator, power: str
    ) -> Action | None:
        seat = info.seat
        if power == A.PEEK:
            unknown = belief.unknown_mine()
            if not unknown:
                return None
            place = max(unknown, key=lambda p: (p in belief.suspect, -p[1]))
            return Action(seat, A.PEEK, (place[1],))
        if power == A.SPY:
            targets = [o for o in belief.others if belief.unknown_count(o)]
            if not targets:
                return None
            owner = min(targets, key=belief.total)  # the likeliest to win: know them best
            slot = next(p[1] for p in belief.theirs(owner) if not belief.is_known(p))
            return Action(seat, A.SPY, (slot,), owner)
        swap = ev.best_swap()
        if swap is None:
            return None
        return Action(seat, A.SWAP, (swap.slot,), swap.target, swap.target_slot)


def _first(legal: Sequence[Action], kind: str) -> Action | None:
    for action in legal:
        if action.kind == kind:
            return action
    return None


def _fallback(legal: Sequence[Action]) -> Action:
    """A safe legal action when no option was judged: never a TAP out of the blue."""
    for kind in (A.END_TURN, A.SKIP, A.DRAW, A.DISCARD, A.NEXT_ROUND):
        found = _first(legal, kind)
        if found is not None:
            return found
    return next((a for a in legal if a.kind != A.TAP), legal[0])
