"""A round's reveal in its JSON form is made once for each round result and kept only while the
result lives: the server puts the last round's in every view, and every round's in a
snapshot."""

from __future__ import annotations

import gc
import random
import sys
import weakref

from facedown.engine import PRESETS, Game, Reveal, public_json, reveal_json
from facedown.engine.cards import Deck


def _played(rounds: int, seed: int = 3) -> Game:
    """A 4-player cabo match played at random (no TAP) until ``rounds`` rounds are scored."""
    game = Game(PRESETS["cabo"], 4, seed)
    rng = random.Random(seed)
    while len(game.history) < rounds and not game.is_match_over:
        moves = [a for s in range(4) for a in game.legal_actions(s) if a.kind != "tap"]
        game.apply(rng.choice(moves))
    assert len(game.history) >= rounds, "the match ended first: pick another seed"
    return game


def test_each_rounds_reveal_is_made_once_and_is_the_reveals_json() -> None:
    game = _played(2)
    for result in game.history:
        made = reveal_json(result, game.deck)
        assert made == Reveal.of(result, game.deck).to_json()
        assert reveal_json(result, game.deck) is made  # not made again
    # A view's last round is that object: every action of the round shares it.
    last = public_json(game)["last_round"]
    assert last is reveal_json(game.history[-1], game.deck)
    assert public_json(game.clone())["last_round"] is last  # a clone holds the same result


def test_another_decks_names_make_another_reveal() -> None:
    game = _played(1)
    result = game.history[0]
    deck = game.deck
    renamed = Deck(tuple(f"x{n}" for n in deck.names), deck.ranks, deck.values, deck.powers)
    first = reveal_json(result, deck)
    other = reveal_json(result, renamed)
    assert other is not first
    assert other == Reveal.of(result, renamed).to_json() != first
    assert reveal_json(result, deck) == first


def test_a_reveal_is_kept_only_while_its_result_lives() -> None:
    game = _played(2)
    result = game.history[-1]
    alive = weakref.ref(result)
    made = reveal_json(result, game.deck)
    held = sys.getrefcount(made)  # ours, the argument's, and the cache's
    del game, result
    gc.collect()
    assert alive() is None  # the cache does not keep a round result alive
    assert sys.getrefcount(made) == held - 1  # and lets its reveal go with it
