"""Round scoring and the end of a match, as each preset's text says, driven by ruleset fields.

Order of a round's scoring: hand totals; Shooting the Moon (Harakiri) replaces everything
else; otherwise the lowest-scores-zero rule, then the caller's reward or penalty; then the round
scores are added to the totals and the 100 rule applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add

from .results import (
    CALL_DOUBLED,
    CALL_PENALTY,
    CALLER_LOWEST,
    HUNDRED,
    LOWEST,
    MOON,
    MOON_OTHER,
    RoundResult,
)
from .rules import Ruleset
from .state import State

_LOWEST = (LOWEST,)  # a reason tuple, shared


def _score_caller(
    rules: Ruleset,
    totals: Sequence[int],
    caller: int,
    lowest: int,
    holders: int,
    scores: list[int],
    reasons: list[tuple[str, ...]],
) -> None:
    """The caller's score: zero when lowest (if the rules say so), penalised when not.
    ``lowest`` is the lowest of the totals, ``holders`` how many have it."""
    # Lowest: no other total below the caller's (strictly lowest: none equal to it either).
    caller_lowest = totals[caller] == lowest and (holders == 1 or not rules.caller_strictly_lowest)
    if caller_lowest and rules.caller_lowest_scores_zero and scores[caller] != 0:
        scores[caller] = 0
        reasons[caller] += (CALLER_LOWEST,)
    elif not caller_lowest:
        scores[caller] = totals[caller] * rules.caller_multiplier + rules.caller_penalty
        if rules.caller_multiplier != 1:
            reasons[caller] += (CALL_DOUBLED,)
        if rules.caller_penalty:
            reasons[caller] += (CALL_PENALTY,)


def _seats_with(totals: Sequence[int], total: int) -> list[int]:
    """The seats whose total is ``total`` (a helper: a comprehension reading a local of the
    caller would make that local a cell variable there, slower at every use)."""
    return [p for p, t in enumerate(totals) if t == total]


def _score_moon(
    rules: Ruleset, n: int, moon: Sequence[int]
) -> tuple[list[int], list[tuple[str, ...]]]:
    """Shooting the Moon replaces every other rule: 0 for the shooter, moon_points for all else."""
    scores = [rules.moon_points] * n
    reasons: list[tuple[str, ...]] = [(MOON_OTHER,)] * n
    for p in range(n):
        if p in moon:
            scores[p] = 0
            reasons[p] = (MOON,)
    return scores, reasons


def score_totals(
    rules: Ruleset,
    hand_totals: Sequence[int],
    caller: int,
    moon: Sequence[int],
    totals: Sequence[int],
    hundred_used: Sequence[bool],
) -> tuple[list[int], list[int], list[tuple[str, ...]], list[bool]]:
    """One round's scoring from what the reveal shows: each hand's total, the caller (-1: none),
    who shot the moon (only when the rules have it), and the match totals before the round.

    Returns the round scores, the new match totals (the 100 rule applied), each player's
    reasons and who has used the 100 rule.  The engine's rounds and the paper scoreboard
    (:func:`facedown.engine.tally`) are both scored here.
    """
    n = len(hand_totals)
    if len(totals) != n:
        raise ValueError("totals must give one number per hand total")
    # No comprehensions here: every round's end scores, and each one costs a function call.
    reasons: list[tuple[str, ...]] = [()] * n
    if moon:
        scores, reasons = _score_moon(rules, n, moon)
    else:
        scores = list(hand_totals)
        lowest = min(hand_totals)
        holders = hand_totals.count(lowest)
        if rules.lowest_scores_zero:
            if holders == 1:  # the common case: one lowest, no tie to settle
                p = hand_totals.index(lowest)
                scores[p] = 0
                reasons[p] = _LOWEST
            else:
                tied = _seats_with(hand_totals, lowest)
                for p in [caller] if rules.lowest_tie_caller_only and caller in tied else tied:
                    scores[p] = 0
                    reasons[p] = _LOWEST
        if caller >= 0:
            _score_caller(rules, hand_totals, caller, lowest, holders, scores, reasons)
    new_totals = list(map(add, totals, scores))
    used = list(hundred_used)
    rule = rules.hundred_rule
    if rule != "none" and 100 in new_totals:
        for p in range(n):
            if new_totals[p] == 100 and (rule == "always" or not used[p]):
                new_totals[p] = rules.hundred_reset
                used[p] = True
                reasons[p] += (HUNDRED,)
    return scores, new_totals, reasons, used


def score_round(game: State, caller: int) -> RoundResult:
    rules = game.rules
    value = game._tables.values  # by card id, and 0 for an empty place (-1)
    hands = game.hands
    totals: list[int] = []
    moon: list[int] = []
    floor = game._tables.moon_floor  # (out of reach when the rules have no moon)
    for hand in hands:
        total = sum(map(value, hand))
        if total >= floor:
            held = list(map(value, hand))
            # Shooting the Moon: two 12s and two 13s among the hand's values (the rarer 13s
            # counted first; an empty place's 0 is neither).
            if held.count(13) >= 2 and held.count(12) >= 2:
                moon.append(len(totals))
        totals.append(total)
    playing = game.sudden_seats() if game.sudden_death_played else ()
    if playing:
        scores, new_totals, reasons, used = score_among(
            rules, playing, totals, caller, moon, game.totals, game.hundred_used
        )
    else:
        scores, new_totals, reasons, used = score_totals(
            rules, totals, caller, moon, game.totals, game.hundred_used
        )
    return RoundResult.made(
        game.round_no,
        tuple(map(tuple, hands)),
        tuple(totals),
        tuple(scores),
        tuple(new_totals),
        caller,
        tuple(reasons),
        tuple(used),
    )


def score_among(
    rules: Ruleset,
    playing: Sequence[int],
    hand_totals: Sequence[int],
    caller: int,
    moon: Sequence[int],
    totals: Sequence[int],
    hundred_used: Sequence[bool],
) -> tuple[list[int], list[int], list[tuple[str, ...]], list[bool]]:
    """A sudden-death round is scored among the seats that play it, as if they were the whole
    table (:func:`score_totals`); the others score nothing and keep their totals."""
    part = score_totals(
        rules,
        [hand_totals[p] for p in playing],
        playing.index(caller) if caller in playing else -1,
        [playing.index(p) for p in moon if p in playing],
        [totals[p] for p in playing],
        [hundred_used[p] for p in playing],
    )
    n = len(totals)
    scores = [0] * n
    new_totals = list(totals)
    reasons: list[tuple[str, ...]] = [()] * n
    used = list(hundred_used)
    for i, p in enumerate(playing):
        scores[p] = part[0][i]
        new_totals[p] = part[1][i]
        reasons[p] = part[2][i]
        used[p] = part[3][i]
    return scores, new_totals, reasons, used


def match_end(
    rules: Ruleset,
    totals: Sequence[int],
    round_no: int,
    sudden_death_played: bool,
    playing: Sequence[int] = (),
) -> tuple[tuple[int, ...] | None, bool]:
    """The winners once the match is over (ties share), or None while it goes on; and whether
    a sudden-death round has been granted (after the fixed rounds, a tie for the lowest total
    earns exactly one more round, played by the tied alone, after which any tie among them
    stands as a draw).  ``playing``: the seats that played the sudden-death round just scored;
    the winners are the lowest of them, whatever the others' totals."""
    if playing and sudden_death_played:
        low = min(totals[p] for p in playing)
        return tuple(p for p in playing if totals[p] == low), True
    limit, rounds = rules.score_limit, rules.rounds
    over = limit is not None and max(totals) > limit
    if not over and (rounds is None or round_no < rounds):
        return None, sudden_death_played
    leaders = tuple(_seats_with(totals, min(totals)))
    if not over and rules.sudden_death and len(leaders) > 1 and not sudden_death_played:
        return None, True
    return leaders, sudden_death_played


