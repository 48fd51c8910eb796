"""Rulesets: validation of custom options, the presets, deck composition and the JSON form."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from facedown.engine import PRESETS, Ruleset, RulesetError, find_preset, make_ruleset
from facedown.engine.presets import MODES, ModeError, check_mode, mode_options

# -------------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("preset", "options", "field"),
    [
        # An option that is not a ruleset field.
        ("cabo", {"jokerz": True}, "jokerz"),
        ("boyo", {"decks": 2, "colour": "red"}, "colour"),
        # A value of the wrong type.
        ("boyo", {"jokers": "yes"}, "jokers"),
        ("cabo", {"call_name": 5}, "call_name"),
        ("kivo", {"rounds": "3"}, "rounds"),
        ("kivo", {"rounds": 2.0}, "rounds"),
        ("cabo", {"values": {"7": "7"}}, "values"),
        ("cabo", {"powers": {"7": "peek"}}, "powers"),
        ("cabo", {"power_timing": 1}, "power_timing"),
        # A bool where an int is expected (bool is an int subclass in Python).
        ("boyo", {"decks": True}, "decks"),
        ("kivo", {"rounds": True}, "rounds"),
        ("boyo", {"tap_penalty_cards": False}, "tap_penalty_cards"),
        ("cabo", {"opening_peek": True}, "opening_peek"),
        ("cabo", {"values": {**PRESETS["cabo"].values, "13": True}}, "values"),
        # A choice outside its list.
        ("cabo", {"power_timing": "later"}, "power_timing"),
        ("cabo", {"failed_set": "explode"}, "failed_set"),
        ("cabo", {"hundred_rule": "twice"}, "hundred_rule"),
        ("cabo", {"first_player": "youngest"}, "first_player"),
        ("cabo", {"deck": "tarot"}, "deck"),
        # Boyo plays 1 or 2 standard decks.
        ("boyo", {"decks": 3}, "decks"),
        ("boyo", {"decks": 0}, "decks"),
        # Decks and Jokers are for the standard deck only.
        ("cabo", {"jokers": True}, "jokers"),
        ("kaboom", {"decks": 2}, "decks"),
        # Calling after the action needs an explicit END TURN to call before.
        ("cabo", {"call_after_action": True}, "call_after_action"),
        # Some moment to call is needed.
        ("kivo", {"call_at_turn_start": False}, "call_at_turn_start"),
        # Powers are peek, spy and swap, each at most once per card.
        ("cabo", {"powers": {"7": ["look"]}}, "powers"),
        ("boyo", {"powers": {"KS": ["peek", "peek"]}}, "powers"),
        # A match has at least one round, and some end.
        ("kivo", {"rounds": 0}, "rounds"),
        ("boyo", {"rounds": -1}, "rounds"),
        ("kivo", {"rounds": None}, "rounds"),
        # Every card of the deck needs a value.
        ("boyo", {"values": {"A": 1, "K": 13}}, "values"),
        ("cabo", {"values": {str(v): v for v in range(13)}}, "values"),
        ("boyo", {"jokers": True, "values": {**PRESETS["kivo"].values, "A": 1}}, "values"),
        # Hand and opening peek sizes.
        ("cabo", {"hand_size": 0}, "hand_size"),
        ("cabo", {"hand_size": 9}, "hand_size"),
        ("cabo", {"opening_peek": 5}, "opening_peek"),
        ("cabo", {"opening_peek": -1}, "opening_peek"),
        ("cabo", {"hand_size": 2, "opening_peek": 3}, "opening_peek"),
        ("boyo", {"tap_penalty_cards": -1}, "tap_penalty_cards"),
        ("kaboom", {"caller_multiplier": 0}, "caller_multiplier"),
        # Undo and putting a taken discard back exclude each other.
        ("kivo", {"return_taken_discard": True}, "return_taken_discard"),
    ],
)
def test_invalid_options_raise_an_error_naming_the_field(
    preset: str, options: dict[str, Any], field: str
) -> None:
    # A custom table's options are validated and a wrong one is named in the error.
    with pytest.raises(RulesetError, match=field):
        make_ruleset(preset, options)


def test_ruleset_error_is_a_value_error() -> None:
    # Callers that handle bad input generically (ValueError) also catch ruleset errors.
    assert issubclass(RulesetError, ValueError)


def test_unknown_preset_is_named() -> None:
    # Only the four presets exist; the error lists them.
    with pytest.raises(RulesetError, match=r"'uno'.*boyo, cabo, kivo, kaboom"):
        find_preset("uno")


def test_card_without_value_is_named() -> None:
    # The error names the first card that has no value.
    with pytest.raises(RulesetError, match="'2S'"):
        make_ruleset("boyo", {"values": {"A": 1, "K": 13}})


def test_valid_options_make_a_new_ruleset_and_leave_the_preset_alone() -> None:
    # with_options returns a changed copy; the preset value is not touched.
    rules = make_ruleset("boyo", {"decks": 2, "jokers": False, "rounds": 5})
    assert (rules.decks, rules.jokers, rules.rounds) == (2, False, 5)
    assert (PRESETS["boyo"].decks, PRESETS["boyo"].jokers, PRESETS["boyo"].rounds) == (1, True, 3)
    assert make_ruleset("cabo") is PRESETS["cabo"]


@pytest.mark.parametrize(
    "options",
    [
        {"call_after_action": True, "explicit_end_turn": True},
        {"call_at_turn_start": False, "call_after_action": True, "explicit_end_turn": True},
        {"undo_take_discard": False, "return_taken_discard": True},
        {"rounds": 1, "score_limit": None},
        {"rounds": 5, "score_limit": None},
        {"hand_size": 1, "opening_peek": 0},
        {"hand_size": 8, "opening_peek": 8},
        {"tap": True, "tap_penalty_cards": 0},
    ],
)
def test_valid_custom_options_are_accepted(options: dict[str, Any]) -> None:
    # Combinations the validator must not refuse.
    make_ruleset("kivo", options)


# -------------------------------------------------------------------------------- presets


@pytest.mark.parametrize("name", ["boyo", "cabo", "kivo", "kaboom"])
def test_presets_are_valid(name: str) -> None:
    # Every preset passes its own validation and is found by its name.
    rules = find_preset(name)
    assert rules.name == name
    rules.validate()


def test_presets_are_exactly_the_four_games() -> None:
    # Facedown plays four presets.
    assert set(PRESETS) == {"boyo", "cabo", "kivo", "kaboom"}
    assert [PRESETS[n].call_name for n in ("boyo", "cabo", "kivo", "kaboom")] == [
        "BOYO",
        "Cabo",
        "Kivo",
        "KABOOM",
    ]


@pytest.mark.parametrize("preset", sorted(MODES))
@pytest.mark.parametrize("mode", ["live", "turn_based", "ranked", "pass_and_play"])
def test_every_mode_of_every_preset_is_a_valid_ruleset(preset: str, mode: str) -> None:
    # The engine's table of modes: what a mode sets is a ruleset the preset plays in it.
    rules = make_ruleset(preset, mode_options(preset, mode))
    check_mode(rules, preset, mode)


def test_kivo_ranked_is_three_rounds_with_sudden_death() -> None:
    # Ranked: exactly three rounds, then one sudden-death round if tied.
    rules = make_ruleset("kivo", mode_options("kivo", "ranked"))
    assert (rules.rounds, rules.sudden_death, rules.score_limit) == (3, True, None)


def test_kivo_live_and_turn_based_offer_rounds_only() -> None:
    for mode in ("live", "turn_based"):
        kivo = MODES["kivo"][mode]
        assert kivo.offers == ("rounds",)
        assert (kivo.fixed["score_limit"], kivo.fixed["sudden_death"]) == (None, False)
    assert MODES["cabo"]["live"].offers == ("rounds", "score_limit")


# Kivo: 1, 3 or 5 rounds; no score limit; sudden death only in Ranked (three rounds).
KIVO_REFUSED = [
    ({"rounds": 2}, "rounds", "1, 3 or 5 rounds, not 2"),
    ({"rounds": 2, "round_choices": None}, "rounds", "1, 3 or 5 rounds, not 2"),
    ({"rounds": 3, "round_choices": None}, "round_choices", "round_choices of kivo"),
    ({"rounds": 4, "round_choices": [4]}, "rounds", "not 4"),
    ({"rounds": None, "score_limit": 100}, "rounds", "not null"),
    ({"score_limit": 50}, "score_limit", "score_limit is null"),
    ({"rounds": 5, "sudden_death": True}, "sudden_death", "sudden_death is false"),
    ({"rounds": 3, "sudden_death": True, "recollection": True}, "sudden_death", "turn-based"),
    ({"name": "mykivo", "rounds": 2}, "rounds", "not 2"),
]


@pytest.mark.parametrize(("options", "field", "words"), KIVO_REFUSED)
def test_make_ruleset_refuses_what_no_mode_of_kivo_plays(
    options: dict[str, Any], field: str, words: str
) -> None:
    with pytest.raises(ModeError, match=words) as caught:
        make_ruleset("kivo", options)
    assert caught.value.field == field


@pytest.mark.parametrize(("options", "field", "words"), KIVO_REFUSED)
def test_from_json_refuses_what_no_mode_of_kivo_plays(
    options: dict[str, Any], field: str, words: str
) -> None:
    data = {**PRESETS["kivo"].to_json(), **options, "name": "kivo"}
    with pytest.raises(RulesetError, match=words):
        Ruleset.from_json(data)


@pytest.mark.parametrize(
    ("mode", "options", "words"),
    [
        ("live", {"rounds": 3, "sudden_death": True}, "sudden_death is false at a live table"),
        ("turn_based", {"rounds": 3, "sudden_death": True}, "sudden_death is false"),
        ("ranked", {"rounds": 5}, "rounds is 3 at a ranked table"),
        ("pass_and_play", {"rounds": 3}, "rounds is 1 at a pass-and-play table"),
    ],
)
def test_a_ruleset_some_mode_plays_is_refused_in_another(
    mode: str, options: dict[str, Any], words: str
) -> None:
    rules = make_ruleset("kivo", options)
    with pytest.raises(ModeError, match=words):
        check_mode(rules, "kivo", mode)


def test_other_presets_keep_any_rounds_and_score_limit() -> None:
    make_ruleset("cabo", {"rounds": 2, "score_limit": 50})
    make_ruleset("boyo", {"rounds": 7, "sudden_death": True})


# -------------------------------------------------------------------------------- decks


@pytest.mark.parametrize("name", ["cabo", "kivo", "kaboom"])
def test_zero_to_thirteen_deck(name: str) -> None:
    # 52 cards valued 0-13: two 0s, four each of 1-12, two 13s; face value.
    deck = find_preset(name).build_deck()
    assert len(deck) == 52
    expected = {"0": 2, **{str(v): 4 for v in range(1, 13)}, "13": 2}
    assert Counter(deck.names) == expected
    assert all(deck.values[c] == int(deck.names[c]) for c in range(len(deck)))


@pytest.mark.parametrize("name", ["cabo", "kivo", "kaboom"])
def test_zero_to_thirteen_powers(name: str) -> None:
    # 7-8 peek, 9-10 spy, 11-12 swap (the commercial deck's printing); others none.
    deck = find_preset(name).build_deck()
    for c, card in enumerate(deck.names):
        value = int(card)
        want: tuple[str, ...] = ()
        if value in (7, 8):
            want = ("peek",)
        elif value in (9, 10):
            want = ("spy",)
        elif value in (11, 12):
            want = ("swap",)
        assert deck.powers[c] == want, card


@pytest.mark.parametrize(
    ("decks", "jokers", "size"), [(1, False, 52), (1, True, 54), (2, False, 104), (2, True, 108)]
)
def test_standard_deck_sizes(decks: int, jokers: bool, size: int) -> None:
    # 52 cards per deck, plus two Jokers per deck when Jokers are on.
    deck = make_ruleset("boyo", {"decks": decks, "jokers": jokers}).build_deck()
    assert len(deck) == size
    counts = Counter(deck.names)
    assert counts["JK"] == (2 * decks if jokers else 0)
    for rank in ("A", "2", "10", "J", "Q", "K"):
        for suit in "SHDC":
            assert counts[rank + suit] == decks
    assert len(counts) == 52 + (1 if jokers else 0)


def test_boyo_card_values() -> None:
    # Red King -2, Joker -1, Ace 1, 2-10 face value, J 11, Q 12, black King 13.
    deck = PRESETS["boyo"].build_deck()
    value = {name: deck.values[c] for c, name in enumerate(deck.names)}
    assert value["KH"] == value["KD"] == -2
    assert value["KS"] == value["KC"] == 13
    assert value["JK"] == -1
    assert value["AS"] == value["AH"] == 1
    for v in range(2, 11):
        assert value[f"{v}D"] == v
    assert value["JC"] == 11
    assert value["QH"] == 12


def test_boyo_card_powers() -> None:
    # 7-8 peek, 9-10 spy, J-Q swap; black King peek, spy and swap; red King and others none.
    deck = PRESETS["boyo"].build_deck()
    powers = {name: deck.powers[c] for c, name in enumerate(deck.names)}
    assert set(powers["KS"]) == set(powers["KC"]) == {"peek", "spy", "swap"}
    assert powers["KH"] == powers["KD"] == ()
    assert powers["7H"] == powers["8C"] == ("peek",)
    assert powers["9S"] == powers["10D"] == ("spy",)
    assert powers["JH"] == powers["QS"] == ("swap",)
    for name in ("AS", "2H", "6D", "JK"):
        assert powers[name] == (), name


def test_card_name_wins_over_rank() -> None:
    # A value given by card name (KH) beats the value of its rank (K).
    deck = make_ruleset("boyo", {"values": {**PRESETS["boyo"].values, "KS": 0}}).build_deck()
    value = {name: deck.values[c] for c, name in enumerate(deck.names)}
    assert (value["KS"], value["KC"], value["KH"]) == (0, 13, -2)


# -------------------------------------------------------------------------------- JSON


@pytest.mark.parametrize("name", ["boyo", "cabo", "kivo", "kaboom"])
def test_ruleset_json_round_trip(name: str) -> None:
    # to_json gives every field as plain JSON; from_json rebuilds an equal ruleset.
    rules = find_preset(name)
    data = json.loads(json.dumps(rules.to_json()))
    assert Ruleset.from_json(data) == rules


def test_custom_ruleset_json_round_trip() -> None:
    # Options survive the JSON form.
    rules = make_ruleset(
        "boyo", {"decks": 2, "jokers": False, "tap_penalty_cards": 2, "set_replace": True}
    )
    again = Ruleset.from_json(json.loads(json.dumps(rules.to_json())))
    assert again == rules
    assert again.build_deck() == rules.build_deck()


def test_from_json_names_missing_fields() -> None:
    # A ruleset read from JSON must give every field.
    data = PRESETS["cabo"].to_json()
    del data["tap"]
    with pytest.raises(RulesetError, match="tap"):
        Ruleset.from_json(data)


def test_from_json_validates() -> None:
    # JSON input goes through the same validation as options.
    data = PRESETS["cabo"].to_json()
    data["decks"] = 3
    with pytest.raises(RulesetError, match="decks"):
        Ruleset.from_json(data)
