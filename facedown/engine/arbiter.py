"""The arbiter: who the game waits for now, who may act out of turn, and which timer runs.

Every player of a table (the bot driver, the game server's table actor, the RL environment, the
terminal game) asks :func:`awaiting` and nothing else; none of them reads phases to work out
whose move it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .phases import OPENING, PLAY_PHASES, ROUND_OVER, Phase
from .state import State


class Timer(StrEnum):
    """The clock a table runs while it waits (its length is the table's setting)."""

    PEEK = "peek"  # the opening look
    TURN = "turn"  # one turn, from its start to its end
    REVEAL = "reveal"  # the reveal after a round, before the next one starts


@dataclass(frozen=True, slots=True)
class Awaiting:
    """What the game waits for.

    ``must_act``: the seats whose action the game waits for, the one to ask first first (the
    opening: every seat still to look; play: the turn player; the reveal: every seat, since any
    one of them starts the next round; the end of the match: nobody).  ``any_one``: one action
    from any of them is enough (the reveal).  ``may_tap``: seats that may act out of turn now,
    in the order to ask them (after the turn player).  ``timer``: the clock that runs, and
    ``timer_key`` changes exactly when that clock starts again (a new phase of the round, or a
    new turn), so a server keeps a deadline across the actions within one turn.
    """

    phase: Phase
    must_act: tuple[int, ...]
    any_one: bool
    may_tap: tuple[int, ...]
    timer: Timer | None
    timer_key: tuple[int, str, int]

    @property
    def first(self) -> int | None:
        """The seat to ask first, or None when the game waits for nobody."""
        return self.must_act[0] if self.must_act else None

    def must(self, seat: int) -> bool:
        """Whether the game waits for ``seat``."""
        return seat in self.must_act


def awaiting(g: State) -> Awaiting:
    """What ``g`` waits for now."""
    phase, n, turn = g.phase, g.players, g.turn
    if phase in PLAY_PHASES:
        taps: tuple[int, ...] = ()
        if g.rules.tap and g.discard_pile:
            order = [(turn + i) % n for i in range(1, n)]
            taps = tuple(s for s in order if g.occ[s])
        return Awaiting(phase, (turn,), False, taps, Timer.TURN, (g.round_no, Timer.TURN, turn))
    if phase is OPENING:
        waiting = tuple(s for s in range(n) if not g.peeked[s] and g.occ[s])
        return Awaiting(phase, waiting, False, (), Timer.PEEK, (g.round_no, Timer.PEEK, -1))
    if phase is ROUND_OVER:
        everyone = tuple((turn + i) % n for i in range(n))
        return Awaiting(phase, everyone, True, (), Timer.REVEAL, (g.round_no, Timer.REVEAL, -1))
    return Awaiting(phase, (), False, (), None, (g.round_no, "", -1))
