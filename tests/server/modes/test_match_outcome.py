"""A finished ranked match's places and winners when seats forfeited are decided in one place
(:func:`facedown.server.modes.ratings.outcome`), and every path that shows them agrees: the
table's last view (play/fanout.py), the replay (api/replays.py), and the match history, whose
places the rating reads (accounts/history.py, play/rating.py).

Each case is a real match (the ranked kivo rules, random legal moves, a sudden-death round in
some) written to a store as a table writes its log, with the forfeits in the table's settings
as a ranked table keeps them: by the leader, by the last, by two seats, at 2 and 4 seats.  What
the paths say is also checked against the rule worked out here on its own: the forfeiters after
every other seat (among themselves by the engine's places), never winners."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from facedown.bots import make_bot
from facedown.engine import Game, make_ruleset
from facedown.records.matches import match_seed, new_match
from facedown.server.accounts.history import finished_matches
from facedown.server.api.replays import build, info, winners_of
from facedown.server.base.clock import FakeClock
from facedown.server.modes import ranked_mode, ratings
from facedown.server.modes.modes import TableSettings, stored
from facedown.server.play.context import TableContext
from facedown.server.play.table import Table, TableConfig
from facedown.server.play.tablelog import action_entry, start_entry
from facedown.server.transport.hub import LocalHub
from facedown.store import LogEntry, MemoryStore, SeatRecord, TableRecord

RULES = make_ruleset("kivo", ranked_mode.RANKED_OPTIONS)
TABLE_SEED = 1234


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass(frozen=True)
class Played:
    """A finished match and the log a table would have written of it."""

    game: Game
    entries: list[LogEntry]


def _play(players: int, seed: int) -> Played:
    game = new_match(RULES, players, match_seed(TABLE_SEED + seed, 1), None)
    entries = [LogEntry(1, "start", dict(start_entry(1, players, None, None)), 0.0)]
    rng = random.Random(seed)
    while not game.is_match_over:
        action = rng.choice(game.all_legal_actions())
        game.apply(action)
        payload = action_entry(action, None, None, False, False, False)
        entries.append(LogEntry(len(entries) + 1, "action", dict(payload), float(len(entries))))
    return Played(game, entries)


def _record(players: int, seed: int, forfeits: list[int]) -> TableRecord:
    settings: TableSettings = {"mode": ranked_mode.RANKED}
    for seat in forfeits:
        settings = ranked_mode.with_forfeit(settings, seat)
    return TableRecord(
        id=f"t{players}-{seed}-{'-'.join(map(str, forfeits))}",
        code=f"C{players}{seed}{''.join(map(str, forfeits))}",
        preset="kivo",
        rules=RULES.to_json(),
        seed=TABLE_SEED + seed,
        host_id=ranked_mode.RANKED_HOST,
        settings=stored(settings),
        status="finished",
        seats=tuple(SeatRecord(i, "human", f"P{i}", f"p{i}") for i in range(players)),
    )


def _chosen(game: Game, who: str) -> list[int]:
    """The seats that forfeit: ``leader`` (the engine's first winner), ``last`` (the last
    placed), both, or nobody."""
    placed = game.places()
    leader = game.winners[0]
    last = max(range(game.players), key=lambda s: (placed[s], s))
    assert leader != last
    return {"none": [], "leader": [leader], "last": [last], "two": sorted({leader, last})}[who]


def _expected(game: Game, gone: list[int]) -> tuple[list[int], list[int]]:
    """The places and winners by the rule, worked out on their own: the seats that stay in the
    engine's order, then the forfeiters in the engine's order; ties share a place."""
    engine = game.places()
    staying = [s for s in range(game.players) if s not in gone]
    placed = [0] * game.players
    for group, before in ((staying, 0), (gone, len(staying))):
        for seat in group:
            placed[seat] = before + 1 + sum(engine[o] < engine[seat] for o in group)
    best = min(engine[s] for s in staying) if staying else None
    winners = [s for s in staying if engine[s] == best]
    return placed, winners


CASES = [
    (2, 1, "none"),
    (2, 1, "leader"),
    (2, 1, "last"),
    (2, 182, "leader"),  # a sudden-death round decided the match
    (4, 1, "leader"),
    (4, 1, "last"),
    (4, 1, "two"),
    (4, 3, "two"),
    (4, 156, "leader"),  # a sudden-death round: the engine's places are not the totals' order
    (4, 156, "two"),
]


@dataclass(frozen=True)
class Shown:
    """What each path says of a finished match."""

    history_places: list[int]
    history_winners: list[int]
    replay_winners: list[int]
    replay_info_winners: list[int]
    view_winners: list[list[int]]  # each audience's (spectators, then every seat)


async def _three_paths(players: int, seed: int, who: str) -> tuple[Played, list[int], Shown]:
    """Play the case, store it as a table would, and read it back by every path."""
    played = _play(players, seed)
    gone = _chosen(played.game, who)
    record = _record(players, seed, gone)
    store = MemoryStore()
    await store.create_table(record)
    for entry in played.entries:
        await store.append(record.id, entry)
    entries = await store.log(record.id)
    # The match history (and the rating, which reads its places).
    [match] = finished_matches(record, entries)
    # The replay.
    replay = build(record, entries, 1)
    # The table itself, loaded from the store: the last view every audience is sent.
    ctx = TableContext(store, LocalHub(), make_bot, TableConfig(), FakeClock())
    table = await Table.load(record, ctx)
    try:
        views = [table.render(audience)["view"] for audience in [None, *range(players)]]
    finally:
        await table.close()
    assert all(view["phase"] == "match_over" for view in views)
    shown = Shown(
        history_places=list(match.places),
        history_winners=list(match.winners),
        replay_winners=winners_of(replay, record),
        replay_info_winners=info(replay, record).winners,
        view_winners=[view["winners"] for view in views],
    )
    return played, gone, shown


@pytest.mark.anyio
@pytest.mark.parametrize(("players", "seed", "who"), CASES)
async def test_the_view_the_replay_and_the_history_agree_on_who_won(
    players: int, seed: int, who: str
) -> None:
    played, gone, shown = await _three_paths(players, seed, who)
    game = played.game
    places, winners = _expected(game, gone)
    if not gone:  # nobody forfeited: the engine's own result
        assert (places, winners) == (game.places(), list(game.winners))
    assert shown == Shown(places, winners, winners, winners, [winners] * (players + 1))
    assert not set(winners) & set(gone)
    assert all(places[g] > places[s] for g in gone for s in range(players) if s not in gone)


@pytest.mark.anyio
async def test_every_path_follows_the_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """None of the paths decides on its own: given another rule (a test's, under which the
    forfeiters win and everyone else shares second place), all of them say what it says."""

    def forfeiters_win(
        engine_places: Sequence[int], engine_winners: Sequence[int], forfeited: Sequence[int] = ()
    ) -> ratings.Outcome:
        gone = tuple(forfeited)
        return ratings.Outcome(
            tuple(1 if s in gone else 2 for s in range(len(engine_places))), gone
        )

    monkeypatch.setattr(ratings, "outcome", forfeiters_win)
    _, gone, shown = await _three_paths(4, 1, "two")
    assert len(gone) == 2
    places = [1 if s in gone else 2 for s in range(4)]
    assert shown == Shown(places, gone, gone, gone, [gone] * 5)
