"""The observer's held card: its worth and powers come with its face, from the engine's deck."""

from __future__ import annotations

from typing import Any

from facedown.engine import Action, Game, find_preset, observe
from facedown.server.base.testhooks import new_match

# Seat 0 starts; the top of the draw pile is the black King of spades (13, all three powers in
# boyo), then the red King of hearts (-2, none); a 9 of clubs lies on the discard pile.
DEAL = {
    "hands": [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"]],
    "discard": "9C",
    "draw": ["KS", "KH"],
    "first": 0,
}


def _opened(preset: str, deal: dict[str, Any]) -> Game:
    game = new_match(find_preset(preset), 2, 1, deal)
    for seat in (0, 1):
        game.apply(Action(seat, "opening_peek", (0, 1)))
    return game


def test_a_drawn_card_comes_with_its_value_and_powers_for_its_holder_only() -> None:
    game = _opened("boyo", DEAL)
    game.apply(Action(0, "draw"))
    mine = observe(game, 0).view
    assert (mine.held, mine.held_value, mine.held_powers) == ("KS", 13, ("peek", "spy", "swap"))
    for other in (observe(game, 1).view, observe(game).view):
        assert (other.held, other.held_value, other.held_powers) == (None, None, ())
    assert "held_value" in mine.to_json()
    assert mine.to_json()["held_powers"] == ["peek", "spy", "swap"]


def test_a_red_king_is_worth_minus_two_and_gives_nothing() -> None:
    deal = {**DEAL, "draw": ["KH", "KS"]}
    game = _opened("boyo", deal)
    game.apply(Action(0, "draw"))
    mine = observe(game, 0).view
    assert (mine.held, mine.held_value, mine.held_powers) == ("KH", -2, ())


def test_a_card_taken_from_the_discard_gives_no_power_and_everyone_sees_its_worth() -> None:
    game = _opened("boyo", DEAL)
    game.apply(Action(0, "take_discard"))
    for seat in (0, 1, -1):
        v = observe(game, seat).view
        assert (v.held, v.held_value, v.held_powers) == ("9C", 9, ())


def test_nothing_held_nothing_said() -> None:
    deal = {"hands": [["1"] * 4, ["2"] * 4], "discard": "9", "draw": ["7"], "first": 0}
    v = observe(_opened("cabo", deal), 0).view
    assert (v.held, v.held_value, v.held_powers) == (None, None, ())
