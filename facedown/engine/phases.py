"""The phases of a round, as an enum whose values are the JSON words."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a round stands.  Play runs from ``TURN_START`` to ``TURN_END``; TAP only then."""

    OPENING = "opening"  # every seat looks at its opening cards; no turn yet
    TURN_START = "turn_start"  # the turn player draws, takes the discard or calls
    HOLDING = "holding"  # the turn player holds a card drawn from the deck
    TAKEN = "taken"  # the turn player holds the card taken from the discard pile
    POWERS = "powers"  # the drawn card was discarded for its powers: use or skip them
    TURN_END = "turn_end"  # the replace or discard is done: END TURN (or call)
    ROUND_OVER = "round_over"  # the reveal: the next action is next_round
    MATCH_OVER = "match_over"  # nothing more to do

    # Phases have no order: a comparison of their words would be alphabetical, and wrong.
    def __lt__(self, other: object) -> bool:
        raise TypeError("phases are not ordered: use in_play, is_over or a comparison with ==")

    __le__ = __gt__ = __ge__ = __lt__

    @property
    def in_play(self) -> bool:
        """A turn is under way: someone's turn, and taps possible where the rules have them."""
        return self in PLAY_PHASES

    @property
    def is_over(self) -> bool:
        """The round has ended (its reveal, or the end of the match)."""
        return self is Phase.ROUND_OVER or self is Phase.MATCH_OVER


# Module constants: a global name is quicker to reach than an enum member in the hot path.
OPENING = Phase.OPENING
TURN_START = Phase.TURN_START
HOLDING = Phase.HOLDING
TAKEN = Phase.TAKEN
POWERS = Phase.POWERS
TURN_END = Phase.TURN_END
ROUND_OVER = Phase.ROUND_OVER
MATCH_OVER = Phase.MATCH_OVER

# Sets, not tuples: a miss in a tuple of enum members compares each one (ten times slower).
PLAY_PHASES = frozenset((TURN_START, HOLDING, TAKEN, POWERS, TURN_END))
OVER_PHASES = frozenset((ROUND_OVER, MATCH_OVER))
