"""``facedown sim --batch``: the batch's players in a tournament, refusals in one line."""

from __future__ import annotations

import numpy as np
import pytest

from facedown.batch import Batch, tournament
from facedown.batch.players import TALLY_FIELDS, play_lineup
from facedown.batch.policies import EasyPlayer, RandomPlayer
from facedown.batch.tournament import BATCH_PLAYERS, play_batch
from facedown.bots.registry import LEVELS
from facedown.cli import main
from facedown.engine import make_ruleset
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


@pytest.mark.parametrize(("preset", "easy"), [("cabo", True), ("boyo", False), ("kaboom", True)])
def test_the_tournament_loop_is_the_player_the_step_and_the_tally(preset: str, easy: bool) -> None:
    # One decision per game and call, every seat batch-easy (or batch-random): the same draws
    # in the same order as the compiled player's actions then the step, so the two batches
    # stay equal, and the loop's tally is the rounds' results added up from the stepped batch.
    rules = make_ruleset(preset)
    one, two = Batch(rules, 2, 24), Batch(rules, 2, 24)
    player = EasyPlayer(two) if easy else RandomPlayer(two)
    seats = np.full((24, 2), int(easy), dtype=np.int64)
    tally = np.zeros((24, TALLY_FIELDS, 2), dtype=np.int64)
    progress = np.zeros((24, 2), dtype=np.int64)
    want = np.zeros_like(tally)
    rounds = np.zeros(24, dtype=np.int64)
    buf, occ = one._scratch
    for k in range(3000):
        if one.over.all():
            break
        seed = int(np.random.default_rng(k).integers(2**31))
        count, _ = play_lineup(
            *one._all_bundles, buf, occ, seats, np.arange(24), seed, 0.05, 0.05, 3, 8,
            0.02, 1, False, tally, progress, one._todo,
        )  # fmt: skip
        if count:
            one._refill(one._todo[:count])
        two.step(player(np.random.default_rng(k)), check=False)
        assert (one.Z == two.Z).all(), (k, np.argwhere(one.Z != two.Z)[:5].tolist())
        assert (one.hands == two.hands).all()
        assert (one.known_bits == two.known_bits).all()
        ended = two.round_ended
        want[ended, 0] += two.round_scores[ended]
        want[ended, 1] += two.hand_totals[ended]
        for g in np.flatnonzero(ended & (two.round_caller >= 0)):
            want[g, 2, two.round_caller[g]] += 1
        rounds += ended
        over = two.match_ended
        want[over, 3] = two.totals[over]
        want[over, 4] = two.winners[over]
    assert one.over.all()
    assert (progress[:, 0] == 1).all()
    assert (progress[:, 1] == rounds).all()
    assert (tally == want).all()
    assert rounds.sum() > 24
