"""What a bot is given and what it returns.

A bot sees a table only through :func:`seat_info`: the engine's
:class:`~facedown.engine.Observation` of its seat (its view, what the seat has legitimately
learned, its knowledge by place, its legal actions and the table's rules).  It never receives the
:class:`~facedown.engine.Game` itself.

Two questions are put to a bot.  :meth:`Bot.choose` is asked when the seat has to act (its turn,
the opening peek, the next round) and returns one of the legal actions.  Where the rules allow an
action out of turn (TAP), a driver also asks :meth:`Reactive.react` of bots that have it, after
every change of the table; it returns a TAP or None.  Bots without ``react`` never act out of turn.
A :class:`Watcher` is also told of every change of its seat, so it remembers what happened
between its decisions.  Every bot is told what happened since it was last asked: the events of
its observation (:func:`seat_info`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import ClassVar, Protocol, runtime_checkable

from ..engine import Action, Event, Game, Observation, observe

SeatInfo = Observation  # what a bot is given: everything its seat may know now


def seat_info(game: Game, seat: int, events: Iterable[Event] = ()) -> SeatInfo:
    """Build a bot's input from the game: the only door from a state to a bot.  A bot is always
    given its seat's knowledge (it models its own forgetting, :mod:`facedown.bots.memory`).

    ``events`` are the engine's events (what :meth:`Game.apply` returned) to tell the bot of.
    Where a bot plays a real game (the driver, a server table, through an
    :class:`~facedown.bots.feed.EventFeed`), ``info.events`` is every event of the game since
    that bot was last given an observation of its seat (by ``choose``, ``react``, ``watch`` or
    a tournament's ``game_over``), in order, each once and as that seat may see it:
    ``seen_event(e, deck, seat)``, the same thing the seat's player's client is sent, private
    cards only where the engine showed them to that seat.  The first observation gives what
    happened since the game began (its first round is dealt with the game: no event) or since
    the bot sat down: a bot standing in for a player starts from then.  The events of a
    finished round are given too (up to ``round_over``), so a new round's start is seen.  A
    seat not asked for a whole round is given at most the round before the current one and the
    current one."""
    return observe(game, seat, events, knowledge=True)


def reads_events(bot: object) -> bool:
    """Whether ``bot`` reads ``info.events``.  A bot that does not says so with a
    ``reads_events`` attribute that is False: whoever seats it keeps no events for it, and its
    observations carry none (building each event as its seat may see it is most of what the
    events cost).  A bot without the attribute is told them."""
    return bool(getattr(bot, "reads_events", True))


class Bot(Protocol):
    """A player: given what its seat may know, it returns one of the legal actions."""

    def choose(self, info: SeatInfo) -> Action: ...


@runtime_checkable
class Reactive(Protocol):
    """A bot that may act out of turn: it returns a TAP from ``info.legal``, or None to wait."""

    def react(self, info: SeatInfo) -> Action | None: ...


@runtime_checkable
class Watcher(Protocol):
    """A bot that follows the table between its own decisions: a driver that has it calls
    ``watch`` with the seat's info after every change of the table (a bot without it sees the
    table only when it is asked to act)."""

    def watch(self, info: SeatInfo) -> None: ...


class RandomBot:
    """Chooses uniformly among the legal actions (the `random` level)."""

    reads_events: ClassVar[bool] = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, info: SeatInfo) -> Action:
        return self.rng.choice(info.legal)
