"""The ceiling benchmark's cheating samplers: each hides exactly what it says, loses no card."""

from __future__ import annotations

import random

import pytest

from benchmarks.ceiling import Task, TrueDeals, play_deal
from facedown.engine import PRESETS, Game

from .tables import random_states


def every_card(game: Game) -> list[int]:
    cards = [c for hand in game.hands for c in hand if c >= 0]
    cards += game.draw_pile + game.discard_pile
    if game.held >= 0:
        cards.append(game.held)
    return sorted(cards)


def states(preset: str) -> list[Game]:
    out = [g for g in random_states(PRESETS[preset], 2, seed=5, count=300) if g.to_act is not None]
    return out[::10]


def moved(table: Game, game: Game, seats: list[int], anyone: int) -> int:
    """How many cards of ``seats``' hands the sample dealt again (none that anyone knows);
    every other hand as it lies."""
    count = 0
    for owner, hand in enumerate(table.hands):
        for slot, card in enumerate(hand):
            if owner not in seats or card < 0 or (anyone >> card) & 1:
                assert game.hands[owner][slot] == card  # known to someone: as it lies
            elif game.hands[owner][slot] != card:
                count += 1
    return count


@pytest.mark.parametrize("preset", ["kivo", "cabo"])
def test_each_cheat_keeps_every_card_and_changes_only_what_it_hides(preset: str) -> None:
    rng = random.Random(1)
    dealt_again = {"deal": 0, "hands": 0, "theirs": 0, "read": 0}
    for table in states(preset):
        seat = table.to_act
        assert seat is not None
        before = every_card(table)
        hands = [list(h) for h in table.hands]
        draw = list(table.draw_pile)
        anyone = table.public
        for mask in table.known:
            anyone |= mask
        hidden = {
            "deal": [],
            "hands": [],
            "theirs": [seat],
            "read": list(range(table.players)),
        }
        for cheat, seats in hidden.items():
            game = TrueDeals(table, seat, cheat).sample(rng)
            assert every_card(game) == before, cheat
            assert game.discard_pile == table.discard_pile
            assert game.held == table.held
            assert game.known == table.known
            dealt_again[cheat] += moved(table, game, seats, anyone)
            if cheat == "deal":
                assert game.draw_pile == table.draw_pile
        assert table.hands == hands  # the real table is left as it was
        assert table.draw_pile == draw
    assert dealt_again["deal"] == dealt_again["hands"] == 0
    assert dealt_again["read"] > dealt_again["theirs"] > 0


def test_a_deal_is_played_once_from_each_seat() -> None:
    # Two rounds, each won (or tied) by one side: the share is a mean of two halves.
    share, diff = play_deal(Task("kivo", 2, "deal", seed=3, deal=0))
    assert share in (0.0, 0.25, 0.5, 0.75, 1.0)
    assert abs(diff) < 100
