"""Bots are told what happened between their decisions: ``info.events`` is every event of the
game since the bot was last given an observation, in order, each once, as its seat sees it
(facedown/bots/feed.py, the driver)."""

from __future__ import annotations

from facedown.bots import (
    EventFeed,
    ExpertBot,
    Reactive,
    SeatInfo,
    make_bot,
    play_match,
    play_round,
    reads_events,
)
from facedown.engine import PRESETS, Action, Event, EventKind, Game, SeenEvent, seen_event


class Recorder:
    """A `hard` bot (it taps, where the rules have TAP) that keeps every event it is given and
    notes every action it takes in ``played`` (shared by the table: the order they were
    applied in)."""

    def __init__(self, seed: int, played: list[Action]) -> None:
        self.bot = make_bot("hard", seed)
        self.played = played
        self.events: list[SeenEvent] = []
        self.observations = 0

    def _given(self, info: SeatInfo) -> None:
        self.observations += 1
        self.events.extend(info.events)

    def choose(self, info: SeatInfo) -> Action:
        self._given(info)
        action = self.bot.choose(info)
        self.played.append(action)
        return action

    def react(self, info: SeatInfo) -> Action | None:
        self._given(info)
        assert isinstance(self.bot, Reactive)
        action = self.bot.react(info)
        if action is not None:
            self.played.append(action)
        return action


def recorders(players: int) -> tuple[list[Recorder], list[Action]]:
    played: list[Action] = []
    return [Recorder(10 + s, played) for s in range(players)], played


def replayed(game: Game, played: list[Action]) -> list[Event]:
    """Every event of ``played`` applied to a fresh copy of the game's first deal."""
    again = Game(game.rules, game.players, game.seed)
    return [e for action in played for e in again.apply(action)]


def as_seen(events: list[Event], game: Game, seat: int) -> list[SeenEvent]:
    return [seen_event(e, game.deck, seat) for e in events]


def test_over_a_round_each_bot_gets_every_event_as_its_seat_sees_it_once_in_order() -> None:
    game = Game(PRESETS["boyo"], 3, seed=4)  # boyo: taps, so react is asked too
    bots, played = recorders(3)
    feed = EventFeed()
    play_round(game, bots, feed=feed)
    events = replayed(game, played)
    assert any(e.kind is EventKind.TAP_HIT or e.kind is EventKind.TAP_MISSED for e in events)
    for seat, bot in enumerate(bots):
        # What it was given, then what is pending for it (the round's end, after its last turn).
        told = bot.events + as_seen(feed.take(seat), game, seat)
        assert told == as_seen(events, game, seat)
        assert bot.events, "every bot was told something"
        assert any(e.seen for e in told if e.by == seat)  # its own private cards, shown it
        assert not any(e.seen for e in told if e.by != seat)  # never another seat's
    assert told[-1].type == "round_over"


def test_over_a_match_the_next_rounds_start_is_seen() -> None:
    game = Game(PRESETS["kivo"], 2, seed=7)
    bots, played = recorders(2)
    feed = EventFeed()
    play_match(game, bots, feed=feed)
    events = replayed(game, played)
    assert game.is_match_over
    for seat, bot in enumerate(bots):
        assert bot.events + as_seen(feed.take(seat), game, seat) == as_seen(events, game, seat)
        kinds = [e.type for e in bot.events]
        assert kinds.count(EventKind.ROUND_OVER) == len(game.history) - 1  # the last one is pending
        assert kinds.count(EventKind.ROUND_STARTED) == len(game.history) - 1  # rounds 2 and on


def test_without_a_feed_given_the_driver_keeps_its_own() -> None:
    game = Game(PRESETS["cabo"], 2, seed=3)
    bots, played = recorders(2)
    play_round(game, bots)
    events = as_seen(replayed(game, played), game, 0)
    assert bots[0].events == events[: len(bots[0].events)]
    assert len(bots[0].events) > len(events) // 2


def test_a_seat_never_asked_keeps_only_the_last_round_and_the_current_one() -> None:
    feed = EventFeed()
    start = [Event(EventKind.ROUND_STARTED, round_no=r) for r in (2, 3, 4)]
    turn = Event(EventKind.TURN_STARTED, player=1)
    over = Event(EventKind.ROUND_OVER)
    feed.add([turn, over], [0, 1])  # round 1 (dealt with the game: no start event)
    feed.add([start[0], turn, over], [0, 1])
    assert feed.take(1) == [turn, over, start[0], turn, over]
    feed.add([start[1], turn, over], [0, 1])
    feed.add([start[2], turn], [0, 1])
    # Seat 0 was never asked: rounds 1 and 2 went when round 4 began.
    assert feed.take(0) == [start[1], turn, over, start[2], turn]
    assert feed.take(1) == [start[1], turn, over, start[2], turn]
    assert feed.take(1) == []
    feed.add([turn], [0])
    feed.forget(0)  # a bot sits down: it starts from now
    assert feed.info(Game(PRESETS["kivo"], 2, seed=1), 0).events == ()


class Deaf(Recorder):
    """A recorder that says it does not read the events."""

    reads_events = False


def test_a_bot_that_reads_no_events_is_given_none_and_the_feed_keeps_none_for_it() -> None:
    game = Game(PRESETS["boyo"], 3, seed=4)
    played: list[Action] = []
    bots = [Recorder(10, played), Deaf(11, played), Recorder(12, played)]
    feed = EventFeed()
    play_round(game, bots, feed=feed)
    assert bots[1].observations > 0
    assert bots[1].events == []
    assert feed.take(1) == []
    assert bots[0].events == as_seen(replayed(game, played), game, 0)[: len(bots[0].events)]
    assert bots[2].events
    # The levels that ignore the events say so; the expert told to follow them reads them.
    assert not any(reads_events(make_bot(level, 1)) for level in ("random", "easy", "hard"))
    assert not reads_events(make_bot("expert", 1))
    assert reads_events(ExpertBot(1, track_events=True))
