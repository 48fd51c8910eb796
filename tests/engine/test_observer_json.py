"""The observer's JSON forms made directly (what the server sends) are exactly the JSON forms
of the observer's values: for every seat and a spectator, with and without Recollection, at
every step of random games under every preset."""

from __future__ import annotations

import orjson
from hypothesis import given, settings

from facedown.engine import SPECTATOR, observe, observe_json, public_json

from .test_properties import Table, examples, play, tables


@settings(max_examples=examples(25), deadline=None)
@given(tables(max_rounds=4))
def test_the_direct_json_forms_are_the_observers(table: Table) -> None:
    for step in play(table):
        game = step.game
        public = public_json(game)
        for seat in (SPECTATOR, *range(game.players)):
            for knowledge in (None, True, False):
                expected = observe(game, seat, step.events, knowledge=knowledge).to_json()
                made = observe_json(game, seat, step.events, knowledge=knowledge, public=public)
                assert made == expected, (seat, knowledge)
                # The same frame text too (key order, and enums as their values).
                assert orjson.dumps(made) == orjson.dumps(expected)
        assert public_json(game) == public  # made from the state alone, the same each time
