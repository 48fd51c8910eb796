"""How the heuristic levels differ: one :class:`Profile` of numbers per level.

``hard`` remembers everything it learned and judges values exactly; ``medium`` and ``easy`` play
the same way with a human's failings: they forget cards, misjudge values, overlook taps and call
a little too early or too late.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Profile:
    """The parameters of the heuristic policy (values are in card points)."""

    forget: float = 0.0
    """Chance, at the start of each own turn, to forget each remembered card."""
    noise: float = 0.0
    """Standard deviation of the error added to the worth of every option considered."""
    tap_miss: float = 0.0
    """Chance to overlook a TAP the bot could be sure of."""
    call_noise: float = 0.0
    """Standard deviation of the error on the worth of calling (early or late calls)."""
    track_pile: bool = True
    """Count the discarded cards seen when estimating the unseen cards."""
    peek_value: float = 2.0
    """Worth of looking at an own unknown card."""
    spy_value: float = 1.0
    """Worth of looking at an opponent's unknown card."""
    know_bonus: float = 0.5
    """Worth of knowing the card that replaces an unknown one."""
    opp_bias: float = 2.9
    """How much lower than the unseen mean an opponent's unknown card is counted, at most:
    players keep their low cards, so the cards nobody else knows get lower as a round goes on."""
    opp_bias_turns: float = 2.2
    """Turns in which that bias builds up (a time constant)."""
    swap_bias: float = 2.0
    """How much higher an own card that arrived by someone's swap is counted."""
    swap_min: float = 1.0
    """Smallest worth for which a swap is made."""
    horizon: float = 2.0
    """Turns the round is expected to go on when the bot does not call."""
    call_bias: float = 1.0
    """Added to the worth of calling: above 0 calls earlier, below 0 later."""
    samples: int = 64
    """Sampled deals behind the call decision."""
    max_turns: int = 30
    """Own turns after which the bot calls whatever it holds."""

    def opponent_bias(self, turns: int) -> float:
        """How much lower an opponent's unknown card is counted after ``turns`` turns.

        Measured in hard-against-hard rounds of 2-player cabo: about 0.5 after one turn, 2
        after three, 2.8 after eight.
        """
        if self.opp_bias <= 0 or turns <= 0:
            return 0.0
        return max(0.0, self.opp_bias * (1.0 - math.exp(-(turns - 0.5) / self.opp_bias_turns)))

    def with_options(self, **options: Any) -> Profile:
        return dataclasses.replace(self, **options)


HARD = Profile()
MEDIUM = Profile(
    forget=0.04, noise=0.7, tap_miss=0.25, call_noise=1.5, track_pile=False, max_turns=25
)
EASY = Profile(
    forget=0.12,
    noise=1.6,
    tap_miss=0.5,
    call_noise=3.0,
    track_pile=False,
    peek_value=1.5,
    spy_value=0.5,
    know_bonus=0.0,
    opp_bias=0.0,
    swap_bias=0.0,
    max_turns=20,
)

PROFILES: dict[str, Profile] = {"easy": EASY, "medium": MEDIUM, "hard": HARD}
