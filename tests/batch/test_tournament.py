"""``facedown sim --batch``: the batch's players in a tournament, refusals in one line."""

from __future__ import annotations

import pytest

from facedown.batch.tournament import play_batch
from facedown.cli import main
from facedown.sim import SimConfig, derive_seed, standings


def test_sim_batch_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sim", "--batch", "--games", "40", "--players", "3", "--bots", "easy,random"])
    out = capsys.readouterr().out
    assert code == 0
    assert "40 matches" in out
    assert "easy" in out
    assert "random" in out


def test_sim_batch_plays_boyo(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sim", "--batch", "--preset", "boyo", "--games", "8", "--bots", "easy,random"])
    assert code == 0
    assert "8 matches" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "boyo", "--options", '{"decks": 2}'], "does not play: decks of more than"),
        (["--bots", "hard"], "--batch plays only random, easy, not hard"),
    ],
)
def test_sim_batch_refuses_what_it_cannot_play(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sim", "--batch", "--games", "4", *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_batch_tournaments_use_the_sims_seeds_and_rotation() -> None:
    config = SimConfig("kivo", 2, ("easy", "random"), games=30, seed=3, unit="round")
    results = play_batch(config)
    assert [r.seed for r in results] == [derive_seed(3, i, "game") for i in range(30)]
    for r in results:
        assert r.rounds == 1
        assert [s.lineup for s in r.seats] == [(s + r.game) % 2 for s in range(2)]
        assert sum(s.share for s in r.seats) == pytest.approx(1.0)
    rows = standings(results)
    assert sum(row.games for row in rows) == 60
