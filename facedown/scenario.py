"""The scenario runner: stacked decks, actions and expected results.

The format is ``docs/scenarios.md``.

:func:`run_scenario` takes a scenario's parsed JSON and returns an outcome: passed or the first
difference, and a record of what actually happened (``facedown scenario --json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import (
    Action,
    Game,
    IllegalAction,
    Phase,
    Reveal,
    StackedDeal,
    make_ruleset,
    seen_event,
    view,
)
from .engine.cards import Deck


class ScenarioError(Exception):
    """The scenario file itself is malformed (not a rules failure)."""


class Mismatch(Exception):
    """What the engine did differs from what the scenario expects."""


@dataclass
class Outcome:
    name: str
    passed: bool
    failure: str | None = None
    record: dict[str, Any] = field(default_factory=dict)
    malformed: bool = False  # the file is not a scenario (as opposed to a rule that failed)


def run_scenario(data: object, *, seed: int = 0) -> Outcome:
    """Play a scenario through the engine and compare every expectation."""
    if not isinstance(data, Mapping):
        kind = type(data).__name__
        failure = f"bad scenario: the top level is a {kind}, not an object"
        return Outcome("unnamed", False, failure, {}, malformed=True)
    name = str(data.get("name", "unnamed"))
    record: dict[str, Any] = {"name": name, "rounds": []}
    try:
        _play(data, seed, record)
    except Mismatch as e:
        return Outcome(name, False, str(e), record)
    except ScenarioError as e:
        return Outcome(name, False, f"bad scenario: {e}", record, malformed=True)
    return Outcome(name, True, None, record)


class _Table:
    def __init__(self, data: Mapping[str, Any]) -> None:
        players = data.get("players")
        if not isinstance(players, list) or len(set(players)) != len(players) or not players:
            raise ScenarioError("'players' must be a list of distinct names")
        self.names: list[str] = [str(p) for p in players]
        self.seats = {n: i for i, n in enumerate(self.names)}

    def seat(self, name: object) -> int:
        if name not in self.seats:
            raise ScenarioError(f"unknown player {name!r}")
        return self.seats[str(name)]

    def place(self, text: str) -> tuple[int, int]:
        owner, _, slot = text.partition(":")
        if not slot.isdigit():
            raise ScenarioError(f"a place is 'player:slot', not {text!r}")
        return self.seat(owner), int(slot)


def _play(data: Mapping[str, Any], seed: int, record: dict[str, Any]) -> None:
    preset = data.get("preset")
    if not isinstance(preset, str):
        raise ScenarioError("'preset' is missing: name one of boyo, cabo, kivo, kaboom")
    options = data.get("options") or {}
    if not isinstance(options, Mapping):
        raise ScenarioError("'options' must be an object of ruleset fields")
    try:
        rules = make_ruleset(preset, options)
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    table = _Table(data)
    n = len(table.names)
    given = data.get("totals") or {}
    totals = [int(given.get(p, 0)) for p in table.names]
    rounds = data.get("rounds")
    if not isinstance(rounds, list) or not rounds:
        raise ScenarioError("'rounds' must be a non-empty list")
    deal = _deal(rules.deck_cards, rounds[0], table)
    game = Game(rules, n, seed, totals=totals, deal=deal, first=deal.first or 0)
    for index, rnd in enumerate(rounds):
        where = f"round {index + 1}"
        if index:
            deal = _deal(rules.deck_cards, rnd, table)
            if game.phase is not Phase.ROUND_OVER:
                raise Mismatch(f"{where}: the previous round has not ended (phase {game.phase})")
            first = deal.first if deal.first is not None else game.next_first()
            game.start_round(deal, first=first)
        rec: dict[str, Any] = {"actions": []}
        record["rounds"].append(rec)
        _play_round(game, table, rnd, where, rec)
    _match_result(game, table, data.get("result"), record)


def _play_round(
    game: Game, table: _Table, rnd: Mapping[str, Any], where: str, rec: dict[str, Any]
) -> None:
    """One dealt round: its opening peeks and actions, then its state or result, as expected."""
    peeks = rnd.get("peeks") or {}
    for player in table.names:
        if player in peeks:
            _step(
                game,
                table,
                {"by": player, "do": "opening_peek", "slots": peeks[player]},
                where,
                rec,
            )
    for i, step in enumerate(rnd.get("actions") or []):
        _step(game, table, step, f"{where}, action {i + 1}", rec)
    if not game.is_round_over:
        rec["state"] = _state(game, table)
    else:
        rec["result"] = _round_result(game, table)
    expected = rnd.get("result")
    if expected:
        if not game.is_round_over:
            raise Mismatch(f"{where}: expected a result but the round has not ended")
        _compare(f"{where} result", expected, rec["result"])


def _match_result(
    game: Game, table: _Table, expected: Mapping[str, Any] | None, record: dict[str, Any]
) -> None:
    """The match's result into ``record``, compared with the expected one (winners in any order)."""
    record["result"] = {"match_over": game.is_match_over}
    if game.is_match_over:
        record["result"]["winners"] = [table.names[p] for p in game.winners]
    if expected:
        actual = dict(record["result"])
        if "winners" in expected and "winners" in actual:
            actual["winners"] = sorted(actual["winners"])
            expected = {**expected, "winners": sorted(expected["winners"])}
        _compare("match result", expected, actual)


