"""The `learned` level: its weights load, it decides legally from a seat's information only, and
``facedown train`` trains, checkpoints and resumes to the same weights."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from facedown.bots import LearnedBot, make_bot, seat_info
from facedown.bots.value import FORMAT, INPUTS, WEIGHTS_FILE, ValueNet, inputs, shipped
from facedown.cli import main
from facedown.cli import train as train_command
from facedown.cli.common import Parser
from facedown.engine import PRESETS
from facedown.train import Trainer, train

from .tables import random_states


def test_the_shipped_weights_load_and_are_small() -> None:
    assert WEIGHTS_FILE.stat().st_size < 1_000_000
    net = ValueNet.load()
    assert net.w1.shape[0] == len(INPUTS)
    assert net.seed >= 0
    assert net.steps >= 1
    with np.load(WEIGHTS_FILE) as data:
        assert int(data["format"]) == FORMAT


def test_weights_of_another_format_are_refused(tmp_path: Path) -> None:
    arrays = dict(shipped().arrays())
    arrays["format"] = np.int64(FORMAT + 1)
    path = tmp_path / "other.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="format"):
        ValueNet.load(path)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_value_reads_a_table_and_gives_a_number(preset: str) -> None:
    net = shipped()
    for game in random_states(PRESETS[preset], 4, seed=3, count=10):
        for seat in range(4):
            x = inputs(game, seat)
            assert x is not None
            assert len(x) == len(INPUTS)
            value = net.score(game, seat)
            assert np.isfinite(value)
            assert value == pytest.approx(float(net.predict_rows(np.array([x]))[0]))


@pytest.mark.parametrize("players", [2, 4])
def test_the_learned_bot_chooses_legal_actions(players: int) -> None:
    for i, game in enumerate(random_states(PRESETS["kivo"], players, seed=11, count=25)):
        seat = game.to_act if game.to_act is not None else 0
        if not game.legal_actions(seat):
            continue
        bot = make_bot("learned", i, budget_ms=0, iterations=3)
        assert isinstance(bot, LearnedBot)
        assert game.is_legal(bot.choose(seat_info(game, seat)))


def test_the_learned_bot_uses_the_network_at_its_horizon() -> None:
    bot = LearnedBot(1, budget_ms=0, iterations=2)
    game = next(iter(random_states(PRESETS["cabo"], 2, seed=2, count=1)))
    assert bot.leaf_value(seat_info(game, 0)) == bot.net.score
    assert LearnedBot(1, iterations=2, leaf=False).leaf_value(seat_info(game, 0)) is None


def options(folder: Path, *extra: str) -> argparse.Namespace:
    sub = Parser().add_subparsers()
    parser = train_command.add_parser(sub)
    return parser.parse_args(
        [
            "--checkpoints",
            str(folder),
            "--rounds",
            "2",
            "--held-out",
            "2",
            "--epochs",
            "2",
            "--eval-every",
            "0",
            "--jobs",
            "1",
            *extra,
        ]
    )


def test_train_checkpoints_and_resumes_to_the_same_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    straight, halves = tmp_path / "straight", tmp_path / "halves"
    assert train(options(straight, "--steps", "2")) == 0
    assert train(options(halves, "--steps", "1")) == 0
    assert Trainer.load(halves).step == 1
    assert train(options(halves, "--steps", "2", "--resume", "--out", str(tmp_path / "w.npz"))) == 0
    out = capsys.readouterr().out
    assert "resumed from" in out
    assert "step 2:" in out
    assert "held-out MSE" in out
    a, b = ValueNet.load(straight / "value.npz"), ValueNet.load(tmp_path / "w.npz")
    assert b.steps == 2
    np.testing.assert_array_equal(a.w1, b.w1)
    np.testing.assert_array_equal(a.w2, b.w2)
    # The bot plays with trained weights given by path.
    bot = make_bot("learned", 1, budget_ms=0, iterations=2, weights=str(tmp_path / "w.npz"))
    assert isinstance(bot, LearnedBot)
    assert bot.net.steps == 2


def test_the_train_command_prints_progress_and_its_match_against_expert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "run"
    args = ["train", "--checkpoints", str(folder), "--steps", "1", "--rounds", "2"]
    args += ["--held-out", "2", "--eval-every", "1", "--eval-rounds", "2", "--jobs", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "step 1:" in out
    assert "against expert, kivo 2 seats" in out
    assert (folder / "value.npz").exists()
    assert (folder / "state.npz").exists()
