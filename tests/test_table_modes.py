"""Modes as values: what differs between the kinds of table is one ``TableMode`` each, chosen once
from a table's settings (``server/modes/modes.py``), and read by the table, the lobby and the
scheduler.  The table of what each mode turns on is pinned here; the server tests check what
each field does at a table."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, astuple, fields

import pytest

from facedown.engine.presets import MODES as ENGINE_MODES
from facedown.server.modes.modes import (
    LIVE_TABLE,
    MODES,
    PASS_AND_PLAY_TABLE,
    RANKED_TABLE,
    TURN_BASED_TABLE,
    TableMode,
    settings_of,
    table_mode,
)
from facedown.server.play.context import TableConfig
from facedown.server.play.deadlines import MoveDeadlines
from facedown.store import TableRecord


def test_the_mode_is_read_from_the_stored_name() -> None:
    assert table_mode({}) is LIVE_TABLE  # no mode: a Live Private table
    assert table_mode({"mode": "turn_based"}) is TURN_BASED_TABLE
    assert table_mode({"mode": "pass_and_play"}) is PASS_AND_PLAY_TABLE
    assert table_mode({"mode": "ranked"}) is RANKED_TABLE
    assert table_mode({"mode": "chess"}) is LIVE_TABLE  # unknown: played as it always was
    # Stored JSON of another shape (the store keeps any object): read as it always was.
    damaged = TableRecord("t", "CODE", "kivo", {}, 0, "host", settings={"mode": 3})
    assert table_mode(settings_of(damaged)) is LIVE_TABLE


def test_each_mode_is_one_the_engine_knows_and_no_two_are_alike() -> None:
    engine = {mode for modes in ENGINE_MODES.values() for mode in modes}
    assert {m.name for m in MODES.values()} <= engine
    assert len({astuple(m) for m in MODES.values()}) == len(MODES)
    with pytest.raises(FrozenInstanceError):
        LIVE_TABLE.timed = False  # type: ignore[misc]


def test_what_each_mode_turns_on() -> None:
    on = {m.name: {f.name for f in fields(m) if getattr(m, f.name) is True} for m in MODES.values()}
    assert on == {
        "live": {"timed", "stand_ins"},
        "turn_based": {"timed", "recollection", "misses_forfeit", "notifies", "long_lobby"},
        "pass_and_play": {"one_sitting"},
        "ranked": {"timed", "stand_ins", "leaving_forfeits", "rated"},
    }


def test_each_mode_expires_after_its_own_time() -> None:
    config = TableConfig(lobby_expiry=1.0, turn_based_lobby_expiry=2.0, pass_and_play_expiry=3.0)
    assert config.expiry(LIVE_TABLE) == config.expiry(RANKED_TABLE) == 1.0
    assert config.expiry(TURN_BASED_TABLE) == 2.0
    assert config.expiry(PASS_AND_PLAY_TABLE) == 3.0
    assert config.expiry(TableMode("x", long_lobby=True, one_sitting=True)) == 3.0


def test_move_deadlines_count_and_notify_only_where_the_mode_says() -> None:
    on, off = MoveDeadlines(True, True), MoveDeadlines(False, False)
    assert MoveDeadlines(True, False).to_notify(lambda: [0]) == []
    assert off.to_notify(lambda: [0, 1]) == []
    assert on.to_notify(lambda: [0, 1]) == [0, 1]
    assert on.to_notify(lambda: [0, 1]) == []  # told once per wait
    assert on.to_notify(lambda: [1]) == []
    assert on.to_notify(lambda: [0, 1]) == [0]  # seat 0 stopped being waited for: told again
    assert [on.charge(2, float(d)) for d in range(3)] == [False, False, True]  # the third forfeits
    assert on.forfeited() == [2]
    on.new_match()
    assert on.misses == {}
    assert on.forfeited() == []
