"""The expert's values at a playout's horizon (facedown.bots.leaf)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from facedown.bots.leaf import FEATURES, WEIGHTS, features, leaf_value, leaf_weights
from facedown.engine import PRESETS, Game, StackedDeal


def _game() -> Game:
    # Seat 0 holds 1 2 3 13, seat 1 holds 4 5 6 7; each has peeked its first two cards.
    rules = PRESETS["kivo"]
    hands = (("1", "2", "3", "13"), ("4", "5", "6", "7"))
    deal = StackedDeal.from_names(rules.deck_cards, hands, "9")
    game = Game(rules, 2, 1, deal=deal)
    for seat in (0, 1):
        game.apply(next(a for a in game.legal_actions(seat) if a.slots == (0, 1)))
    return game


def test_features_are_each_seats_hand_as_its_owner_knows_it_less_the_others() -> None:
    game = _game()
    x = features(game, 0)
    assert len(x) == len(FEATURES)
    # totals 19 / 22; unknown parts 16 / 13; two unknown cards each; highest known 2 / 5.
    assert x == [1.0, 19 - 22, 16 - 13, 0.0, 2 - 5, 0.0]
    assert features(game, 1)[1:] == [-v for v in x[1:]]


def test_a_table_without_fitted_weights_falls_back() -> None:
    assert leaf_weights("kivo", 2) == WEIGHTS[("kivo", 2)]
    assert leaf_weights("no such preset", 2) is None
    biggest = max(n for p, n in WEIGHTS if p == "kivo")
    assert leaf_weights("kivo", 8) == WEIGHTS[("kivo", biggest)]


def test_the_fitted_values_prefer_a_lower_hand_and_a_known_high_card_to_go() -> None:
    weights = leaf_weights("kivo", 2)
    assert weights is not None
    game = _game()
    # Two seats: what one gains the other loses, after the constant.
    mine, theirs = leaf_value(game, 0, weights), leaf_value(game, 1, weights)
    assert abs((mine - weights[0]) + (theirs - weights[0])) < 1e-9
    # A point more in a hand is worse; a point on the highest known card (soon replaced)
    # counts for less than a point elsewhere; an unseen card's real value counts for little.
    assert weights[1] > 0
    assert weights[4] < 0
    assert 0 <= weights[1] + weights[2] < weights[1] / 2


def _benchmark() -> ModuleType:
    path = Path(__file__).parents[2] / "benchmarks" / "leaf_values.py"
    spec = importlib.util.spec_from_file_location("leaf_values", path)
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fit_recovers_known_weights_and_the_benchmark_collects_rounds() -> None:
    bench = _benchmark()
    data = [
        ([1.0, float(a), float(b)], 0.5 - 2.0 * a + 0.25 * b) for a in range(6) for b in range(5)
    ]
    assert [round(w, 6) for w in bench.fit(data, ridge=0.0)] == [0.5, -2.0, 0.25]
    rows = bench.rows("kivo", 2, rounds=3, seed=1)
    assert rows
    assert all(len(x) == len(FEATURES) and x[0] == 1.0 for x, _ in rows)
    # Each outcome is a seat's round score minus the other's: they come in opposite pairs.
    assert all(abs(y) <= 62 for _, y in rows)
