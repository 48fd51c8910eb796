"""Rulesets: every way the presets differ is a field of :class:`Ruleset`.

A preset is a value of this class; a custom table is a preset with some fields overridden and the
result validated by :meth:`Ruleset.with_options`.  No code anywhere asks which preset it plays.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import Deck, lookup, standard_names, zero_to_thirteen_names

POWERS = ("peek", "spy", "swap")
DeckKind = Literal["zero_to_thirteen", "standard"]
PowerTiming = Literal["holding", "discard"]
FailedSet = Literal["discard_taken", "keep_taken"]
HundredRule = Literal["none", "once", "always"]
FirstPlayer = Literal["rotate", "round_winner"]

DECK_KINDS = ("zero_to_thirteen", "standard")
POWER_TIMINGS = ("holding", "discard")
FAILED_SETS = ("discard_taken", "keep_taken")
HUNDRED_RULES = ("none", "once", "always")
FIRST_PLAYERS = ("rotate", "round_winner")


MAX_HAND_LIMIT = 24  # the most places any hand may have: bounds every frame and legal list
MAX_PENALTY_CARDS = 4
# The round's bound (round_action_limit): its least and greatest settings.  Even the least is
# far above a real round; the greatest still bounds a replay's round.
ROUND_ACTION_LIMITS = (100, 10_000)


# What every ruleset named after a preset must satisfy, by preset name: filled in by
# :mod:`.presets` (its table of modes), which imports this module and not the other way round.
PRESET_CHECKS: dict[str, Callable[[Ruleset], None]] = {}


class RulesetError(ValueError):
    """A custom ruleset or an option is not valid; the message says which field and why."""


def _doc(text: str, default: Any = dataclasses.MISSING) -> Any:
    if default is dataclasses.MISSING:
        return field(metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


@dataclass(frozen=True, kw_only=True)
class Ruleset:
    """The complete rules of one table.  Field docs are the source of ``docs/rulesets.md``."""

    name: str = _doc("Name of the preset this ruleset is, or is derived from.")
    call_name: str = _doc("What the call is named at the table (BOYO, Cabo, Kivo, KABOOM).")
    deck: DeckKind = _doc(
        "`zero_to_thirteen`: 52 cards valued 0-13 (two 0s, four each of 1-12, two 13s); "
        "`standard`: 52-card decks."
    )
    decks: int = _doc("Number of standard decks shuffled together (1 or 2; standard deck only).", 1)
    jokers: bool = _doc("Two Jokers per standard deck (standard deck only).", False)
    values: dict[str, int] = _doc(
        "Card value by card name (`KH`) or rank (`K`, `7`); the name wins over the rank."
    )
    powers: dict[str, list[str]] = _doc(
        "Powers (`peek`, `spy`, `swap`) a card gives when drawn from the deck, by name or rank. "
        "A card with several powers lets each be used once, in any order."
    )
    power_timing: PowerTiming = _doc(
        "`holding`: powers are used while still holding the drawn card, before replacing or "
        "discarding it (which forfeits unused powers); `discard`: powers are used by discarding "
        "the drawn card, then Use or Skip."
    )
    explicit_end_turn: bool = _doc(
        "The turn ends only with END TURN after the replace or discard (or by calling then)."
    )
    call_at_turn_start: bool = _doc("A player may call at the start of their turn, before drawing.")
    call_after_action: bool = _doc(
        "A player may call after their replace or discard is complete (needs explicit_end_turn)."
    )
    tap: bool = _doc(
        "Anyone may TAP at any time during play: claim that one of their cards matches the rank "
        "of the top discard. A hit puts the card on the pile; a miss shows it to all, it stays, "
        "and the tapper gets tap_penalty_cards unseen cards."
    )
    tap_penalty_cards: int = _doc("Unseen cards added to the hand of a player whose TAP misses.", 1)
    set_replace: bool = _doc(
        "A set of 2, 3 or 4 equal cards in your hand may be replaced by the one card you hold."
    )
    failed_set: FailedSet = _doc(
        "What a failed set costs: `discard_taken`: the cards are shown to all and go back, the "
        "taken card is discarded and the turn is over; `keep_taken`: the cards are shown to all "
        "and go back, and the taken card joins your hand as an extra card.",
        "discard_taken",
    )
    undo_take_discard: bool = _doc(
        "A player who took the top discard may put it back and choose again, before replacing "
        "(no hidden information has been gained by then)."
    )
    return_taken_discard: bool = _doc(
        "A player who took the top discard may discard it again instead of replacing a card.", False
    )
    hand_size: int = _doc("Cards dealt to each player.", 4)
    opening_peek: int = _doc("Different own cards each player looks at before play starts.", 2)
    max_hand: int = _doc(
        "The most places a hand may have. A card that would take a place beyond it is not "
        "added: a TAP penalty card is not dealt, and a card kept after a failed set is "
        f"discarded instead. At most {MAX_HAND_LIMIT}.",
        12,
    )
    lowest_scores_zero: bool = _doc(
        "The player with the lowest hand total scores 0 for the round; others score their total."
    )
    lowest_tie_caller_only: bool = _doc(
        "With lowest_scores_zero: when the caller shares the lowest total, only the caller scores "
        "0 and the others tied score their total; when no tied player called, all tied score 0.",
        False,
    )
    caller_strictly_lowest: bool = _doc(
        "The caller counts as lowest only when strictly lowest (a tie counts against the caller); "
        "otherwise sharing the lowest total is enough."
    )
    caller_lowest_scores_zero: bool = _doc("A caller who is lowest scores 0 for the round.")
    caller_penalty: int = _doc("Points added to the round score of a caller who is not lowest.")
    caller_multiplier: int = _doc(
        "The hand total of a caller who is not lowest is multiplied by this (before the penalty)."
    )
    shoot_the_moon: bool = _doc(
        "A player whose hand holds two 12s and two 13s at the reveal scores 0 and every other "
        "player scores moon_points, whoever called (Shooting the Moon, Harakiri)."
    )
    moon_points: int = _doc("What every other player scores when someone shoots the moon.", 50)
    hundred_rule: HundredRule = _doc(
        "A match total of exactly 100 is set to hundred_reset: `none`, `once` per player per "
        "match, or `always`."
    )
    hundred_reset: int = _doc("The total that an exact 100 becomes.", 50)
    rounds: int | None = _doc("Rounds in a match (null: no fixed number).")
    round_choices: list[int] | None = _doc(
        "The numbers of rounds a table of this game may be set to (null: any number); a table's "
        "`rounds` must be one of them. A preset's own choices hold whatever a custom ruleset "
        "sets here: it may list fewer of them, never others, and null does not drop them.",
        None,
    )
    score_limit: int | None = _doc(
        "The match ends after the round in which a player's total exceeds this (null: none)."
    )
    sudden_death: bool = _doc(
        "After the fixed rounds, one more round is played when the lowest total is tied, by the "
        "tied players alone (the others hold no cards and keep their totals and places); the "
        "lowest of them in that round wins, and a second tie is a draw among those still tied."
    )
    first_player: FirstPlayer = _doc(
        "Who starts the next round: `rotate` to the next seat, or `round_winner` (lowest round "
        "score; a tie goes to the first of them from the last round's starter)."
    )
    recollection: bool = _doc(
        "Memory aid: each player's view lists what they have legitimately learned.", False
    )
    round_action_limit: int = _doc(
        "The most actions a round's play may take (every action after the opening look that "
        "leaves the round in play: draws, takes, replaces, discards, powers, skips, END TURNs, "
        "calls, TAPs, undos). The action that reaches it ends the round as a table of passes "
        "does: every hand is scored as it lies (a call already made stands). Every round ends, "
        "whatever its players do. "
        f"{ROUND_ACTION_LIMITS[0]} to {ROUND_ACTION_LIMITS[1]}.",
        2000,
    )

    # ------------------------------------------------------------------
    @functools.cached_property
    def deck_cards(self) -> Deck:
        """The physical cards this ruleset plays with, built once per ruleset value."""
        return self.build_deck()

    @functools.cached_property
    def fingerprint(self) -> str:
        """A text that equal rulesets share and different ones do not (a cache key)."""
        return json.dumps(self.to_json(), sort_keys=True)

    def build_deck(self) -> Deck:
        """The physical cards this ruleset plays with."""
        if self.deck == "standard":
            names = standard_names(self.decks, self.jokers)
        else:
            names = zero_to_thirteen_names()
        return Deck.build(names, self.values, self.powers)

    def with_options(self, options: Mapping[str, Any]) -> Ruleset:
        """This ruleset with some fields overridden, validated (raises :class:`RulesetError`)."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise RulesetError(f"unknown ruleset field(s): {', '.join(unknown)}")
        changed = dataclasses.replace(self, **dict(options))
        changed.validate()
        return changed

    def to_json(self) -> dict[str, Any]:
        """The ruleset as plain JSON data (every field)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ruleset:
        """A ruleset from :meth:`to_json` output, validated."""
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise RulesetError(f"unknown ruleset field(s): {', '.join(unknown)}")
        # A field added since the data was written takes its default (stored tables load).
        missing = sorted(f.name for f in _required_fields(cls) if f.name not in data)
        if missing:
            raise RulesetError(f"missing ruleset field(s): {', '.join(missing)}")
        base = _unchecked(cls, {k: data[k] for k in fields if k in data})
        base.validate()
        return base

    def validate(self) -> None:
        """Raise :class:`RulesetError` naming the first field that is wrong."""
        _check_types(self)
        _choice("deck", self.deck, DECK_KINDS)
        _choice("power_timing", self.power_timing, POWER_TIMINGS)
        _choice("failed_set", self.failed_set, FAILED_SETS)
        _choice("hundred_rule", self.hundred_rule, HUNDRED_RULES)
        _choice("first_player", self.first_player, FIRST_PLAYERS)
        self._check_deal()
        self._check_play()
        self._check_cards()
        self._check_modes()

    def _check_deal(self) -> None:
        """The deck and the hands."""
        if self.deck == "standard" and self.decks not in (1, 2):
            raise RulesetError("decks must be 1 or 2")
        if self.deck == "zero_to_thirteen" and (self.decks != 1 or self.jokers):
            raise RulesetError("decks and jokers apply only to the standard deck")
        if not 1 <= self.hand_size <= 8:
            raise RulesetError("hand_size must be between 1 and 8")
        if not 0 <= self.opening_peek <= self.hand_size:
            raise RulesetError("opening_peek must be between 0 and hand_size")
        if not self.hand_size <= self.max_hand <= MAX_HAND_LIMIT:
            raise RulesetError(f"max_hand must be between hand_size and {MAX_HAND_LIMIT}")

    def _check_play(self) -> None:
        """TAPs, calls, the match's length and the turn's options."""
        low, high = ROUND_ACTION_LIMITS
        if not low <= self.round_action_limit <= high:
            raise RulesetError(f"round_action_limit must be between {low} and {high}")
        if not 0 <= self.tap_penalty_cards <= MAX_PENALTY_CARDS:
            raise RulesetError(f"tap_penalty_cards must be between 0 and {MAX_PENALTY_CARDS}")
        if self.call_after_action and not self.explicit_end_turn:
            raise RulesetError("call_after_action needs explicit_end_turn")
        if not (self.call_at_turn_start or self.call_after_action):
            raise RulesetError("at least one of call_at_turn_start and call_after_action is needed")
        if self.rounds is None and self.score_limit is None:
            raise RulesetError("a match needs rounds or score_limit (or both)")
        if self.rounds is not None and self.rounds < 1:
            raise RulesetError("rounds must be at least 1")
        choices = self.round_choices
        if choices is not None and (
            not choices
            or len(set(choices)) != len(choices)
            or not all(1 <= n <= 99 for n in choices)
        ):
            raise RulesetError("round_choices must list distinct round counts from 1 to 99")
        if self.caller_multiplier < 1:
            raise RulesetError("caller_multiplier must be at least 1")
        if self.undo_take_discard and self.return_taken_discard:
            raise RulesetError("undo_take_discard and return_taken_discard exclude each other")

    def _check_cards(self) -> None:
        """Every power names a power, every card of the deck has a value."""
        for key, powers in self.powers.items():
            bad = [p for p in powers if p not in POWERS]
            if bad or len(set(powers)) != len(powers):
                raise RulesetError(f"powers[{key!r}] must list distinct powers of {POWERS}")
        names = self._deck_names()
        for name in names:
            if not isinstance(lookup(self.values, name), int):
                raise RulesetError(f"values gives no value for card {name!r}")

    def _check_modes(self) -> None:
        """A ruleset named after a preset is played by one of that preset's modes (the modes
        table is in :mod:`.presets`): Kivo's numbers of rounds, no score limit, and sudden death
        only in Ranked."""
        check = PRESET_CHECKS.get(self.name)
        if check is not None:
            check(self)

    def _deck_names(self) -> list[str]:
        if self.deck == "standard":
            return standard_names(self.decks, self.jokers)
        return zero_to_thirteen_names()


def _unchecked(cls: type[Ruleset], data: Mapping[str, Any]) -> Ruleset:
    return cls(**dict(data))


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise RulesetError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


_SCALAR_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "int | None": (int, type(None)),
}


def _check_types(rules: Ruleset) -> None:
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        kind = str(f.type)
        if kind in _SCALAR_TYPES:
            ok = isinstance(value, _SCALAR_TYPES[kind])
            if ok and kind.startswith("int") and isinstance(value, bool):
                ok = False
        elif kind == "list[int] | None":
            ok = value is None or (
                isinstance(value, list)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in value)
            )
        elif kind.startswith("dict[str, int]"):
            ok = isinstance(value, dict) and all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                for k, v in value.items()
            )
        elif kind.startswith("dict[str, list[str]]"):
            ok = isinstance(value, dict) and all(
                isinstance(k, str) and isinstance(v, list) and all(isinstance(p, str) for p in v)
                for k, v in value.items()
            )
        else:  # Literal choices are strings, checked by _choice
            ok = isinstance(value, str)
        if not ok:
            raise RulesetError(f"{f.name} has the wrong type: {value!r} is not {kind}")


def _required_fields(cls: type[Ruleset]) -> list[dataclasses.Field[Any]]:
    """The fields without a default: a ruleset's data must name them."""
    return [
        f
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