def match_winners(game: State) -> tuple[int, ...] | None:
    """The winners once the match is over (ties share), or None while it goes on.

    Also decides a sudden-death round (see :func:`match_end`).
    """
    sudden = game.sudden_death_played
    winners, game.sudden_death_played = match_end(
        game.rules, game.totals, game.round_no, sudden, game.sudden_seats() if sudden else ()
    )
    return winners


def match_places(game: State) -> list[int]:
    """Each seat's place in the match (1 is best, equal places share): by total, lowest first;
    after a sudden-death round its players come first, among themselves by its result, and
    the seats that sat it out keep their places after them."""
    playing = game.sudden_seats()
    totals = game.totals

    def key(seat: int) -> tuple[bool, int]:
        return bool(playing) and seat not in playing, totals[seat]

    order = sorted(range(game.players), key=key)
    places = [0] * game.players
    for position, seat in enumerate(order):
        before = order[position - 1] if position else -1
        places[seat] = places[before] if before >= 0 and key(before) == key(seat) else position + 1
    return places


def next_first(game: State) -> int:
    """Who starts the next round: the next seat, or the last round's winner."""
    n = game.players
    if game.rules.first_player == "rotate":
        return (game.first + 1) % n
    scores = game.history[-1].round_scores
    low = min(scores)
    if scores.count(low) == 1:  # the common case: one lowest score, whatever the order
        return scores.index(low)
    first = game.first
    # The seats in order from the last round's starter; the first of them with the lowest score.
    order = scores[first:] + scores[:first]
    return (first + order.index(low)) % n
