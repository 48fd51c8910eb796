"""When to call: compare ending the round now with playing on, in sampled deals.

Calling now: every opponent gets one more turn, then the hands are scored with the bot as caller.
Playing on: the round goes on for ``horizon`` more turns in which everyone improves by their
expected gain per turn, then it is scored without a caller.  Both are judged by the bot's round
score minus the mean of the others' (lower is better), under the ruleset's scoring fields.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine import Ruleset
from .belief import Belief
from .evaluate import Evaluator
from .profiles import Profile


def round_scores(rules: Ruleset, totals: Sequence[float], caller: int) -> list[float]:
    """The round scores that hand ``totals`` would give (``caller`` -1: nobody called).

    The scoring fields of the ruleset, as the engine applies them, less Shooting the Moon.
    """
    scores = list(totals)
    if rules.lowest_scores_zero:
        lowest = min(totals)
        if rules.lowest_tie_caller_only and caller >= 0 and totals[caller] == lowest:
            scores[caller] = 0.0
        else:
            for p, t in enumerate(totals):
                if t == lowest:
                    scores[p] = 0.0
    if caller >= 0:
        others = min(t for p, t in enumerate(totals) if p != caller)
        mine = totals[caller]
        lowest_caller = mine < others if rules.caller_strictly_lowest else mine <= others
        if lowest_caller and rules.caller_lowest_scores_zero:
            scores[caller] = 0.0
        elif not lowest_caller:
            scores[caller] = mine * rules.caller_multiplier + rules.caller_penalty
    return scores


def relative(scores: Sequence[float], seat: int) -> float:
    """A seat's round score minus the mean of the others' (lower is better)."""
    mine = scores[seat]
    return mine - (sum(scores) - mine) / (len(scores) - 1)


def gain_per_turn(belief: Belief, owner: int) -> float:
    """What a player is expected to take off their hand in one turn: drawing against their
    highest card as the bot estimates it."""
    places = belief.theirs(owner)
    if not places or not belief.pool:
        return 0.0
    worst = max(belief.est(p) for p in places)
    values = [belief.value(n) for n in belief.pool]
    return sum(max(0.0, worst - v) for v in values) / len(values)


def call_worth(
    belief: Belief, rules: Ruleset, evaluator: Evaluator, profile: Profile, rng: random.Random
) -> float:
    """How much better calling now is than playing on (above 0: call)."""
    seat = belief.seat
    mine = evaluator.draw_worth(with_powers=False)
    theirs = {o: gain_per_turn(belief, o) for o in belief.others}
    h = profile.horizon
    now = later = 0.0
    worlds = belief.sample_totals(rng, profile.samples)
    for totals in worlds:
        called = list(totals)
        on = list(totals)
        on[seat] -= h * mine
        for o, g in theirs.items():
            called[o] -= g
            on[o] -= h * g
        now += relative(round_scores(rules, called, seat), seat)
        later += relative(round_scores(rules, on, -1), seat)
    return (later - now) / len(worlds) + profile.call_bias
