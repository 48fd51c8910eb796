"""Play a table of bots: who is asked what, and when.

The turn player is asked :meth:`~facedown.bots.base.Bot.choose`.  Where the rules have TAP, every
other seat whose bot is :class:`~facedown.bots.base.Reactive` is first asked whether it taps, in
seat order after the turn player, once for every state of the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Action, Game, RoundResult
from ..engine.game import OPENING, ROUND_OVER
from .base import Bot, Reactive, seat_info

MAX_ROUND_ACTIONS = 20_000  # a round of bots that never call ends here with an error


class RoundTooLong(RuntimeError):
    """The bots did not end the round within the allowed number of actions."""


def next_action(game: Game, bots: Sequence[Bot]) -> Action:
    """The action the bots at ``game`` take next (the caller applies it)."""
    n = game.players
    if game.phase == OPENING:
        seat = next(s for s in range(n) if game.legal_actions(s))
        return bots[seat].choose(seat_info(game, seat))
    if game.phase >= ROUND_OVER:
        return bots[game.turn].choose(seat_info(game, game.turn))
    turn = game.turn
    if game.rules.tap:
        for i in range(1, n):
            seat = (turn + i) % n
            bot = bots[seat]
            if isinstance(bot, Reactive) and game.legal_actions(seat):
                action = bot.react(seat_info(game, seat))
                if action is not None:
                    return action
    return bots[turn].choose(seat_info(game, turn))


def play_round(
    game: Game, bots: Sequence[Bot], max_actions: int = MAX_ROUND_ACTIONS
) -> RoundResult:
    """Play the current round to its end; returns its result (the game waits for next_round)."""
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    for _ in range(max_actions):
        if game.phase >= ROUND_OVER:
            return game.history[-1]
        game.apply(next_action(game, bots))
    raise RoundTooLong(f"the round did not end within {max_actions} actions")


def play_match(game: Game, bots: Sequence[Bot], max_actions: int = MAX_ROUND_ACTIONS) -> Game:
    """Play rounds (asking the bots for next_round) until the match is over."""
    while True:
        play_round(game, bots, max_actions)
        if game.is_match_over:
            return game
        game.apply(next_action(game, bots))
