"""The `learned` level: the expert's search with a learned value at its horizon.

It is the expert (:class:`~facedown.bots.search.ExpertBot`: sampled deals consistent with what
the seat knows, each candidate played out a few turns), with two differences: a playout that
stops at its horizon is scored by the expert's linear fit (:mod:`facedown.bots.leaf`) plus a
correction by a small network trained by ``facedown train`` (:mod:`facedown.bots.value`,
weights in ``facedown/bots/learned_value.npz``), and its time budget is 30 ms, so that a
decision takes under 50 ms.  Like every bot it sees only its seat's information; the network
reads the deals the search samples from it.  A ruleset the network was not trained on falls
back to the linear values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import SeatInfo
from .rollout import Leaf
from .search import ExpertBot
from .value import PRESET_ORDER, ValueNet, shipped

BUDGET_MS = 30.0


class LearnedBot(ExpertBot):
    """A search player of one seat whose horizon values come from a trained network."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        weights: str | Path | None = None,
        budget_ms: float = BUDGET_MS,
        **options: Any,
    ) -> None:
        """``weights``: a weights file (default: the shipped one); the other options are the
        expert's (:class:`~facedown.bots.search.ExpertBot`)."""
        super().__init__(seed, budget_ms=budget_ms, **options)
        self.net: ValueNet = shipped(Path(weights) if weights is not None else None)

    def leaf_value(self, info: SeatInfo) -> Leaf:
        if not self.leaf or info.rules.name not in PRESET_ORDER:
            return super().leaf_value(info)
        return self.net.score
