"""The errors an illegal action raises.  Each says, in a sentence, why the action was refused."""

from __future__ import annotations


class IllegalAction(Exception):
    """The engine refused an action; the state is unchanged."""

    code = "illegal"


class WrongPhase(IllegalAction):
    """The action does not fit this moment of the round (no card held, round over, ...)."""

    code = "wrong_phase"


class NotYourTurn(IllegalAction):
    """Only the player whose turn it is may take this action."""

    code = "not_your_turn"


class InvalidSlot(IllegalAction):
    """A slot that does not exist or holds no card, or slots that cannot go together."""

    code = "invalid_slot"


class InvalidTarget(IllegalAction):
    """A target player who is not another seat at the table."""

    code = "invalid_target"


class PowerUnavailable(IllegalAction):
    """The power is not offered now (not drawn, taken from the discard, used, or forfeited)."""

    code = "power_unavailable"


class CallNotAllowed(IllegalAction):
    """A call at a moment the rules do not allow, or a second call in a round."""

    code = "call_not_allowed"


class NotAllowedByRules(IllegalAction):
    """The ruleset of this table does not have this action (TAP, undo, ...)."""

    code = "not_in_rules"
