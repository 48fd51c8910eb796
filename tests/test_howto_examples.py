"""The how-to pages' worked examples (web/src/lib/howto.json, the data the page draws) score as
the engine scores them: every hand total, round score and reason, for each preset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import Action, Game, RoundResult, find_preset
from facedown.server.base.testhooks import new_match

EXAMPLES = Path(__file__).resolve().parent.parent / "web" / "src" / "lib" / "howto.json"
DATA: dict[str, Any] = json.loads(EXAMPLES.read_text(encoding="utf-8"))
CASES = [
    pytest.param(preset, example, id=f"{preset}-{i + 1}")
    for preset, page in DATA.items()
    for i, example in enumerate(page["examples"])
]


def test_every_preset_has_a_page_of_examples() -> None:
    assert sorted(DATA) == ["boyo", "cabo", "kaboom", "kivo"]
    for page in DATA.values():
        assert page["examples"]


@pytest.mark.parametrize(("preset", "example"), CASES)
def test_a_worked_example_scores_as_the_engine_scores_it(
    preset: str, example: dict[str, Any]
) -> None:
    result = _played(preset, example["hands"], example["caller"])
    assert list(result.hand_totals) == example["hand_totals"]
    assert list(result.round_scores) == example["round_scores"]
    assert [list(r) for r in result.reasons] == example["reasons"]


def _played(preset: str, hands: list[list[str]], caller: int) -> RoundResult:
    """The round the engine plays with these hands: dealt them, the caller calls at its first
    turn and every other player draws a powerless card and discards it (no hand changes), then
    the engine scores the reveal."""
    rules = find_preset(preset)
    spare = _spares(preset, hands)
    deal = {"hands": hands, "discard": spare[0], "draw": spare[1:], "first": caller}
    game = new_match(rules, len(hands), 1, deal)
    while not game.history:
        game.apply(_keeping_hands(game, caller))
    return game.history[-1]


def _keeping_hands(game: Game, caller: int) -> Action:
    """The next move of a round that leaves every hand as it was dealt."""
    seat = game.awaiting().first
    assert seat is not None
    legal = list(game.legal_actions(seat))
    kinds = ["opening_peek", "call", "draw", "discard", "skip", "end_turn", "next_round"]
    if seat != caller:
        kinds.remove("call")
    for kind in kinds:
        for action in legal:
            if action.kind == kind:
                return action
    raise AssertionError(f"no move that keeps the hands: {legal}")


def _spares(preset: str, hands: list[list[str]]) -> list[str]:
    """Cards the hands leave in the deck that give no power: the discard and the draws."""
    deck = find_preset(preset).deck_cards
    names = list(deck.names)
    for card in (c for hand in hands for c in hand):
        names.remove(card)
    ids = deck.ids_by_name()
    plain = [n for n in names if not deck.powers[ids[n][0]]]
    return plain[:8]


@pytest.mark.parametrize("preset", sorted(DATA))
def test_the_walk_through_cards_give_the_powers_it_says(preset: str) -> None:
    # The drawn card of the walk-through gives the power the page says (the engine's deck).
    rules = find_preset(preset)
    deck = rules.deck_cards
    turn = DATA[preset]["turn"]
    drawn = deck.ids_by_name()[turn["drawn"]][0]
    assert turn["power"] in deck.powers[drawn]
    if "tap" in DATA[preset]:
        tap = DATA[preset]["tap"]
        ids = deck.ids_by_name()
        assert rules.tap
        assert deck.ranks[ids[tap["top"]][0]] == deck.ranks[ids[tap["mine"]][0]]  # a hit
