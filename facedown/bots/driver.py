"""Play a table of bots: who is asked what, and when.

The engine's arbiter (:meth:`~facedown.engine.Game.awaiting`) says who must act; that seat's bot
is asked :meth:`~facedown.bots.base.Bot.choose`.  Where the rules have TAP, every seat the arbiter
says may act out of turn whose bot is :class:`~facedown.bots.base.Reactive` is first asked whether
it taps, in seat order after the turn player, once for every state of the table.

Every bot asked is told what happened since it was last asked (``info.events``): the driver
keeps an :class:`~facedown.bots.feed.EventFeed` of the table, for the bots that read them
(:func:`~facedown.bots.base.reads_events`).  :func:`play_round` and
:func:`play_match` make one when none is given; a caller that plays on between calls (the next
round's deal, the game's end) passes its own, so that nothing is lost between them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Action, Game, RoundResult
from .base import Bot, Reactive, reads_events, seat_info
from .feed import EventFeed

# A round of bots longer than this ends with an error; the engine ends every round sooner
# (round_action_limit, at most 10,000 actions of play), so this guards only a broken engine.
MAX_ROUND_ACTIONS = 20_000


class RoundTooLong(RuntimeError):
    """The bots did not end the round within the allowed number of actions."""


def next_action(game: Game, bots: Sequence[Bot], feed: EventFeed | None = None) -> Action:
    """The action the bots at ``game`` take next (the caller applies it, and adds its events to
    ``feed``).  Without a ``feed`` the bots are given no events."""
    info = seat_info if feed is None else feed.info
    waiting = game.awaiting()
    for seat in waiting.may_tap:
        bot = bots[seat]
        if isinstance(bot, Reactive):
            action = bot.react(info(game, seat))
            if action is not None:
                return action
    first = waiting.first
    if first is None:
        raise ValueError("the match is over: nobody is to act")
    return bots[first].choose(info(game, first))


def readers(bots: Sequence[Bot]) -> list[int]:
    """The seats whose bots read the events."""
    return [seat for seat, bot in enumerate(bots) if reads_events(bot)]


def play_next(
    game: Game, bots: Sequence[Bot], feed: EventFeed, seats: Sequence[int] | None = None
) -> None:
    """Apply the bots' next action, its events pending for the ``seats`` whose bots read them
    (None: :func:`readers`, asked again)."""
    events = game.apply(next_action(game, bots, feed))
    feed.add(events, readers(bots) if seats is None else seats)


def play_round(
    game: Game,
    bots: Sequence[Bot],
    max_actions: int = MAX_ROUND_ACTIONS,
    feed: EventFeed | None = None,
) -> RoundResult:
    """Play the current round to its end; returns its result (the game waits for next_round).
    ``feed``: the table's events not yet given to its bots (a new one: from now)."""
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    feed = EventFeed() if feed is None else feed
    seats = readers(bots)
    for _ in range(max_actions):
        if game.is_round_over:
            return game.history[-1]
        play_next(game, bots, feed, seats)
    raise RoundTooLong(f"the round did not end within {max_actions} actions")


def play_match(
    game: Game,
    bots: Sequence[Bot],
    max_actions: int = MAX_ROUND_ACTIONS,
    feed: EventFeed | None = None,
) -> Game:
    """Play rounds (asking the bots for next_round) until the match is over."""
    feed = EventFeed() if feed is None else feed
    while True:
        play_round(game, bots, max_actions, feed)
        if game.is_match_over:
            return game
        play_next(game, bots, feed)
