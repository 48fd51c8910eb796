"""The how-to pages' worked examples (web/src/lib/howto.json, the data the page draws) score as
the engine scores them: every hand total, round score and reason, for each preset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from facedown.engine import find_preset
from facedown.engine.scoring import score_round
from facedown.server.testhooks import new_match

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
    rules = find_preset(preset)
    hands = example["hands"]
    deal = {"hands": hands, "discard": _spare(preset, hands), "first": 0}
    game = new_match(rules, len(hands), 1, deal)
    result = score_round(game, example["caller"])
    assert list(result.hand_totals) == example["hand_totals"]
    assert list(result.round_scores) == example["round_scores"]
    assert [list(r) for r in result.reasons] == example["reasons"]


def _spare(preset: str, hands: list[list[str]]) -> str:
    """A card for the discard pile that the hands leave in the deck."""
    names = list(find_preset(preset).deck_cards.names)
    for card in (c for hand in hands for c in hand):
        names.remove(card)
    return names[0]


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
