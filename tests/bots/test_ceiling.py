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


def own_moved(table: Game, game: Game, seat: int, anyone: int) -> int:
    """How many of the seat's cards the sample dealt again; none that anyone knows."""
    moved = 0
    for slot, card in enumerate(table.hands[seat]):
        if card < 0 or (anyone >> card) & 1:
            assert game.hands[seat][slot] == card  # known to someone: as it lies
        elif game.hands[seat][slot] != card:
            moved += 1
    return moved


@pytest.mark.parametrize("preset", ["kivo", "cabo"])
def test_each_cheat_keeps_every_card_and_changes_only_what_it_hides(preset: str) -> None:
    rng = random.Random(1)
    moved_own = 0
    for table in states(preset):
        seat = table.to_act
        assert seat is not None
        before = every_card(table)
        anyone = table.public
        for mask in table.known:
            anyone |= mask
        for cheat in ("deal", "hands", "theirs"):
            game = TrueDeals(table, seat, cheat).sample(rng)
            assert every_card(game) == before, cheat
            assert game.discard_pile == table.discard_pile
            assert game.held == table.held
            assert game.known == table.known
            for owner, hand in enumerate(game.hands):
                if owner != seat or cheat != "theirs":
                    assert hand == table.hands[owner], (cheat, owner)
            if cheat == "deal":
                assert game.draw_pile == table.draw_pile
            if cheat == "theirs":
                moved_own += own_moved(table, game, seat, anyone)
        assert table.hands == table.clone().hands  # the real table is left as it was
    assert moved_own > 0  # the cheater's own unseen cards are dealt again


def test_a_deal_is_played_once_from_each_seat() -> None:
    # Two rounds, each won (or tied) by one side: the share is a mean of two halves.
    share, diff = play_deal(Task("kivo", 2, "deal", seed=3, deal=0))
    assert share in (0.0, 0.25, 0.5, 0.75, 1.0)
    assert abs(diff) < 100
