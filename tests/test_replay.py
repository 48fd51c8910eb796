"""Replays from a table's log (facedown/records/replay.py): face up, a seat's eyes, moving,
files."""

from __future__ import annotations

import json
import random

import pytest

from facedown.engine import EVERYONE, Action, Game, make_ruleset, observe
from facedown.records.matches import (
    NARROW,
    ONE_WAY,
    SEEDING,
    legacy_match_seed,
    match_seed,
    narrow_match_seed,
    split_log,
)
from facedown.records.replay import Replay, ReplayError, export, load_export, parse_match_id
from facedown.store import LogEntry

TABLE_SEED = 123_456_789
NAMES = ("A", "B", "C", "D")


def _played(preset: str, players: int, seed: int, options: dict[str, object]) -> list[Action]:
    """The actions of a whole match played by a seeded random policy."""
    game = Game(make_ruleset(preset, options), players, match_seed(TABLE_SEED, 1))
    rng = random.Random(seed)
    actions = []
    while not game.is_match_over:
        action = rng.choice(game.all_legal_actions())
        game.apply(action)
        actions.append(action)
    return actions


def _log(actions: list[Action], players: int, *, seeding: bool = True) -> list[LogEntry]:
    start: dict[str, object] = {"match": 1, "players": players, "deadline": None}
    if seeding:
        start[SEEDING] = ONE_WAY
    entries = [LogEntry(1, "start", start)]
    for seq, action in enumerate(actions, 2):
        entries.append(LogEntry(seq, "action", {"action": action.to_json(), "deadline": None}))
    return entries


def _replay(preset: str = "boyo", players: int = 3, seed: int = 1) -> tuple[Replay, list[Action]]:
    # Two rounds where a mode plays them (Kivo plays 1, 3 or 5: three there).
    rounds = {"boyo": 2, "kivo": 3}.get(preset)
    options: dict[str, object] = {} if rounds is None else {"rounds": rounds}
    rules = make_ruleset(preset, options)
    actions = _played(preset, players, seed, options)
    (match,) = split_log("t1", rules, TABLE_SEED, _log(actions, players), NAMES[:players])
    return Replay(match), actions


@pytest.mark.parametrize(("preset", "players"), [("boyo", 3), ("cabo", 2), ("kivo", 4)])
def test_face_up_is_the_true_deal_and_every_card_at_every_step(preset: str, players: int) -> None:
    replay, actions = _replay(preset, players)
    rules = replay.rules
    truth = Game(rules, players, match_seed(TABLE_SEED, 1))
    names = truth.deck.names
    assert replay.finished
    assert len(replay) == len(actions) + 1
    for step, action in enumerate([None, *actions]):
        if action is not None:
            events = truth.apply(action)
        face = replay.step(None, step)
        assert face.face_up is not None
        assert face.seen is None
        assert face.face_up.hands == tuple(
            tuple(names[c] if c >= 0 else None for c in hand) for hand in truth.hands
        )
        assert face.action == action
        assert face.round == truth.round_no
        if action is not None:
            # Every card any event showed anyone, the private ones too.
            assert face.face_up.events == observe(truth, EVERYONE, events).events


def test_a_seats_eyes_are_the_observer_of_that_seat_at_each_step() -> None:
    replay, actions = _replay("cabo", 3, seed=4)
    truth = Game(replay.rules, 3, match_seed(TABLE_SEED, 1))
    for step, action in enumerate([None, *actions]):
        events = truth.apply(action) if action is not None else []
        for seat in range(3):
            seen = replay.step(seat, step).seen
            assert seen is not None
            assert seen == observe(truth, seat, events)


def test_back_then_forward_gives_the_same_views() -> None:
    replay, _ = _replay("boyo", 3, seed=2)
    first = [
        [replay.step(seat).to_json() for seat in (None, 0, 1, 2)]
        for _ in range(len(replay))
        if replay.forward() or True
    ]
    assert replay.position == len(replay) - 1
    assert replay.forward() == len(replay) - 1  # no further than the end
    while replay.position > 0:
        replay.back()
    assert replay.back() == 0
    again = [
        [replay.step(seat).to_json() for seat in (None, 0, 1, 2)]
        for _ in range(len(replay))
        if replay.forward() or True
    ]
    assert again == first
    for step in (len(replay) - 1, 3, 0, 7):
        replay.seek(step)
        assert replay.step(1).to_json() == replay.step(1, step).to_json()


