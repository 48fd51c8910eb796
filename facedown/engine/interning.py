"""Interned action objects and action lists, shared by every game of a table size and ruleset.

Legal-action lists are tuples looked up by a key that captures everything they depend on, so a
game and its clones (search) share them instead of building them again at every step.
"""

from __future__ import annotations

from typing import Any

from . import actions as A
from .actions import Action
from .rules import Ruleset

Actions = tuple[Action, ...]


class Tables:
    """The memo for one (table size, ruleset), and its per-ruleset lookup tables.

    The lists are a memo with a bounded size: hands that grow large (failed sets, penalty
    cards) make many distinct lists, and a long-lived process must not keep them all.
    """

    LIMIT = 1024  # lists kept
    LONGEST = 128  # longer lists (large hands with sets) are rare: built each time, not kept

    def __init__(self, players: int, rules: Ruleset) -> None:
        # Card values by id with a 0 after the last card, for an empty place (-1): a hand's
        # values are ``map(values, hand)`` with no test for the empty places.
        self.values = [*rules.deck_cards.values, 0].__getitem__
        # The least total of a hand that shoots the moon (two 13s and two 12s): a hand below it
        # need not be looked at card by card.  50 when no card is worth less than 0; with
        # cards below 0, every hand is looked at; out of reach without the moon's rule.
        if not rules.shoot_the_moon:
            self.moon_floor = 1 << 62
        else:
            self.moon_floor = 50 if min(rules.deck_cards.values) >= 0 else -(1 << 62)
        # The slots of a hand as dealt, one tuple for every deal: keys that hold it compare by
        # identity when the lists are looked up.
        self.dealt = tuple(range(rules.hand_size))
        # Where a shuffled deal's hands lie in the deck's order: each hand takes the next cards
        # off the end, the last first (the deck always has a card left for the discard, so a
        # slice never reaches the start); the discard is the card after them.
        size, cards = rules.hand_size, len(rules.deck_cards)
        self.hand_slices = [
            slice(cards - 1 - size * p, cards - 1 - size * (p + 1), -1) for p in range(players)
        ]
        self.discard_at = cards - 1 - size * players
        # The opening's lists: for each key, every seat's looks together and each seat's own
        # (the legal cache of a state in the opening, filled in one step).
        self.openings: dict[Any, tuple[Actions, dict[int, Actions]]] = {}
        self.simple: dict[tuple[int, str], Action] = {}
        self.lists: dict[Any, Actions] = {}
        for p in range(players):
            for kind in A.KINDS:
                if A.SHAPES[kind].slots == 0:
                    self.simple[p, kind] = Action(p, kind)

    def keep_opening(
        self, key: Any, every: Actions, seats: dict[int, Actions]
    ) -> tuple[Actions, dict[int, Actions]]:
        if len(self.openings) >= self.LIMIT:
            self.openings.clear()
        found = self.openings[key] = (every, seats)
        return found

    def keep(self, key: Any, actions: Actions) -> Actions:
        if len(actions) > self.LONGEST:
            return actions
        if len(self.lists) >= self.LIMIT:
            self.lists.clear()  # rare; the common lists are rebuilt at once
        self.lists[key] = actions
        return actions


_TABLES: dict[tuple[int, str], Tables] = {}
_TABLES_LIMIT = 64


def tables_for(players: int, rules: Ruleset) -> Tables:
    """Interned actions for a table size and ruleset: a memo of immutable values."""
    key = (players, rules.fingerprint)
    found = _TABLES.get(key)
    if found is None:
        if len(_TABLES) >= _TABLES_LIMIT:
            _TABLES.clear()  # many custom rulesets: start again rather than grow
        found = _TABLES[key] = Tables(players, rules)
    return found
