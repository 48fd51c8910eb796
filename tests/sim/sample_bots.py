"""Bots loaded by ``module:Class`` in the tournament tests (as a third party would write them)."""

from __future__ import annotations

import random

from facedown.bots import SeatInfo
from facedown.engine import Action
from facedown.engine.cards import rank_of


class FirstLegal:
    """Always the first legal action; constructed with a seed, which it ignores."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, info: SeatInfo) -> Action:
        return info.legal[0]


class Steady:
    """Plays without chance: draws, keeps what it drew in place of its first card, calls on
    its third turn."""

    def __init__(self) -> None:
        self.turns = 0

    def choose(self, info: SeatInfo) -> Action:
        kinds = {a.kind: a for a in info.legal}
        if info.view.phase == "turn_start":
            self.turns += 1
            if "call" in kinds and self.turns >= 3:
                return kinds["call"]
            if "draw" in kinds:
                return kinds["draw"]
        for action in info.legal:
            if action.kind == "replace" and action.slots == (0,):
                return action
        return kinds.get("end_turn") or info.legal[0]


class SteadyToo(Steady):
    """The same player under another name: two sides that play alike."""


class Seedless:
    """A random player whose class takes no seed: the tournament constructs it bare."""

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def choose(self, info: SeatInfo) -> Action:
        return self.rng.choice(info.legal)


class Cheater:
    """Asks to act for seat 99: always illegal, so every decision is a fault."""

    def choose(self, info: SeatInfo) -> Action:
        return Action(99, "draw")


class Tapper:
    """Taps out of turn when sure (a known card of its own matches the top discard's rank)."""

    ended = 0

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, info: SeatInfo) -> Action:
        return self.rng.choice(info.legal)

    def react(self, info: SeatInfo) -> Action | None:
        top = info.view.top_discard
        for action in info.legal:
            name = info.knowledge.get(f"{info.seat}:{action.slot}")
            if top is not None and name is not None and rank_of(name) == rank_of(top):
                return action
        return None

    def game_over(self, info: SeatInfo) -> None:
        type(self).ended += 1


class NotABot:
    """Has no choose method."""
