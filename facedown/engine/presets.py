"""The four presets, each a :class:`Ruleset` value drawn from its source text.

Where a text is silent, the value is Facedown's decision, written on the preset's page in
``docs/rules/``; a host can change any of them in a custom table.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .rules import PRESET_CHECKS, Ruleset, RulesetError

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

# -- modes: the one table of what each mode of play sets in a preset's rules


@dataclass(frozen=True)
class Mode:
    """A mode of play of one preset: the ruleset fields the mode decides (a table of that mode
    always has these values), and the match options its host may choose (``rounds``: from the
    preset's ``round_choices`` when it names them; ``score_limit``)."""

    name: str
    fixed: Mapping[str, Any]
    offers: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"fixed": dict(self.fixed), "offers": list(self.offers)}


LIVE, TURN_BASED, RANKED, PASS_AND_PLAY = "live", "turn_based", "ranked", "pass_and_play"

_EVERY_PRESET = {
    LIVE: Mode(LIVE, {"recollection": False}, ("rounds", "score_limit")),
    TURN_BASED: Mode(TURN_BASED, {"recollection": True}, ("rounds", "score_limit")),
    # Every preset's ranked match: exactly three rounds under its own scoring, then one
    # sudden-death round among the tied, after which a tie stands as a draw.
    RANKED: Mode(
        RANKED,
        {"rounds": 3, "sudden_death": True, "score_limit": None, "recollection": False},
        (),
    ),
    # Real Life (one device passed around): a single round, no memory aid.
    PASS_AND_PLAY: Mode(
        PASS_AND_PLAY,
        {"rounds": 1, "score_limit": None, "sudden_death": False, "recollection": False},
        (),
    ),
}
# The Kivo guide: Live Private and Turn-Based play 1, 3 or 5 rounds (round_choices), with no
# score limit and no sudden death; Ranked is the only mode with a sudden-death round.
_KIVO_PLAIN = {"score_limit": None, "sudden_death": False}
MODES: dict[str, dict[str, Mode]] = {
    name: dict(_EVERY_PRESET) for name in ("boyo", "cabo", "kaboom")
} | {
    "kivo": {
        **_EVERY_PRESET,
        LIVE: Mode(LIVE, {**_KIVO_PLAIN, "recollection": False}, ("rounds",)),
        TURN_BASED: Mode(TURN_BASED, {**_KIVO_PLAIN, "recollection": True}, ("rounds",)),
    }
}


def mode_options(preset: str, mode: str) -> dict[str, Any]:
    """The ruleset fields ``mode`` decides at a table of ``preset`` (raises RulesetError)."""
    return dict(_mode(preset, mode).fixed)


def _mode(preset: str, mode: str) -> Mode:
    modes = MODES.get(preset, _EVERY_PRESET)
    if mode not in modes:
        raise RulesetError(f"unknown mode {mode!r}; modes are {', '.join(modes)}")
    return modes[mode]


class ModeError(RulesetError):
    """No mode (or not the table's mode) plays these rules; ``field`` names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def mode_problem(rules: Ruleset, preset: str, mode: str) -> ModeError | None:
    """Why ``rules`` cannot be a table of ``preset`` in ``mode`` (None: they can)."""
    base = find_preset(preset)
    choices = base.round_choices
    if choices is not None and rules.rounds not in choices:
        listed = ", ".join(str(n) for n in choices[:-1]) + f" or {choices[-1]}"
        return ModeError(
            "rounds", f"a match of {preset} is {listed} rounds, not {_shown(rules.rounds)}"
        )
    if choices is not None and (
        rules.round_choices is None or not set(rules.round_choices) <= set(choices)
    ):
        return ModeError(
            "round_choices",
            f"round_choices of {preset} are some of {choices}, not {rules.round_choices}",
        )
    for key, value in _mode(preset, mode).fixed.items():
        if getattr(rules, key) != value:
            where = mode.replace("_", "-")
            return ModeError(key, f"{key} is {_shown(value)} at a {where} table of {preset}")
    return None


def check_mode(rules: Ruleset, preset: str, mode: str) -> None:
    """Raise :class:`ModeError` when ``rules`` cannot be a table of ``preset`` in ``mode``."""
    problem = mode_problem(rules, preset, mode)
    if problem is not None:
        raise problem


def check_some_mode(rules: Ruleset, preset: str) -> None:
    """Raise RulesetError when no mode of ``preset`` plays ``rules`` (a scenario, the
    simulator, a stored ruleset: every way in that names no mode).  The message is the one
    for the mode the rules are nearest to: Turn-Based with a memory aid, else Ranked when
    they play sudden death, else Live."""
    problems = {mode: mode_problem(rules, preset, mode) for mode in MODES.get(preset, {})}
    if not problems or None in problems.values():
        return
    nearest = TURN_BASED if rules.recollection else RANKED if rules.sudden_death else LIVE
    if nearest == RANKED and rules.rounds != 3 and problems[LIVE] is not None:
        nearest = LIVE  # sudden death at a match of another length: Ranked is not meant
    problem = problems[nearest] or ModeError("mode", "")
    raise ModeError(problem.field, f"{problem} (no mode of {preset} plays these rules)")


for _name in PRESETS:
    PRESET_CHECKS[_name] = functools.partial(check_some_mode, preset=_name)


def _shown(value: object) -> str:
    return (
        "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


def find_preset(name: str) -> Ruleset:
    """The preset called ``name`` (``boyo``, ``cabo``, ``kivo``, ``kaboom``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesetError(f"unknown preset {name!r}; presets are {', '.join(PRESETS)}") from None


def make_ruleset(preset: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """A preset with options applied and validated: how every table gets its rules."""
    rules = find_preset(preset)
    rules = rules.with_options(options) if options else rules
    check_some_mode(rules, preset)  # whatever the name the options give it
    return rules