def _deal(deck: Deck, rnd: Mapping[str, Any], table: _Table) -> StackedDeal:
    hands_spec = rnd.get("hands")
    if not isinstance(hands_spec, dict) or set(hands_spec) != set(table.names):
        raise ScenarioError("'hands' must give a hand for every player")
    if "discard" not in rnd:
        raise ScenarioError("'discard' is missing")
    first = table.seat(rnd["first"]) if "first" in rnd else None
    hands = [hands_spec[p] for p in table.names]
    for player, hand in zip(table.names, hands, strict=True):
        if not isinstance(hand, list):
            raise ScenarioError(f"{player}'s hand must be a list of cards, not {hand!r}")
    draw = rnd.get("draw") or []
    if not isinstance(draw, list):
        raise ScenarioError(f"'draw' must be a list of cards, not {draw!r}")
    try:
        return StackedDeal.from_names(deck, hands, rnd["discard"], draw, first)
    except ValueError as e:
        raise ScenarioError(str(e)) from None


def _action(table: _Table, step: Mapping[str, Any]) -> Action:
    data = dict(step)
    data.pop("error", None)
    data.pop("then", None)
    data["by"] = table.seat(data.get("by"))
    if "target" in data:
        data["target"] = table.seat(data["target"])
    try:
        return Action.from_json(data)
    except ValueError as e:
        raise ScenarioError(f"{step}: {e}") from None


def _step(
    game: Game, table: _Table, step: Mapping[str, Any], where: str, rec: dict[str, Any]
) -> None:
    action = _action(table, step)
    entry: dict[str, Any] = {k: v for k, v in step.items() if k != "then"}
    rec["actions"].append(entry)
    before = game.snapshot()
    try:
        events = game.apply(action)
    except IllegalAction as e:
        entry["error"] = True
        entry["refused"] = f"{type(e).__name__}: {e}"
        if game.snapshot() != before:
            raise Mismatch(f"{where}: the refused action changed the state") from None
        if not step.get("error"):
            raise Mismatch(f"{where}: {step['by']} {step['do']} was refused: {e}") from None
    else:
        entry["events"] = [seen_event(ev, game.deck, action.player).to_json() for ev in events]
        if step.get("error"):
            raise Mismatch(f"{where}: {step['by']} {step['do']} should be refused but was accepted")
    then = step.get("then")
    entry["then"] = _checks(game, table, then or {})
    if then:
        _compare(where, then, entry["then"])


def _checks(game: Game, table: _Table, then: Mapping[str, Any]) -> dict[str, Any]:
    """The actual values for the checks named in ``then`` (the basic ones when none is named)."""
    names = game.deck.names
    out: dict[str, Any] = {
        "top_discard": names[game.top_discard] if game.top_discard >= 0 else None,
        "to_act": table.names[game.to_act] if game.to_act is not None else None,
    }
    if "hand_sizes" in then:
        out["hand_sizes"] = {
            p: sum(1 for c in game.hands[table.seat(p)] if c >= 0) for p in then["hand_sizes"]
        }
    if "draw_size" in then:
        out["draw_size"] = len(game.draw_pile)
    if "knows" in then:
        out["knows"] = {}
        for who, places in then["knows"].items():
            known = game.knowledge(table.seat(who))
            out["knows"][who] = {}
            for text in places:
                card = known.get(table.place(text))
                out["knows"][who][text] = names[card] if card is not None else None
    if "unknown" in then:
        out["unknown"] = {}
        for who, places in then["unknown"].items():
            known = game.knowledge(table.seat(who))
            out["unknown"][who] = [t for t in places if table.place(t) not in known]
    return out


def _state(game: Game, table: _Table) -> dict[str, Any]:
    v = view(game)
    return {
        "phase": v.phase.value,
        "to_act": table.names[game.to_act] if game.to_act is not None else None,
        "top_discard": v.top_discard,
        "hands": {
            p: [game.deck.names[c] if c >= 0 else None for c in h]
            for p, h in zip(table.names, game.hands, strict=True)
        },
    }


def _round_result(game: Game, table: _Table) -> dict[str, Any]:
    result = Reveal.of(game.history[-1], game.deck).to_json()
    return {
        "round_scores": dict(zip(table.names, result["round_scores"], strict=True)),
        "totals": dict(zip(table.names, result["totals"], strict=True)),
        "hands": dict(zip(table.names, result["hands"], strict=True)),
        "reasons": dict(zip(table.names, result["reasons"], strict=True)),
    }


def _compare(where: str, expected: Any, actual: Any, path: str = "") -> None:
    """Raise :class:`Mismatch` at the first expected value that differs from the actual one."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            raise Mismatch(f"{where}: {path or 'value'}: expected {expected!r}, got {actual!r}")
        for key, value in expected.items():
            if key not in actual:
                raise Mismatch(f"{where}: {path}{key}: expected {value!r}, not available")
            _compare(where, value, actual[key], f"{path}{key}.")
        return
    if isinstance(expected, Sequence) and not isinstance(expected, str):
        if isinstance(actual, Sequence) and not isinstance(actual, str):
            if list(expected) == list(actual):
                return
        elif expected == actual:
            return
    elif expected == actual:
        return
    raise Mismatch(f"{where}: {path.rstrip('.') or 'value'}: expected {expected!r}, got {actual!r}")
