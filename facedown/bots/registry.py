"""Bot levels by name: :func:`make_bot` is how a table, a tournament or a test gets a player."""

from __future__ import annotations

from typing import Any

from .base import Bot, RandomBot
from .heuristic import HeuristicBot
from .learned import LearnedBot
from .profiles import PROFILES
from .search import ExpertBot

LEVELS = ("random", "easy", "medium", "hard", "expert", "learned")


class UnknownLevel(ValueError):
    """There is no bot level of that name."""


def make_bot(level: str, seed: int | None = None, **options: Any) -> Bot:
    """A new player of one seat for one match.

    ``options`` tune the level: fields of :class:`~facedown.bots.profiles.Profile` for the
    heuristic levels, ``budget_ms``, ``iterations`` and friends for `expert` (and `learned`,
    which also takes ``weights``, a weights file).
    """
    if level == "random":
        if options:
            raise TypeError(f"the random level takes no options: {', '.join(options)}")
        return RandomBot(seed)
    if level in PROFILES:
        return HeuristicBot(PROFILES[level].with_options(**options), seed)
    if level == "expert":
        return ExpertBot(seed=seed, **options)
    if level == "learned":
        return LearnedBot(seed=seed, **options)
    raise UnknownLevel(f"unknown bot level {level!r}; levels are {', '.join(LEVELS)}")
