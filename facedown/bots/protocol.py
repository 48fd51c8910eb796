"""Bots from third parties: a Python class, or a program speaking JSON lines (``docs/bots.md``).

A tournament seat is filled by an *entrant*, named by a spec:

- a level name (``random``, ``hard``, ...), with options in brackets if wanted
  (``expert(budget_ms=20)``): :func:`level_bot`;
- ``module:Class``: a class implementing :class:`~facedown.bots.base.Bot`, constructed once per
  game (with ``seed=`` when its ``__init__`` takes a ``seed``);
- ``cmd:COMMAND``: a program started once per worker; it reads one JSON message a line on its
  standard input and answers on its standard output (``hello``, ``decide``, ``over``, ``bye``):
  :mod:`facedown.bots.program`.

Every bot plays through a :class:`Guard`: an illegal action, an unreadable reply or a timeout is
replaced by a random legal action (or by no action, for an out-of-turn chance) and counted as a
fault.  A program that exits, or stops answering, ends the tournament with a :class:`BotError`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import random
import sys
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..engine import Action, Ruleset
from ..engine.actions import OPENING_PEEK, REPLACE
from .base import Bot, Reactive, SeatInfo, reads_events
from .program import DEFAULT_TIMEOUT, BadReply, BotError, CommandEntrant

__all__ = [
    "DEFAULT_TIMEOUT",
    "BadReply",
    "BotError",
    "ClassEntrant",
    "CommandEntrant",
    "Entrant",
    "Guard",
    "LevelEntrant",
    "Listener",
    "ReactiveGuard",
    "guard",
    "level_bot",
    "level_names",
    "load_class",
    "make_entrant",
    "parse_level",
    "split_commas",
]

MAX_FAULT_NOTES = 5  # fault messages kept per bot, for the report


@runtime_checkable
class Listener(Protocol):
    """A bot that wants to see the end of each game: it is given the final view."""

    def game_over(self, info: SeatInfo) -> None: ...


# ---------------------------------------------------------------------------------- levels
def level_names() -> tuple[str, ...]:
    """The bot levels (``facedown.bots.LEVELS``)."""
    from .registry import LEVELS

    return LEVELS


def parse_level(spec: str) -> tuple[str, dict[str, Any]]:
    """A level spec's name and options: ``hard`` or ``expert(budget_ms=20, horizon_turns=null)``.

    Each value is read as JSON (numbers, ``true``, ``false``, ``null``, quoted strings); a bare
    word that is not JSON is taken as a string.
    """
    spec = spec.strip()
    name, paren, rest = spec.partition("(")
    name = name.strip()
    options: dict[str, Any] = {}
    if paren:
        if not rest.endswith(")"):
            raise BotError(f"bot {spec!r}: options must end with ')'")
        body = rest[:-1].strip()
        for item in split_commas(body)[0] if body else []:
            key, eq, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or not key.isidentifier() or not raw:
                raise BotError(f"bot {spec!r}: write each option as name=value, not {item!r}")
            if key in options:
                raise BotError(f"bot {spec!r}: option {key!r} given twice")
            try:
                options[key] = json.loads(raw)
            except ValueError:
                options[key] = raw
    if name not in level_names():
        raise BotError(
            f"unknown bot {spec!r}: give a level ({', '.join(level_names())}), "
            "module:Class or cmd:COMMAND"
        )
    return name, options


def split_commas(text: str) -> tuple[list[str], int]:
    """``text`` split at the commas outside brackets and quotes (``a=1, b=[1, 2], c="x,y"`` is
    three items), and how many brackets are left open at its end (negative: too many closed)."""
    items: list[str] = []
    depth = 0
    quoted = False
    start = 0
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return items, depth
        elif depth == 0 and ch == ",":
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items, depth


def level_bot(level: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot of a named level (:func:`facedown.bots.make_bot`), with the level's ``options``."""
    from .registry import make_bot

    if level not in level_names():
        raise BotError(f"unknown bot level {level!r}; levels are {', '.join(level_names())}")
    try:
        return make_bot(level, seed=seed, **options)
    except TypeError as e:  # an option the level does not have
        raise BotError(f"bot {level!r}: {e}") from None


