"""Turn-based tables on the table actor: no stand-ins for the away, missed deadlines counted in
the log, the forfeit after three of them, Recollection only where the mode shows it, and turn
e-mails that never hold up or break a move (tests/server/modes/test_turn_based_server.py plays the
whole thing through a real server, across restarts)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import pytest

from facedown.bots import make_bot
from facedown.engine import Timer, make_ruleset
from facedown.server.accounts.mail import Mailer, MailSettings
from facedown.server.accounts.notify import Notifier
from facedown.server.accounts.postbox import Postbox
from facedown.server.base.clock import FakeClock
from facedown.server.base.errors import TableError
from facedown.server.modes.modes import TableSettings
from facedown.server.modes.turnbased import DEFAULT_DEADLINE, turn_based_settings
from facedown.server.play.context import TableContext
from facedown.server.play.defaults import default_action
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import Table, TableConfig
from facedown.server.transport.hub import LocalHub
from facedown.store import MailAccount, MemoryStore, UserRecord

from ..harness import free_port

HOUR = 3600.0
CONFIG = TableConfig(bot_delay=0.0, grace_seconds=30.0, reveal_seconds=12.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _turn_based(
    store: MemoryStore, clock: FakeClock, *, notifier: Notifier | None = None
) -> tuple[Lobby, Table]:
    ctx = TableContext(store, LocalHub(), make_bot, CONFIG, clock, notifier=notifier)
    lobby = Lobby(ctx)
    settings = turn_based_settings(HOUR)
    table = await lobby.create("ann", "Ann", "kivo", {"rounds": 1}, 2, settings, [])
    await table.join("bob", "Bob")
    return lobby, table


def _missed(log: list[Any]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for entry in log:
        if entry.payload.get("missed"):
            seat = entry.payload["action"]["by"]
            counts[seat] = counts.get(seat, 0) + 1
    return counts


def test_the_deadline_is_one_of_the_list_and_a_day_by_default() -> None:
    assert turn_based_settings(None) == {
        "mode": "turn_based",
        "peek_seconds": DEFAULT_DEADLINE,
        "turn_seconds": DEFAULT_DEADLINE,
    }
    assert DEFAULT_DEADLINE == 24 * HOUR
    with pytest.raises(TableError) as refused:
        turn_based_settings(90)
    assert refused.value.code == "bad_deadline"


@pytest.mark.anyio
async def test_an_away_player_keeps_the_seat_and_the_deadline_plays_for_them() -> None:
    # Nobody is at the table (as most of the time at a turn-based one): no grace period, no
    # stand-in; the opening peek waits for its deadline, then the server looks for both.
    clock = FakeClock()
    store = MemoryStore()
    _, table = await _turn_based(store, clock)
    await table.start("ann")
    assert table.rules.recollection
    assert table.away == {}
    assert table.deadline == clock.now() + HOUR
    await clock.advance(HOUR - 1)
    assert table.standins == {}
    assert sorted(table.waiting_for()) == [0, 1]
    await clock.advance(1)
    log = await store.log(table.record.id)
    assert _missed(log) == {0: 1, 1: 1}
    assert table.standins == {}
    assert table.game is not None
    assert all(table.game.peeked)
    await table.close()


@pytest.mark.anyio
async def test_three_missed_deadlines_forfeit_the_seat_to_a_bot_and_a_reload_knows() -> None:
    clock = FakeClock()
    store = MemoryStore()
    lobby, table = await _turn_based(store, clock)
    await table.start("ann")
    game = table.game
    assert game is not None
    # Ann plays her own moves; Bob never comes.  Each of Bob's waits runs out.
    for _ in range(200):
        game = table.game
        assert game is not None
        if 1 in table.presence.forfeited or game.is_match_over:
            break
        waiting = table.waiting_for()
        if 0 in waiting:
            action = default_action(game, 0)  # the harmless move, made by Ann herself
            assert action is not None
            await table.act(0, action.to_json(), None, table.seq)
        else:
            await clock.advance(table.deadline - clock.now() if table.deadline else 12.0)
    assert table.presence.forfeited == {1}
    assert table.misses == {1: 3}
    assert 1 in table.presence.automatic_seats()
    info = table.table_info()["seats"][1]
    assert (info["missed"], info["forfeited"], info["bot_standin"]) == (3, True, True)
    log = await store.log(table.record.id)
    assert _missed(log) == {1: 3}  # one mark per deadline, however many default moves
    # Bob comes back: the seat stays the bot's to the end of the match.
    await table.connected(1)
    assert 1 in table.standins
    with pytest.raises(TableError) as refused:
        await table.act(1, {"do": "draw"}, None, None)
    assert refused.value.code == "seat_forfeited"
    await table.close()
    # Loaded again from the store (as after a restart): the same misses, the same forfeit.
    record = await store.get_table(table.record.id)
    assert record is not None
    again = await Table.load(record, lobby.ctx)
    assert again.misses == {1: 3}
    assert again.presence.forfeited == {1}
    assert again.away == {}  # no grace periods at a turn-based table, after a restart either
    await again.close()


@pytest.mark.anyio
async def test_only_the_first_default_move_of_a_deadline_is_a_miss() -> None:
    clock = FakeClock()
    store = MemoryStore()
    _, table = await _turn_based(store, clock)
    await table.start("ann")
    await clock.advance(HOUR)  # both peeks: one miss each
    game = table.game
    assert game is not None
    turn = game.awaiting().first
    assert turn is not None
    await clock.advance(HOUR)  # that turn: a draw, then a discard (and maybe a skip)
    log = await store.log(table.record.id)
    timed = [e for e in log if e.payload.get("timed_out")]
    assert len(timed) >= 4  # two peeks, then at least draw and discard
    assert _missed(log) == {0: 1 + (turn == 0), 1: 1 + (turn == 1)}
    await table.close()


@pytest.mark.anyio
async def test_live_tables_count_no_misses_and_keep_their_stand_ins() -> None:
    clock = FakeClock()
    store = MemoryStore()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, CONFIG, clock))
    settings: TableSettings = {"peek_seconds": 20, "turn_seconds": 60}
    table = await lobby.create("ann", "Ann", "kivo", {"rounds": 1}, 2, settings, [])
    await table.join("bob", "Bob")
    await table.start("ann")
    assert sorted(table.away) == [0, 1]  # the grace periods of a Live table run
    await table.connected(0)
    await table.connected(1)
    await clock.advance(20)
    assert _missed(await store.log(table.record.id)) == {}
    assert table.misses == {}
    await table.close()


@pytest.mark.anyio
async def test_recollection_is_sent_at_turn_based_tables_only() -> None:
    clock = FakeClock()
    store = MemoryStore()
    _, turn_based = await _turn_based(store, clock)
    await turn_based.start("ann")
    await turn_based.act(0, {"do": "opening_peek", "slots": [0, 1]}, None, turn_based.seq)
    knows = turn_based.render(0)["view"]["knowledge"]
    assert sorted(knows) == ["0:0", "0:1"]
    assert turn_based.render(None)["view"]["knowledge"] is None  # spectators: never
    await turn_based.close()

    # A Live table may not ask for it ...
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, CONFIG, clock))
    live: TableSettings = {"peek_seconds": 20, "turn_seconds": 60}
    with pytest.raises(TableError) as refused:
        await lobby.create("ann", "Ann", "kivo", {"recollection": True}, 2, live, [])
    assert refused.value.code == "turn_based_only"
    # ... and one stored with it on (say, by an older server) still never sends it.
    table = await lobby.create("ann", "Ann", "kivo", {"rounds": 1}, 2, live, [])
    await table.join("bob", "Bob")
    rules = make_ruleset("kivo", {"rounds": 1, "recollection": True})
    record = replace(table.record, rules=rules.to_json())
    await store.update_table(record)
    await table.close()
    legacy = await Table.load(record, lobby.ctx)
    assert legacy.rules.recollection
    await legacy.start("ann")
    await legacy.act(0, {"do": "opening_peek", "slots": [0, 1]}, None, legacy.seq)
    for seat in (0, 1, None):
        assert legacy.render(seat)["view"]["knowledge"] is None
    await legacy.close()


@pytest.mark.anyio
async def test_a_failing_smtp_server_never_breaks_a_move(caplog: pytest.LogCaptureFixture) -> None:
    # Bob has an account with a confirmed e-mail address; the SMTP server named is not there.
    clock = FakeClock()
    store = MemoryStore()
    await store.create_user(UserRecord("u-bob", "Bob", "bob", "hash", "bob", 1.0, 1.0))
    await store.set_email("u-bob", "bob@example.test", 1.0)
    await store.save_mail_account(MailAccount("u-bob", verified="bob@example.test"))
    mailer = Mailer(MailSettings("127.0.0.1", free_port(), "facedown@example.test"))
    hub = LocalHub()
    postbox = Postbox(store, mailer, "http://facedown.test", "secret", now=clock.now)
    notifier = Notifier(store, postbox, hub.present)
    ctx = TableContext(store, hub, make_bot, CONFIG, clock, notifier=notifier)
    table = await Lobby(ctx).create(
        "ann", "Ann", "kivo", {"rounds": 1}, 2, turn_based_settings(HOUR), []
    )
    await table.join("bob", "Bob")
    with caplog.at_level(logging.WARNING, logger="facedown.server.accounts.mail"):
        await table.start("ann")  # Bob is waited for: an e-mail is tried
        seq, _ = await table.act(0, {"do": "opening_peek", "slots": [0, 1]}, None, table.seq)
        await notifier.close()
    assert seq == table.seq == 2
    assert (mailer.sent, mailer.failed) == (0, 1)
    assert any("could not be sent" in r.getMessage() for r in caplog.records)
    assert "bob@example.test" not in caplog.text  # the log names no player's address
    game = table.game
    assert game is not None
    assert game.awaiting().timer is Timer.PEEK
    await table.close()
