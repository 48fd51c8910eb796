"""The `expert` level: determinized search over the deals consistent with what it knows.

For a decision with several sensible options, the bot deals sampled games
(:class:`~facedown.bots.determinize.Sampler`), and in each one plays every candidate action followed
by a quick playout (:class:`~facedown.bots.rollout.PlayoutPolicy`) at every seat, TAPs included,
for ``horizon_turns`` of its own turns (default 2; None: to the end of the round).  It scores a
playout by the round scores when the round ended, otherwise by a value of the table fitted to how
rounds of `hard` end (:mod:`facedown.bots.leaf`; where none is fitted, by the hand totals).
All candidates meet the same deals and the same playout randomness, so their differences are
measured in pairs.  An opponent's unknown card is dealt lower the longer the round has gone on
(players keep their low cards; :func:`keep_low_per_turn`), and an opponent knows more of its
own cards the more turns it has played (:func:`opponent_knows_at`): the cards it knows are the
ones it kept, dealt low; the others are dealt as any unseen card (where the bot is given its
seat's events, which cards each opponent knows is followed from them instead,
:mod:`facedown.bots.aware`).  It keeps the `hard` choice unless
another candidate scored better by a margin the samples make clear, and stops at its iteration
budget or 3% short of its time budget (default 200 ms), which leaves room for a playout that
runs long.

A few turns cannot weigh ending the round, so when the bot may call it first searches that
alone: the call against the best other move, each played out to the end of the round (nobody
calls within a horizon playout).  Short playouts are less noisy than whole rounds, so the
budget buys more deals: in 2-player cabo that beat full playouts.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Collection
from typing import Any, ClassVar

from ..engine import PLAY_PHASES, Action, Phase
from ..engine import actions as A
from .base import SeatInfo
from .belief import Belief
from .determinize import Sampler
from .evaluate import Evaluator
from .heuristic import HeuristicBot
from .kept import KeptCards
from .leaf import leaf_weights
from .profiles import HARD, Profile
from .rollout import Leaf, PlayoutPolicy, playout_score

RESERVE = 0.03  # the part of the time budget kept back from the search


def keep_low_per_turn(players: int) -> float:
    """How many more unseen cards an opponent's unknown card is the lowest of, per turn played.

    Players keep their low cards, so the cards of an opponent nobody else knows get lower as the
    round goes on, by more at fuller tables (more turns go by between one's own turns).  Measured
    with ``benchmarks/sampler_bias.py`` against `hard`: see docs/bots.md.
    """
    return 0.45 + 0.175 * min(2, max(0, players - 2))


# How much of its hand a player knows at the start of its turn, by the turns it has played:
# the part of its own cards a `hard` player knows, 2-player kivo, 600 rounds (the other presets
# and 4 seats are within 0.05 up to turn 6; kaboom 2 seats and boyo lower after).
KNOWN_BY_TURN = (0.49, 0.51, 0.59, 0.70, 0.79, 0.85, 0.89, 0.93, 0.95, 0.96)


def opponent_knows_at(turns: int) -> float:
    """The chance that an opponent who has played ``turns`` turns knows one of its cards."""
    return KNOWN_BY_TURN[max(0, min(turns, len(KNOWN_BY_TURN) - 1))]


class ExpertBot:
    """A search player of one seat for one match."""

    # It uses its whole budget of CPU per move: a server lets it choose in a worker process
    # (facedown/server/play/thinking.py), and it must pickle.
    thinks_long: ClassVar[bool] = True

    def __init__(
        self,
        seed: int | None = None,
        *,
        budget_ms: float = 200.0,
        iterations: int | None = None,
        max_candidates: int = 4,
        confidence: float = 1.5,
        min_worlds: int = 6,
        opponent_knows: float | None = None,
        search_phases: Collection[Phase] = PLAY_PHASES,
        horizon_turns: int | None = 2,
        search_calls: bool = True,
        call_window: float = 4.0,
        new_call_confidence: float | None = 1.5,
        keep_low: float | None = None,
        leaf: bool = True,
        track_events: bool = False,
        kept: KeptCards | None = None,
        profile: Profile = HARD,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        """``budget_ms`` of thinking per decision (0: none) and/or ``iterations`` sampled deals;
        at most ``max_candidates`` options; another option than the heuristic's needs a mean
        better by ``confidence`` standard errors over at least ``min_worlds`` deals; an
        opponent is dealt knowing each of its cards with probability ``opponent_knows``
        (None: by its turns, :func:`opponent_knows_at`);
        ``search_phases`` are the phases searched; ``horizon_turns`` as in the module doc;
        ``search_calls``: search whether to call (False: call as the heuristic does), when the
        heuristic's worth of calling is within ``call_window`` points of calling;
        ``new_call_confidence``: the standard errors by which a call the heuristic would not
        make must beat its move (None: the search never calls where the heuristic would not,
        it only holds back the heuristic's calls);
        ``keep_low``: how fast the opponents' unknown cards are dealt lower as the round goes
        on (see :meth:`sampler`; None: by the number of seats); ``leaf``: score a playout
        that stops at its horizon with the fitted values of :mod:`facedown.bots.leaf`;
        ``track_events``: where it was given the round's events, deal the opponents knowing
        the cards the events showed them (False, the default: by ``opponent_knows`` as without
        events; followed, it did no better against ``hard`` in the ladder, docs/bots.md);
        ``kept``: where it follows the events, deal an opponent's known card as low as this
        fitted model says of such a card (:mod:`facedown.bots.kept`: chosen or looked at, kept
        how long; None: by ``keep_low``);
        ``profile`` is the heuristic it starts from and plays out with; ``clock`` (seconds)
        measures the budget (tests pass one they control)."""
        if budget_ms <= 0 and iterations is None:
            raise ValueError("expert needs a time budget or an iteration budget")
        self.budget = budget_ms / 1000.0
        self.clock = clock
        self.iterations = iterations
        self.max_candidates = max_candidates
        self.confidence = confidence
        self.min_worlds = min_worlds
        self.opponent_knows = opponent_knows
        self.search_phases = search_phases
        self.horizon_turns = horizon_turns
        self.search_calls = search_calls
        self.call_window = call_window
        self.new_call_confidence = new_call_confidence
        self.keep_low = keep_low
        self.leaf = leaf
        self.base = HeuristicBot(profile, seed)
        self.track_events = track_events
        self.kept = kept
        self.rng = random.Random(seed)
        self._rules_json: dict[str, Any] | None = None
        # The last decision's heuristic choice and sampled deals (tests, tuning).
        self.last_default: Action | None = None
        self.last_worlds = 0

    @property
    def track_events(self) -> bool:
        """Whether it follows the events and deals by them: its memory's ``follow_events``,
        the one place that says it."""
        return self.base.memory.follow_events

    @track_events.setter
    def track_events(self, follow: bool) -> None:
        self.base.memory.follow_events = follow

    @property
    def reads_events(self) -> bool:
        """It reads ``info.events`` only when it follows them (``track_events``)."""
        return self.track_events

    def react(self, info: SeatInfo) -> Action | None:
        return self.base.react(info)

    def choose(self, info: SeatInfo) -> Action:
        start = self.clock()
        # The search ends a little before the budget does: a playout may run longer than the
        # longest so far, and the answer has to get back.
        end = start + self.budget * (1.0 - RESERVE) if self.budget > 0 else math.inf
        self.last_worlds = 0
        default = self.base.choose(info)
        self.last_default = default
        phase = info.view.phase
        if len(info.legal) == 1 or phase not in self.search_phases or default.kind == A.TAP:
            return default
        if default.kind == A.CALL and self.base.turns >= self.base.profile.max_turns:
            return default  # the round has gone on long enough: the heuristic's call stands
        candidates = self._candidates(info, default)
        horizon = self.horizon_turns
        if horizon is not None:
            # A few turns cannot weigh ending the round: whether to call is searched first,
            # the call against the best other move, with playouts to the end of the round.
            call = next((a for a in info.legal if a.kind == A.CALL), None)
            others = [a for a in candidates if a.kind != A.CALL]
            worth = self.base.call_worth
            # How sure the search must be to change the heuristic's mind about calling (None:
            # it never calls where the heuristic would not, it only holds back its calls).
            confidence = self.confidence if default.kind == A.CALL else self.new_call_confidence
            plausible = worth is None or worth > -self.call_window
            searched = self.search_calls
            if call is not None and searched and others and plausible and confidence is not None:
                pair = [call, others[0]] if default.kind == A.CALL else [default, call]
                half = start + (end - start) / 2
                if self._search(info, pair, half, None, confidence).kind == A.CALL:
                    self.base.memory.last_action = call
                    return call
            elif default.kind == A.CALL:
                return default
            candidates = others
        if len(candidates) < 2:
            best = candidates[0] if candidates else default
        else:
            best = self._search(info, candidates, end, horizon, self.confidence)
        self.base.memory.last_action = best
        return best

    # ------------------------------------------------------------------ candidates
    def _candidates(self, info: SeatInfo, default: Action) -> list[Action]:
        """The default first, then the sensible alternatives (at most ``max_candidates``)."""
        base = self.base
        belief = base.belief(info)
        ev = Evaluator(belief, info.rules, base.profile)
        legal = set(info.legal)
        seat = info.seat
        scored: list[tuple[float, Action]] = []
        mine = belief.mine()
        held = belief.held
        for kind in (A.DRAW, A.TAKE_DISCARD, A.CALL, A.END_TURN, A.SKIP, A.DISCARD):
            action = Action(seat, kind)
            if action in legal:
                scored.append((0.0, action))
        if held is not None:
            x = belief.value(held)
            for place in mine:
                scored.append((belief.est(place) - x, Action(seat, A.REPLACE, (place[1],))))
            for _, slots in ev.sets:
                scored.append((1e3, Action(seat, A.REPLACE, slots)))
        scored += _power_candidates(belief, seat, info.view.powers)
        scored.sort(key=lambda t: -t[0])
        out = [default]
        for _, action in scored:
            if len(out) >= self.max_candidates:
                break
            if info.allows(action) and action not in out:
                out.append(action)
        return out

    # ------------------------------------------------------------------ search
    def sampler(self, info: SeatInfo) -> Sampler:
        """The deals this bot searches over at ``info`` (after it has observed ``info``)."""
        if self._rules_json is None:
            self._rules_json = info.rules.to_json()
        per_turn = self.keep_low
        if per_turn is None:
            per_turn = keep_low_per_turn(len(info.view.hands))
        return Sampler(
            info,
            self.base.memory,
            self._rules_json,
            opponent_knows=(
                self.opponent_knows
                if self.opponent_knows is not None
                else opponent_knows_at(self.base.turns - 1)
            ),
            keep_low=per_turn * max(0, self.base.turns - 1),
            track_events=self.track_events,
            lowest_of=(
                self.kept.lowest_of(info.rules.name, len(info.view.hands))
                if self.kept is not None
                else None
            ),
        )

    def leaf_value(self, info: SeatInfo) -> Leaf:
        """How a playout that stops at its horizon is scored: the fitted linear weights of
        :mod:`facedown.bots.leaf` (None: by the hand totals).  The `learned` level gives a
        network's value instead (:mod:`facedown.bots.learned`)."""
        return leaf_weights(info.rules.name, len(info.view.hands)) if self.leaf else None

    def _search(
        self,
        info: SeatInfo,
        candidates: list[Action],
        deadline: float,
        horizon: int | None,
        confidence: float,
    ) -> Action:
        sampler = self.sampler(info)
        seat = info.seat
        n = len(candidates)
        sums = [0.0] * n
        diffs = [0.0] * n  # paired against the default: sum of differences and of squares
        squares = [0.0] * n
        worlds = 0
        # The longest playout so far: one that could not end by the deadline is not begun.
        longest = 0.0
        policy: PlayoutPolicy | None = None
        leaf = self.leaf_value(info)
        while (self.iterations is None or worlds < self.iterations) and (self.clock() < deadline):
            game = sampler.sample(self.rng)
            if policy is None:
                # To a horizon nobody calls: the outcome is the hands then, not a guess at
                # how the playout policy's calls would have been scored.
                calls = horizon is None
                policy = PlayoutPolicy(game, self.base.profile, self.base.turns, calls=calls)
            playout_seed = self.rng.getrandbits(30)
            outcome: list[float] = []
            for action in candidates:
                begun = self.clock()
                if begun + longest >= deadline:
                    break  # out of time: this deal is left unfinished and uncounted
                trial = game.clone()
                trial.seed = playout_seed  # the same reshuffles for every candidate
                trial.apply(action)
                outcome.append(playout_score(trial, policy, seat, horizon, leaf))
                longest = max(longest, self.clock() - begun)
            if len(outcome) < n:
                break
            worlds += 1
            for i, value in enumerate(outcome):
                sums[i] += value
                d = value - outcome[0]
                diffs[i] += d
                squares[i] += d * d
        self.last_worlds = worlds
        best = 0
        for i in range(1, n):
            if worlds < max(2, self.min_worlds):
                break
            mean = diffs[i] / worlds
            var = max(0.0, squares[i] / worlds - mean * mean)
            margin = confidence * math.sqrt(var / worlds)
            if mean < -margin and sums[i] < sums[best]:
                best = i
        return candidates[best]


def _power_candidates(
    belief: Belief, seat: int, pending: tuple[str, ...]
) -> list[tuple[float, Action]]:
    """The pending powers' sensible uses, scored: a peek at an own unknown card, a spy on each
    opponent's first unknown card, swaps of the two highest own cards for each opponent's
    lowest known and lowest unknown card."""
    scored: list[tuple[float, Action]] = []
    if A.PEEK in pending:
        unknown = belief.unknown_mine()
        if unknown:
            scored.append((1.0, Action(seat, A.PEEK, (unknown[0][1],))))
    if A.SPY in pending:
        for owner in belief.others:
            hidden = [p for p in belief.theirs(owner) if not belief.is_known(p)]
            if hidden:
                scored.append((0.5, Action(seat, A.SPY, (hidden[0][1],), owner)))
    if A.SWAP in pending:
        high = sorted(belief.mine(), key=belief.est, reverse=True)[:2]
        for owner in belief.others:
            places = belief.theirs(owner)
            low = sorted(places, key=lambda p: (not belief.is_known(p), belief.est(p)))
            picks = [p for p in low if belief.is_known(p)][:1]
            picks += [p for p in low if not belief.is_known(p)][:1]
            for own in high:
                for theirs in picks:
                    gain = belief.est(own) - belief.est(theirs)
                    scored.append((gain, Action(seat, A.SWAP, (own[1],), owner, theirs[1])))
    return scored