# ---------------------------------------------------------------------------------- guard
def _normal(action: Action) -> Action:
    """The form the engine lists: replace and opening-peek slots in ascending order."""
    if action.kind in (REPLACE, OPENING_PEEK):
        return action._replace(slots=tuple(sorted(action.slots)))
    return action


class Guard:
    """Plays what its bot chooses when it is legal; otherwise a random legal action, counted.

    A guard is what a tournament seats: ``faults`` counts the replies it had to replace and
    ``notes`` keeps the first few reasons.  Out-of-turn chances go to :class:`ReactiveGuard`.
    """

    def __init__(self, bot: Bot, seed: int) -> None:
        self.bot = bot
        self.rng = random.Random(seed)
        self.faults = 0
        self.notes: list[str] = []

    @property
    def reads_events(self) -> bool:
        return reads_events(self.bot)

    def fault(self, reason: str) -> None:
        self.faults += 1
        if len(self.notes) < MAX_FAULT_NOTES:
            self.notes.append(reason)

    def choose(self, info: SeatInfo) -> Action:
        try:
            action = _normal(self.bot.choose(info))
        except BadReply as e:
            self.fault(str(e))
            return self.rng.choice(info.legal)
        if info.allows(action):
            return action
        self.fault(f"illegal action {action.text()!r}")
        return self.rng.choice(info.legal)

    def game_over(self, info: SeatInfo) -> None:
        if isinstance(self.bot, Listener):
            self.bot.game_over(info)


class ReactiveGuard(Guard):
    """A guard for a bot that may act out of turn: a bad out-of-turn reply means no action."""

    def react(self, info: SeatInfo) -> Action | None:
        bot = self.bot
        if not isinstance(bot, Reactive):
            raise TypeError(f"{type(bot).__name__} does not act out of turn")
        try:
            action = bot.react(info)
        except BadReply as e:
            self.fault(str(e))
            return None
        if action is None:
            return None
        action = _normal(action)
        if info.allows(action):
            return action
        self.fault(f"illegal out-of-turn action {action.text()!r}")
        return None


def guard(bot: Bot, seed: int) -> Guard:
    """The guard for ``bot``: reactive exactly when the bot is."""
    return ReactiveGuard(bot, seed) if isinstance(bot, Reactive) else Guard(bot, seed)


# ---------------------------------------------------------------------------------- entrants
class Entrant(Protocol):
    """What fills a seat in a tournament: it makes a fresh bot for each game."""

    spec: str

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot: ...

    def close(self) -> None: ...


class LevelEntrant:
    """A built-in level, a new bot for every game."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.level, self.options = parse_level(spec)
        level_bot(self.level, 0, **self.options)  # options the level lacks fail here, at once

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot:
        return level_bot(self.level, seed, **self.options)

    def close(self) -> None:
        pass


class ClassEntrant:
    """A Python class named ``module:Class``, constructed once per game."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.factory = load_class(spec)
        try:
            self.takes_seed = "seed" in inspect.signature(self.factory).parameters
        except (TypeError, ValueError):
            self.takes_seed = False

    def new_bot(self, *, seat: int, players: int, rules: Ruleset, seed: int, game: int) -> Bot:
        bot: Bot = self.factory(seed=seed) if self.takes_seed else self.factory()
        return bot

    def close(self) -> None:
        pass


def load_class(spec: str) -> Callable[..., Bot]:
    """Import ``module:Class`` (the working directory is on the import path, as for pytest)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise BotError(f"a bot class is named module:Class, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise BotError(f"cannot import {module_name!r} for bot {spec!r}: {e}") from e
    factory = getattr(module, attr, None)
    if factory is None:
        raise BotError(f"module {module_name!r} has no {attr!r} (bot {spec!r})")
    if not callable(getattr(factory, "choose", None)):
        raise BotError(f"{spec!r} has no choose(info) method: it is not a bot")
    result: Callable[..., Bot] = factory
    return result


def make_entrant(spec: str, timeout: float = DEFAULT_TIMEOUT) -> Entrant:
    """The entrant a spec names: ``cmd:COMMAND``, ``module:Class`` or a level name."""
    spec = spec.strip()
    if spec.startswith("cmd:"):
        return CommandEntrant(spec, timeout)
    if ":" in spec and "(" not in spec:
        return ClassEntrant(spec)
    return LevelEntrant(spec)
