"""Scoreboard cases: paper rounds worked by hand from a rule text, checked against the engine.

A case names a preset (and options), the players, optionally placement points, and its rounds
as the players would read them off the table (hand totals, who called, who shot the moon), with
the round scores and totals the rule text gives by hand.  :func:`run_case` scores the rounds with
:func:`facedown.engine.tally` and reports the first difference.  The format is in
``docs/scoreboard.md``; the files are in ``scoreboards/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import PaperRound, Placement, RulesetError, Tally, TallyError, make_ruleset, tally


class CaseError(Exception):
    """The case file is malformed, or what the engine scored differs from it."""


@dataclass(frozen=True)
class CaseOutcome:
    name: str
    passed: bool
    failure: str | None = None


def run_case(data: Mapping[str, Any]) -> CaseOutcome:
    """Score a case's rounds and compare every expectation."""
    name = str(data.get("name", "unnamed"))
    try:
        _check(data)
    except CaseError as e:
        return CaseOutcome(name, False, str(e))
    return CaseOutcome(name, True)


def _names(data: Mapping[str, Any]) -> list[str]:
    players = data.get("players")
    if not isinstance(players, list) or len(set(players)) != len(players) or len(players) < 2:
        raise CaseError("'players' must be a list of at least two distinct names")
    return [str(p) for p in players]


def _who(names: list[str], value: object) -> int:
    if value is None:
        return -1
    if value not in names:
        raise CaseError(f"unknown player {value!r}")
    return names.index(str(value))


def _paper(names: list[str], entry: Mapping[str, Any]) -> PaperRound:
    hands = entry.get("hands")
    if not isinstance(hands, Mapping) or sorted(hands) != sorted(names):
        raise CaseError("each round's 'hands' gives every player's hand total")
    return PaperRound(
        hand_totals=tuple(int(hands[n]) for n in names),
        caller=_who(names, entry.get("caller")),
        moon=_who(names, entry.get("moon")),
    )


def _by_name(names: list[str], values: Sequence[int] | None) -> dict[str, int] | None:
    return None if values is None else dict(zip(names, values, strict=True))


def _check(data: Mapping[str, Any]) -> None:
    names = _names(data)
    try:
        rules = make_ruleset(str(data.get("preset")), data.get("options") or None)
    except RulesetError as e:
        raise CaseError(f"bad case: {e}") from None
    raw = data.get("placement")
    placement = None if raw is None else Placement(tuple(raw["points"]), int(raw["rounds"]))
    entries = data.get("rounds")
    if not isinstance(entries, list) or not entries:
        raise CaseError("'rounds' must be a non-empty list")
    papers = [_paper(names, entry) for entry in entries]
    refused = data.get("error")
    try:
        board = tally(rules, len(names), papers, placement)
    except TallyError as e:
        if refused is not None and str(refused) in str(e):
            return
        raise CaseError(f"the engine refused the rounds: {e}") from None
    if refused is not None:
        raise CaseError(f"the rounds were scored, but the case expects the refusal {refused!r}")
    for entry, scored in zip(entries, board.rounds, strict=True):
        actual = {
            "scores": _by_name(names, scored.round_scores),
            "totals": _by_name(names, scored.totals),
            "places": _by_name(names, scored.places),
            "points": _by_name(names, scored.points),
        }
        for key, value in actual.items():
            if key in entry and entry[key] != value:
                raise CaseError(f"round {scored.number}: {key} {value}, expected {entry[key]}")
    _check_result(names, data.get("result", {}), board)


def _check_result(names: list[str], expected: Mapping[str, Any], board: Tally) -> None:
    actual = {
        "over": board.over,
        "winners": [names[p] for p in board.winners],
        "next_sudden_death": board.next_sudden_death,
    }
    for key, value in actual.items():
        if key in expected and expected[key] != value:
            raise CaseError(f"result: {key} {value}, expected {expected[key]}")
