"""Play a table of bots: who is asked what, and when.

The engine's arbiter (:meth:`~facedown.engine.Game.awaiting`) says who must act; that seat's bot
is asked :meth:`~facedown.bots.base.Bot.choose`.  Where the rules have TAP, every seat the arbiter
says may act out of turn whose bot is :class:`~facedown.bots.base.Reactive` is first asked whether
it taps, in seat order after the turn player, once for every state of the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Action, Game, RoundResult
from .base import Bot, Reactive, seat_info

# A round of bots longer than this ends with an error; the engine ends every round sooner
# (round_action_limit, at most 10,000 actions of play), so this guards only a broken engine.
MAX_ROUND_ACTIONS = 20_000


class RoundTooLong(RuntimeError):
    """The bots did not end the round within the allowed number of actions."""


def next_action(game: Game, bots: Sequence[Bot]) -> Action:
    """The action the bots at ``game`` take next (the caller applies it)."""
    waiting = game.awaiting()
    for seat in waiting.may_tap:
        bot = bots[seat]
        if isinstance(bot, Reactive):
            action = bot.react(seat_info(game, seat))
            if action is not None:
                return action
    first = waiting.first
    if first is None:
        raise ValueError("the match is over: nobody is to act")
    return bots[first].choose(seat_info(game, first))


def play_round(
    game: Game, bots: Sequence[Bot], max_actions: int = MAX_ROUND_ACTIONS
) -> RoundResult:
    """Play the current round to its end; returns its result (the game waits for next_round)."""
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    for _ in range(max_actions):
        if game.is_round_over:
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
