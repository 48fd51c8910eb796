"""The four presets, each a :class:`Ruleset` value drawn from its source text.

Where a text is silent, the value is Facedown's decision, written on the preset's page in
``docs/rules/``; a host can change any of them in a custom table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .rules import Ruleset, RulesetError

_FACE_VALUE = {str(v): v for v in range(14)}

# 0-13 deck powers as printed on the commercial Cabo deck: 7-8 peek, 9-10 spy, 11-12 swap.
_ZERO_TO_THIRTEEN_POWERS = {
    "7": ["peek"],
    "8": ["peek"],
    "9": ["spy"],
    "10": ["spy"],
    "11": ["swap"],
    "12": ["swap"],
}


def _table_game(**fields: Any) -> Ruleset:
    """The table games on the 0-13 deck (cabo, kivo, kaboom) share how a turn goes: powers by
    discarding the drawn card, turns that end by themselves, a call instead of a turn, no TAP."""
    return Ruleset(
        deck="zero_to_thirteen",
        values=dict(_FACE_VALUE),
        powers={rank: list(powers) for rank, powers in _ZERO_TO_THIRTEEN_POWERS.items()},
        power_timing="discard",
        explicit_end_turn=False,
        call_at_turn_start=True,
        call_after_action=False,
        tap=False,
        **fields,
    )


BOYO = Ruleset(
    name="boyo",
    call_name="BOYO",
    deck="standard",
    decks=1,
    jokers=True,
    # Red King -2, Joker -1, Ace 1, 2-10 face value; J 11, Q 12, black King 13 by decision.
    values={
        "A": 1,
        **{str(v): v for v in range(2, 11)},
        "J": 11,
        "Q": 12,
        "K": 13,
        "KH": -2,
        "KD": -2,
        "JK": -1,
    },
    # By decision: 7-8 peek, 9-10 spy, J-Q swap; black King all three; red King none.
    powers={
        "7": ["peek"],
        "8": ["peek"],
        "9": ["spy"],
        "10": ["spy"],
        "J": ["swap"],
        "Q": ["swap"],
        "KS": ["peek", "spy", "swap"],
        "KC": ["peek", "spy", "swap"],
    },
    power_timing="holding",
    explicit_end_turn=True,
    call_at_turn_start=True,
    call_after_action=True,
    tap=True,
    set_replace=False,
    undo_take_discard=False,
    lowest_scores_zero=False,
    caller_strictly_lowest=False,
    caller_lowest_scores_zero=False,
    caller_penalty=0,
    caller_multiplier=1,
    shoot_the_moon=False,
    hundred_rule="none",
    rounds=3,
    score_limit=None,
    sudden_death=False,
    first_player="rotate",
)

CABO = _table_game(
    name="cabo",
    call_name="Cabo",
    set_replace=True,
    failed_set="discard_taken",
    undo_take_discard=False,
    lowest_scores_zero=True,
    lowest_tie_caller_only=True,
    caller_strictly_lowest=False,
    caller_lowest_scores_zero=True,
    caller_penalty=5,
    caller_multiplier=1,
    shoot_the_moon=True,
    hundred_rule="once",
    rounds=None,
    score_limit=100,
    sudden_death=False,
    first_player="round_winner",
)

KIVO = _table_game(
    name="kivo",
    call_name="Kivo",
    set_replace=False,
    undo_take_discard=True,
    lowest_scores_zero=False,
    caller_strictly_lowest=False,
    caller_lowest_scores_zero=False,
    caller_penalty=10,
    caller_multiplier=1,
    shoot_the_moon=False,
    hundred_rule="none",
    rounds=3,
    round_choices=[1, 3, 5],  # the Kivo guide: a match is 1, 3 or 5 rounds
    score_limit=None,
    sudden_death=False,
    first_player="rotate",
)

KABOOM = _table_game(
    name="kaboom",
    call_name="KABOOM",
    set_replace=True,
    failed_set="keep_taken",
    undo_take_discard=False,
    lowest_scores_zero=False,
    caller_strictly_lowest=True,
    caller_lowest_scores_zero=True,
    caller_penalty=0,
    caller_multiplier=2,
    shoot_the_moon=True,
    hundred_rule="always",
    rounds=None,
    score_limit=100,
    sudden_death=False,
    first_player="rotate",
)

PRESETS: dict[str, Ruleset] = {r.name: r for r in (BOYO, CABO, KIVO, KABOOM)}

# Kivo's modes as option sets: Ranked is three rounds plus one sudden-death round on a tie.
MODES: dict[str, dict[str, Any]] = {
    "kivo-ranked": {"rounds": 3, "sudden_death": True},
    "kivo-real-life": {"rounds": 1},
    "kivo-turn-based": {"recollection": True},
}


def find_preset(name: str) -> Ruleset:
    """The preset called ``name`` (``boyo``, ``cabo``, ``kivo``, ``kaboom``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesetError(f"unknown preset {name!r}; presets are {', '.join(PRESETS)}") from None


def make_ruleset(preset: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """A preset with options applied and validated: how every table gets its rules."""
    rules = find_preset(preset)
    return rules.with_options(options) if options else rules
