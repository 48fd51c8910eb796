"""What a bot is given and what it returns."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine import Action, Game, view
from ..engine.views import knowledge_json


@dataclass(frozen=True)
class SeatInfo:
    """Everything a seat may know: its view, its knowledge, and its legal actions."""

    seat: int
    view: dict[str, Any]
    knowledge: dict[str, str]
    legal: list[Action]


def seat_info(game: Game, seat: int) -> SeatInfo:
    """Build a bot's input from the game: the only door from a state to a bot."""
    return SeatInfo(
        seat, view(game, seat), knowledge_json(game, seat), list(game.legal_actions(seat))
    )


class Bot(Protocol):
    """A player: given what its seat may know, it returns one of the legal actions."""

    def choose(self, info: SeatInfo) -> Action: ...


class RandomBot:
    """Chooses uniformly among the legal actions (the `random` level)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, info: SeatInfo) -> Action:
        return self.rng.choice(info.legal)
