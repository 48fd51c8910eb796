"""What the server reads off a game besides its legal actions: phases, views, a bot's input.

The engine's phase constants, ``view`` and ``seat_info`` are used here and nowhere else in the
server (the engine's public API is being reworked: this is the module to re-point).
"""

from __future__ import annotations

from typing import Any

from ..bots import SeatInfo, seat_info
from ..engine import SPECTATOR, Game, view
from ..engine.game import OPENING, ROUND_OVER, TURN_END, TURN_START


def in_opening(game: Game) -> bool:
    """The opening peek: every seat looks at its cards, in any order."""
    return game.phase == OPENING


def in_reveal(game: Game) -> bool:
    """A round is over and its cards are shown, until the next round is dealt."""
    return game.phase == ROUND_OVER


def in_turn(game: Game) -> bool:
    """Some seat's turn is under way (any of its steps)."""
    return TURN_START <= game.phase <= TURN_END


def timer_key(game: Game) -> tuple[int, int, int]:
    """What a timer waits for: the timer restarts when this changes (a new phase or turn)."""
    if in_turn(game):
        return (game.round_no, TURN_START, game.turn)
    return (game.round_no, game.phase, -1)


def waiting_for(game: Game) -> list[int]:
    """The seats a running timer waits for."""
    if in_opening(game):
        return [s for s in range(game.players) if not game.peeked[s]]
    return [game.turn]


def owes_move(game: Game, seat: int) -> bool:
    """Whether a bot playing ``seat`` should move now: its turn, or its opening peek.  (Bots
    never press next_round: the reveal stays up for reveal_seconds.)"""
    if not game.legal_actions(seat):
        return False
    if in_opening(game):
        return not game.peeked[seat]
    return game.to_act == seat


def viewer(seat: int | None) -> int:
    """The engine's viewer for an audience (None: a spectator)."""
    return SPECTATOR if seat is None else seat


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` (None: a spectator) may see it."""
    return view(game, viewer(seat))


def bot_input(game: Game, seat: int) -> SeatInfo:
    """What a bot playing ``seat`` is given."""
    return seat_info(game, seat)
