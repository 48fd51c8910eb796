"""What the server plays for a player whose timer ran out: a sensible, harmless move.

This chooses among the engine's legal actions; it decides no rule.
"""

from __future__ import annotations

from ...engine import Action, Game
from ...engine import actions as A

# In order of preference: finish what was started, then the least committal move.
_PREFERENCE = (
    A.OPENING_PEEK,
    A.NEXT_ROUND,
    A.END_TURN,
    A.SKIP,
    A.UNDO,
    A.DISCARD,
    A.DRAW,
    A.TAKE_DISCARD,
    A.REPLACE,
    A.CALL,
)


def default_action(game: Game, seat: int) -> Action | None:
    """The move made for ``seat`` when its time is up, or None when it has nothing to do.

    Holding a drawn card: discard it; holding a taken discard: put it back where the rules allow,
    otherwise replace the first card; at the start of a turn: draw.  Never a TAP.
    """
    legal = [a for a in game.legal_actions(seat) if a.kind != A.TAP]
    for kind in _PREFERENCE:
        for action in legal:
            if action.kind == kind and (kind != A.REPLACE or len(action.slots) == 1):
                return action
    return None
