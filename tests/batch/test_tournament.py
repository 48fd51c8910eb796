"""``facedown sim --batch``: the batch's players in a tournament, refusals in one line."""

from __future__ import annotations

import pytest

from facedown.batch import tournament
from facedown.batch.tournament import BATCH_PLAYERS, play_batch
from facedown.bots.registry import LEVELS
from facedown.cli import main
from facedown.sim import SimConfig, derive_seed, standings

# The batch players tested to make the same decisions as the bot level of the same name (a
# differential test, as tests/batch/test_differential.py holds the batch's rules to the
# engine's): none so far.  A batch player named as a bot level must be added here with its test.
DIFFERENTIAL_TESTED: frozenset[str] = frozenset()


def test_batch_players_share_a_name_with_a_bot_level_only_when_differential_tested() -> None:
    # Otherwise a table of results would show two different players under one name.
    assert set(BATCH_PLAYERS) & set(LEVELS) <= DIFFERENTIAL_TESTED
    assert set(BATCH_PLAYERS) == {"batch-random", "batch-easy"}


def test_sim_batch_prints_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["sim", "--batch", "--games", "40", "--players", "3", "--bots", "batch-easy,batch-random"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "40 matches" in out
    assert "batch-easy" in out
    assert "batch-random" in out


def test_sim_batch_plays_boyo(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["sim", "--batch", "--preset", "boyo", "--games", "8", "--bots", "batch-easy,batch-random"]
    )
    assert code == 0
    assert "8 matches" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "boyo", "--options", '{"decks": 2}'], "does not play: decks of more than"),
        (["--bots", "hard"], "--batch plays only batch-random, batch-easy, not hard"),
        (["--bots", "easy,random"], "not easy, random (the batch's players are not the bot"),
    ],
)
def test_sim_batch_refuses_what_it_cannot_play(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sim", "--batch", "--games", "4", *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_batch_tournaments_use_the_sims_seeds_and_rotation() -> None:
    config = SimConfig("kivo", 2, ("batch-easy", "batch-random"), games=30, seed=3, unit="round")
    results = play_batch(config)
    assert [r.seed for r in results] == [derive_seed(3, i, "game") for i in range(30)]
    for r in results:
        assert r.rounds == 1
        assert [s.lineup for s in r.seats] == [(s + r.game) % 2 for s in range(2)]
        assert sum(s.share for s in r.seats) == pytest.approx(1.0)
    rows = standings(results)
    assert sum(row.games for row in rows) == 60


def test_batch_tournaments_are_reproducible_and_report_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tournament, "CHUNK", 16)
    config = SimConfig("cabo", 3, ("batch-easy", "batch-random"), games=40, seed=5)
    seen: list[int] = []
    results = play_batch(config, progress=seen.append)
    assert results == play_batch(config)
    assert seen == sorted(seen)
    assert seen[-1] == 40
    assert {16, 32} <= set(seen)  # each chunk reports its end
    for r in results:
        assert r.rounds >= 1
        assert sum(s.share for s in r.seats) == pytest.approx(1.0)
        assert [s.share > 0 for s in r.seats] == [s.seat in r.winners for s in r.seats]
        assert sum(s.calls for s in r.seats) <= r.rounds
        assert all(s.rounds == r.rounds for s in r.seats)


def test_sim_batch_shows_the_progress_bar(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    code = main(["sim", "--batch", "--games", "12", "--bots", "batch-easy,batch-random"])
    assert code == 0
    err = capfd.readouterr().err
    assert "12/12 100%" in err
    assert "games/s" in err


def test_batch_easy_beats_batch_random_in_a_tournament() -> None:
    config = SimConfig("cabo", 4, ("batch-easy", "batch-random"), games=400, seed=2)
    rows = {row.bot: row for row in standings(play_batch(config))}
    assert rows["batch-easy"].win_rate > 3 * rows["batch-random"].win_rate
