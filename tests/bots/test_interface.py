"""The bots' interface: levels by name, and a bot sees a seat's information, never a Game."""

from __future__ import annotations

import ast
import copy
import typing
from pathlib import Path
from typing import Any

import pytest

import facedown.bots as bots_package
from facedown.bots import (
    LEVELS,
    ExpertBot,
    HeuristicBot,
    LearnedBot,
    RandomBot,
    SeatInfo,
    UnknownLevel,
    make_bot,
    seat_info,
)
from facedown.engine import PRESETS, Action, Game, Ruleset

from .tables import random_states

# Modules that may touch a Game: the door (seat_info), the driver that seats bots at a game, the
# feed that hands them the game's events, and the search's own sampled games (built from a
# seat's knowledge, never from the real game).  The learned value (value.py) reads those
# sampled games too.
GAME_MODULES = {
    "base.py",
    "driver.py",
    "feed.py",
    "determinize.py",
    "leaf.py",
    "rollout.py",
    "value.py",
}


def test_levels_are_named_in_order_of_strength() -> None:
    assert LEVELS == ("random", "easy", "medium", "hard", "expert", "learned")


def test_make_bot_gives_each_level_its_player() -> None:
    assert isinstance(make_bot("random", 1), RandomBot)
    for level in ("easy", "medium", "hard"):
        assert isinstance(make_bot(level, 1), HeuristicBot)
    assert isinstance(make_bot("expert", 1), ExpertBot)
    assert isinstance(make_bot("learned", 1), LearnedBot)


def test_make_bot_passes_options_and_refuses_bad_ones() -> None:
    bot = make_bot("hard", 1, forget=0.25)
    assert isinstance(bot, HeuristicBot)
    assert bot.profile.forget == 0.25
    expert = make_bot("expert", 1, budget_ms=50)
    assert isinstance(expert, ExpertBot)
    assert expert.budget == 0.05
    with pytest.raises(UnknownLevel):
        make_bot("grandmaster")
    with pytest.raises(TypeError):
        make_bot("random", 1, forget=0.5)
    with pytest.raises(TypeError):
        make_bot("hard", 1, no_such_option=1)
    with pytest.raises(ValueError, match="a time budget or an iteration budget"):
        make_bot("expert", 1, budget_ms=0)  # neither a time nor an iteration budget


def _holds_game(value: Any) -> bool:
    if isinstance(value, Game):
        return True
    if isinstance(value, dict):
        return any(_holds_game(k) or _holds_game(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_game(v) for v in value)
    return False


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_seat_info_is_plain_data_without_the_game(preset: str) -> None:
    # What a bot receives: a view, its knowledge, its legal actions and the rules; no Game.
    for game in random_states(PRESETS[preset], 3, seed=5, count=40):
        for seat in range(3):
            info = seat_info(game, seat)
            assert isinstance(info.rules, Ruleset)
            assert all(isinstance(a, Action) for a in info.legal)
            assert not _holds_game([info.view, info.knowledge, info.legal])


def test_choose_takes_seat_info() -> None:
    for cls in (RandomBot, HeuristicBot, ExpertBot, LearnedBot):
        hints = typing.get_type_hints(cls.choose)
        assert hints["info"] is SeatInfo
        assert not any(h is Game for h in hints.values())


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert", "learned"])
def test_a_copy_of_the_seat_info_gives_the_same_decision(level: str) -> None:
    # Nothing reaches the bot through a hidden reference: a deep copy decides the same.  The
    # searches run on an iteration budget, so that they decide the same from the same seed.
    options: dict[str, Any] = {}
    if level in ("expert", "learned"):
        options = {"budget_ms": 0, "iterations": 4}
    for i, game in enumerate(random_states(PRESETS["cabo"], 2, seed=9, count=60)):
        seat = game.to_act if game.to_act is not None else 0
        if not game.legal_actions(seat):
            continue
        info = seat_info(game, seat)
        first = make_bot(level, i, **options).choose(info)
        assert first == make_bot(level, i, **options).choose(copy.deepcopy(info))


def test_decision_modules_do_not_import_the_game() -> None:
    folder = Path(bots_package.__file__).parent
    for path in sorted(folder.glob("*.py")):
        if path.name in GAME_MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        assert "Game" not in imported, f"{path.name} imports Game"
