"""Tournaments: reproducible from the seed, rotating seats, shared wins, intervals, files."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from facedown.bots.driver import RoundTooLong, play_round
from facedown.cli import main
from facedown.engine import Game, make_ruleset
from facedown.sim import (
    CSV_FIELDS,
    GameResult,
    ProgressBar,
    SeatResult,
    SimConfig,
    SimError,
    deal_means,
    mean_interval,
    run,
    split_bots,
    standings,
    wilson,
    write_results,
)

from .sample_bots import FirstLegal

FIRST = "tests.sim.sample_bots:FirstLegal"


def config(**changes: object) -> SimConfig:
    base: dict[str, object] = {
        "preset": "cabo",
        "players": 3,
        "bots": ("random", FIRST),
        "games": 9,
        "seed": 5,
    }
    base.update(changes)
    return SimConfig(**base)  # type: ignore[arg-type]


def test_same_results_on_one_or_two_processes() -> None:
    # Each game's deal and bot seeds come from (seed, game index) alone.
    one = run(config(games=14), jobs=1)
    two = run(config(games=14), jobs=2)
    assert one == two
    assert [g.game for g in two] == list(range(14))


def test_another_seed_plays_other_games() -> None:
    assert [g.seed for g in run(config(seed=1))] != [g.seed for g in run(config(seed=2))]


def test_seats_rotate_between_games() -> None:
    # In game i the k-th listed bot sits at seat (k - i) mod players.
    results = run(config(bots=("random", FIRST, "tests.sim.sample_bots:Seedless"), games=6))
    for game in results:
        for seat in game.seats:
            assert seat.seat == (seat.lineup - game.game) % 3
    firsts = {g.seats[0].bot for g in results}
    assert len(firsts) == 3


def test_fewer_bots_than_seats_repeat_in_order() -> None:
    assert config(players=4, bots=("random", FIRST)).lineup() == ("random", FIRST, "random", FIRST)
    with pytest.raises(SimError, match="3 bots listed for 2 seats"):
        config(players=2, bots=("random", "random", "random")).lineup()


def test_duplicate_deals_seat_every_bot_at_every_seat_of_a_deal() -> None:
    bots = ("random", FIRST, "tests.sim.sample_bots:Seedless")
    results = run(config(bots=bots, games=9, duplicate=True), jobs=2)
    assert results == run(config(bots=bots, games=9, duplicate=True), jobs=1)
    deals = [results[k : k + 3] for k in range(0, 9, 3)]
    for deal in deals:
        assert len({g.seed for g in deal}) == 1  # one deal, three games
        for bot in bots:
            assert sorted(s.seat for g in deal for s in g.seats if s.bot == bot) == [0, 1, 2]
    assert len({deal[0].seed for deal in deals}) == 3
    with pytest.raises(SimError, match="multiple of the players"):
        run(config(games=10, duplicate=True))


def test_duplicate_deals_take_the_luck_of_the_deal_out_of_a_comparison() -> None:
    # Two sides that play alike: on duplicate deals every deal comes out even for them; on
    # deals of their own, the one that sat at the better seat is ahead.
    alike = ("tests.sim.sample_bots:Steady", "tests.sim.sample_bots:SteadyToo")

    def differences(duplicate: bool) -> list[float]:
        c = config(
            preset="kivo", players=2, bots=alike, games=40, unit="round", duplicate=duplicate
        )

        def difference(game: GameResult) -> float:
            first, second = sorted(game.seats, key=lambda s: s.lineup)
            return first.total - second.total

        return deal_means(c, run(c), difference)

    assert differences(True) == [0.0] * 20
    apart = differences(False)
    assert len(apart) == 40
    assert any(d != 0 for d in apart)


def test_mean_interval() -> None:
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    # sd 1.29 (n - 1), so the half width is 1.96 * 1.29 / 2
    assert (low, high) == (pytest.approx(2.5 - 1.2652, abs=1e-4), pytest.approx(3.7652, abs=1e-4))
    assert mean_interval([5.0]) == (5.0, 5.0, 5.0)
    with pytest.raises(ValueError, match="no values"):
        mean_interval([])


def test_match_results_are_consistent() -> None:
    for game in run(config(games=6)):
        shares = [s.share for s in game.seats]
        assert sum(shares) == pytest.approx(1.0)
        totals = [s.total for s in game.seats]
        assert set(game.winners) == {s for s in range(3) if totals[s] == min(totals)}
        assert all(s.rounds == game.rounds >= 1 for s in game.seats)


def test_round_unit_plays_one_round_and_the_lowest_score_wins() -> None:
    for game in run(config(unit="round", games=8)):
        assert game.rounds == 1
        scores = [s.total for s in game.seats]
        assert game.winners == tuple(s for s in range(3) if scores[s] == min(scores))
        assert all(s.total == s.round_score_sum for s in game.seats)


def test_every_preset_runs() -> None:
    for preset in ("boyo", "cabo", "kivo", "kaboom"):
        results = run(config(preset=preset, games=2, unit="round"))
        assert len(results) == 2


def test_ruleset_options_apply() -> None:
    results = run(config(options={"rounds": 1, "score_limit": None}, games=4))
    assert all(g.rounds == 1 for g in results)


def test_wilson_interval() -> None:
    # Wilson (1927): 50 of 100 gives 40.4% to 59.6%; it never leaves [0, 1].
    low, high = wilson(50, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def _seat(seat: int, bot: str, share: float, *, score: int = 10, calls: int = 0) -> SeatResult:
    return SeatResult(seat, bot, seat, score, share, 2, score, calls, score + 1, 0)


def test_standings_count_a_shared_win_as_one_over_k() -> None:
    games = [
        GameResult(0, 1, 2, (0, 1), (_seat(0, "a", 0.5), _seat(1, "b", 0.5, calls=1))),
        GameResult(1, 2, 2, (0,), (_seat(0, "a", 1.0, score=4), _seat(1, "b", 0.0, calls=2))),
    ]
    a, b = standings(games)
    assert (a.bot, a.games, a.wins, a.win_rate) == ("a", 2, 1.5, 0.75)
    assert (a.ci_low, a.ci_high) == wilson(1.5, 2)
    assert b.win_rate == 0.25
    assert a.mean_round_score == (10 + 4) / 4  # score sums over rounds played
    assert b.calls_per_round == 3 / 4
    assert a.mean_hand_total == (11 + 5) / 4


def test_csv_has_a_row_per_game_and_seat(tmp_path: Path) -> None:
    cfg = config(games=4)
    results = run(cfg)
    path = tmp_path / "results.csv"
    write_results(path, cfg, results)
    with path.open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert tuple(rows[0]) == CSV_FIELDS
    assert len(rows) == 4 * 3
    assert [int(r["game"]) for r in rows[:3]] == [0, 0, 0]
    assert sum(float(r["win_share"]) for r in rows if r["game"] == "1") == pytest.approx(1.0)


def test_json_holds_config_standings_and_games(tmp_path: Path) -> None:
    cfg = config(games=4)
    results = run(cfg)
    path = tmp_path / "results.json"
    write_results(path, cfg, results)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["config"]["bots"] == ["random", FIRST]
    assert [s["bot"] for s in data["standings"]] == ["random", FIRST]
    assert len(data["games"]) == 4
    assert data["games"][0]["seats"][0].keys() >= {"seat", "bot", "total", "share", "faults"}


def test_results_file_needs_a_known_extension(tmp_path: Path) -> None:
    with pytest.raises(SimError, match=r"\.csv or \.json"):
        write_results(tmp_path / "out.txt", config(), [])


def test_bad_tournaments_are_refused_before_play() -> None:
    with pytest.raises(SimError, match="unknown bot 'grandmaster'"):
        run(config(bots=("grandmaster",)))
    with pytest.raises(SimError, match="seats 2 to 8"):
        run(config(players=9))
    with pytest.raises(SimError, match="no program"):
        run(config(bots=("cmd:/no/such/program",)))


def test_progress_bar_draws_in_place() -> None:
    out = io.StringIO()
    bar = ProgressBar(4, out, width=8)
    for done in range(1, 5):
        bar(done)
    text = out.getvalue()
    assert text.startswith("\r[##......] 1/4")
    assert "[########] 4/4 100%" in text
    assert text.endswith("\n")


def test_cli_prints_standings_and_writes_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["sim", "--preset", "kivo", "--players", "2", "--bots", f"random,{FIRST}"]
    code = main([*argv, "--games", "4", "--seed", "3", "--out", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "kivo, 2 players, 4 matches (seed 3)" in printed
    assert "95% CI" in printed
    assert FIRST in printed
    assert len(json.loads(out.read_text(encoding="utf-8"))["games"]) == 4


def test_cli_reports_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--bots", "nobody", "--games", "1"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert main(["sim", "--options", "{bad", "--games", "1"]) == 2
    assert "--options is not JSON" in capsys.readouterr().err
    assert main(["sim", "--options", '{"hand_size": 0}', "--games", "1"]) == 2
    assert "hand_size" in capsys.readouterr().err


def test_bot_lists_split_at_commas_outside_brackets() -> None:
    assert split_bots("hard, expert(budget_ms=0, iterations=4),random") == (
        "hard",
        "expert(budget_ms=0, iterations=4)",
        "random",
    )
    with pytest.raises(SimError, match="unbalanced"):
        split_bots("hard(noise=1")
    with pytest.raises(SimError, match="unbalanced"):
        split_bots("hard)")


def test_bots_that_never_call_end_their_rounds_at_the_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Two players that only ever take the first legal action never call: each round ends at the
    # ruleset's round_action_limit (docs/engine.md), and the tournament goes on.
    run(config(players=2, bots=(FIRST,), games=1, unit="round"))
    argv = ["sim", "--players", "2", "--bots", FIRST, "--games", "1", "--quiet"]
    assert main(argv) == 0
    assert "the round did not end" not in capsys.readouterr().err
    # The driver's own bound (a ruleset's round_action_limit is at most 10,000) still stops
    # bots whose round would outlast it.
    game = Game(make_ruleset("cabo"), 2, 1)
    with pytest.raises(RoundTooLong, match="did not end within 50 actions"):
        play_round(game, [FirstLegal(0), FirstLegal(1)], max_actions=50)


def test_cli_plays_duplicate_deals(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sim", "--preset", "kivo", "--players", "2", "--bots", "random", "--games", "4"]
    assert main([*argv, "--unit", "round", "--duplicate", "--quiet"]) == 0
    assert "4 rounds on 2 duplicate deals" in capsys.readouterr().out
    assert main([*argv[:-1], "3", "--duplicate", "--quiet"]) == 2
    assert "multiple of the players" in capsys.readouterr().err


def test_cli_passes_level_options(capsys: pytest.CaptureFixture[str]) -> None:
    bots = "expert(budget_ms=0, iterations=2),hard(noise=0.5)"
    argv = ["sim", "--players", "2", "--bots", bots, "--games", "2", "--unit", "round"]
    assert main([*argv, "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "expert(budget_ms=0, iterations=2)" in printed
    assert "hard(noise=0.5)" in printed
