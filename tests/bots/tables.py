"""Rulesets and random states that the bot tests play: every preset and a few custom tables."""

from __future__ import annotations

import random
from collections.abc import Iterator

from facedown.engine import PRESETS, Action, Event, Game, Ruleset, make_ruleset
from facedown.engine import actions as A
from facedown.engine.phases import ROUND_OVER

CUSTOM: dict[str, Ruleset] = {
    # Two standard decks, big hands, sets that keep the taken card, powers on discarding,
    # calls only after the action, no TAP.  (TAP and sets together make the engine list every
    # combination of a hand grown by penalty cards: see the bots report.)
    "custom-boyo": make_ruleset(
        "boyo",
        {
            "decks": 2,
            "hand_size": 6,
            "opening_peek": 3,
            "tap": False,
            "set_replace": True,
            "failed_set": "keep_taken",
            "power_timing": "discard",
            "call_at_turn_start": False,
        },
    ),
    # Negative values, powers on other cards and several powers on one card, used while
    # holding; TAP (two penalty cards) on a 0-13 deck without sets; small hands with no opening
    # peek; a taken discard may go back.
    "custom-cabo": make_ruleset(
        "cabo",
        {
            "hand_size": 3,
            "opening_peek": 0,
            "tap": True,
            "tap_penalty_cards": 2,
            "set_replace": False,
            "return_taken_discard": True,
            "values": {str(v): v - 3 for v in range(14)},
            "powers": {"0": ["peek", "spy", "swap"], "5": ["swap"], "13": ["spy"]},
            "power_timing": "holding",
        },
    ),
    # Explicit END TURN and calls at either time, Recollection, five cards, one peek.
    "custom-kivo": make_ruleset(
        "kivo",
        {
            "hand_size": 5,
            "opening_peek": 1,
            "recollection": True,
            "explicit_end_turn": True,
            "call_after_action": True,
        },
    ),
}

RULESETS: dict[str, Ruleset] = {**PRESETS, **CUSTOM}


def random_states(rules: Ruleset, players: int, seed: int, count: int) -> Iterator[Game]:
    """``count`` states reached by random legal play (copies, in every phase of a round)."""
    rng = random.Random(seed)
    game = Game(rules, players, seed)
    made = 0
    while made < count:
        if game.is_match_over:
            game = Game(rules, players, rng.randrange(1 << 30))
        action = random_action(game, rng, call_chance=0.03)
        if rng.random() < 0.5:
            made += 1
            yield game.clone()
        game.apply(action)


def random_action(game: Game, rng: random.Random, call_chance: float) -> Action:
    """A random legal action, calling only with ``call_chance`` (so rounds last), or the next
    round when one is over."""
    if game.phase == ROUND_OVER:
        return Action(game.turn, A.NEXT_ROUND)
    legal = game.all_legal_actions()
    calls = [a for a in legal if a.kind == A.CALL]
    rest = [a for a in legal if a.kind != A.CALL] or calls
    return rng.choice(calls if calls and rng.random() < call_chance else rest)


class NotingGame(Game):
    """A game that notes every action applied to it, in order, in :data:`APPLIED`."""

    __slots__ = ()

    def apply(self, action: Action) -> list[Event]:
        APPLIED.append(action)
        return super().apply(action)


APPLIED: list[Action] = []  # the actions applied to every NotingGame (a test clears it)