def test_jump_goes_to_the_deal_of_a_round() -> None:
    replay, _ = _replay("boyo", 3, seed=3)
    assert sorted(replay.rounds) == [1, 2]
    start = replay.jump(2)
    assert replay.round_at(start) == 2
    assert replay.round_at(start - 1) == 1
    assert replay.step(None).face_up is not None
    assert replay.jump(1) == 0
    with pytest.raises(ReplayError, match="no round 3"):
        replay.jump(3)
    with pytest.raises(ReplayError, match="steps 0 to"):
        replay.seek(len(replay))
    with pytest.raises(ReplayError, match="no seat 3"):
        replay.step(3)


def test_an_exported_file_replays_the_same() -> None:
    replay, _ = _replay("kivo", 4, seed=5)
    text = json.dumps(export(replay.match))
    assert str(TABLE_SEED) not in text  # the match's own seed only, never the table's
    again = Replay(load_export(json.loads(text)))
    assert again.match.names == ("A", "B", "C", "D")
    for step in range(len(replay)):
        for seat in (None, 0, 3):
            assert again.step(seat, step).to_json() == replay.step(seat, step).to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "zip"}, "not a Facedown replay"),
        ({"version": 9}, "version 9"),
        ({"match": "nope"}, "not a match id"),
        ({"players": "3"}, "'players'"),
        ({"seed": True}, "'seed'"),
        ({"rules": {"name": 1}}, "rules"),
        ({"actions": [{"do": "fly"}]}, "action 1"),
        ({"actions": [7]}, "action 1"),
        ({"names": ["a"] * 9}, "names"),
    ],
)
def test_a_bad_file_is_refused_with_a_reason(change: dict[str, object], message: str) -> None:
    replay, _ = _replay("cabo", 2)
    data = {**export(replay.match), **change}
    with pytest.raises(ReplayError, match=message):
        load_export(data)


def test_a_file_whose_actions_the_engine_refuses_is_refused() -> None:
    replay, _ = _replay("cabo", 2)
    data = export(replay.match)
    data["actions"] = data["actions"][1:]  # the first opening peek is missing: out of order
    data["actions"].insert(0, {"do": "draw", "by": 1})
    with pytest.raises(ReplayError, match="action 1"):
        Replay(load_export(data))


def test_an_unfinished_match_says_so_and_a_legacy_seeded_one_is_not_exported() -> None:
    rules = make_ruleset("cabo")
    actions = _played("cabo", 2, 1, {})[:10]
    (match,) = split_log("t1", rules, TABLE_SEED, _log(actions, 2))
    assert not Replay(match).finished
    (old,) = split_log("t1", rules, TABLE_SEED, _log([], 2, seeding=False))
    assert old.seed == legacy_match_seed(TABLE_SEED, 1)
    assert not old.exportable
    with pytest.raises(ReplayError, match="seeded before"):
        export(old)


def test_match_ids() -> None:
    assert parse_match_id("ab12/3") == ("ab12", 3)
    for bad in ("ab12", "ab12/0", "/1", "a-b/1", "ab/x", "ab/1/2"):
        with pytest.raises(ReplayError):
            parse_match_id(bad)


def test_a_log_with_two_matches_splits_in_two() -> None:
    rules = make_ruleset("cabo")
    entries = _log(_played("cabo", 2, 1, {}), 2)
    second_start = {"match": 2, "players": 2, SEEDING: ONE_WAY}
    entries.append(LogEntry(len(entries) + 1, "start", second_start))
    first, second = split_log("t1", rules, TABLE_SEED, entries)
    assert (first.match_no, second.match_no) == (1, 2)
    assert second.actions == ()
    assert second.seed == match_seed(TABLE_SEED, 2) != first.seed


def test_match_seeds_are_128_bits_and_a_48_bit_one_of_an_older_log_still_rebuilds() -> None:
    seeds = [match_seed(TABLE_SEED, n) for n in range(1, 65)]
    assert all(0 <= s < 2**128 for s in seeds)
    assert max(s.bit_length() for s in seeds) > 120  # not a narrower number in a wide type
    assert len(set(seeds)) == len(seeds)
    # A start entry of seeding 2 (the 48-bit derivation) is dealt as it was, and exportable.
    rules = make_ruleset("cabo")
    start = LogEntry(1, "start", {"match": 1, "players": 2, SEEDING: NARROW})
    (narrow,) = split_log("t1", rules, TABLE_SEED, [start])
    assert narrow.seed == narrow_match_seed(TABLE_SEED, 1) < 2**48
    assert narrow.seed != match_seed(TABLE_SEED, 1)
    assert narrow.exportable
    # A match seeded from 128 bits deals as the engine deals that seed, and its file says so.
    replay, _ = _replay("cabo", 2)
    assert replay.match.seed == match_seed(TABLE_SEED, 1)
    assert load_export(json.loads(json.dumps(export(replay.match)))).seed == replay.match.seed
