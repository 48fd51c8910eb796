"""A learned value of a table at a search's horizon: a small network, numpy only.

The `learned` level (:mod:`facedown.bots.learned`) searches as the expert does, but scores a
playout that stops at its horizon with this network's value.  It reads a *sampled* game (one
the search dealt from the seat's knowledge, never the real one) and predicts the seat's round
score minus the others' mean.  The prediction is the expert's linear value
(:mod:`facedown.bots.leaf`) plus a correction the network learns (the linear value is one of its
inputs too), so an untrained network plays as the expert does.  ``facedown train``
(:mod:`facedown.train`) fits the correction to rounds of self-play.

The weights live in a small ``.npz`` file (:data:`WEIGHTS_FILE`) with a format version, the
training seed and the steps it was trained for; inference is two matrix products.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Game
from .leaf import leaf_value, leaf_weights, seat_features

FORMAT = 1  # the version of the weights file's layout
WEIGHTS_FILE = Path(__file__).with_name("learned_value.npz")
PRESET_ORDER = ("boyo", "cabo", "kivo", "kaboom")
SCALE = 10.0  # card points are divided by this on the way in, the target too

INPUTS = (
    "own hand total",
    "own total the seat does not know",
    "own cards the seat does not know",
    "own highest known card",
    "own cards in hand",
    "others' mean hand total",
    "others' mean unknown total",
    "others' mean unknown cards",
    "others' mean highest known card",
    "others' mean cards in hand",
    "others' lowest hand total",
    "others' lowest known total",
    "draw pile, part of the deck",
    "top discard",
    "1 / (players - 1)",
    *(f"preset {p}" for p in PRESET_ORDER),
    "the expert's linear value",  # last: the prediction adds it back (see ValueNet)
)

Array = npt.NDArray[np.float64]


def inputs(game: Game, seat: int) -> list[float] | None:
    """The network's inputs for ``seat`` at ``game`` (None: a ruleset it was not trained on)."""
    name = game.rules.name
    if name not in PRESET_ORDER:
        return None
    n = game.players
    mine = seat_features(game, seat)
    sums = [0.0] * 5
    low_total = low_known = 1e9
    for o in range(n):
        if o == seat:
            continue
        f = seat_features(game, o)
        for i in range(5):
            sums[i] += f[i]
        low_total = min(low_total, f[0])
        low_known = min(low_known, f[0] - f[1])
    m = 1.0 / (n - 1)
    weights = leaf_weights(name, n)
    linear = leaf_value(game, seat, weights) if weights is not None else 0.0
    size = len(game.deck.values) or 1
    top = game.discard_pile[-1] if game.discard_pile else -1
    top_value = float(game.deck.values[top]) if top >= 0 else 0.0
    s = 1.0 / SCALE
    return [
        mine[0] * s,
        mine[1] * s,
        mine[2] / 4.0,
        mine[3] * s,
        mine[4] / 4.0,
        sums[0] * m * s,
        sums[1] * m * s,
        sums[2] * m / 4.0,
        sums[3] * m * s,
        sums[4] * m / 4.0,
        low_total * s,
        low_known * s,
        len(game.draw_pile) / size,
        top_value * s,
        m,
        *(1.0 if name == p else 0.0 for p in PRESET_ORDER),
        linear * s,
    ]


@dataclass
class ValueNet:
    """One hidden layer of tanh units; its output (over SCALE) is added to the linear value,
    the last input."""

    w1: Array
    b1: Array
    w2: Array
    b2: float
    mean: Array  # inputs are standardised with these (fitted on the training rows)
    std: Array
    seed: int = 0
    steps: int = 0

    @classmethod
    def fresh(cls, hidden: int, rng: np.random.Generator, mean: Array, std: Array) -> ValueNet:
        k = len(INPUTS)
        return cls(
            w1=rng.normal(0.0, 1.0 / np.sqrt(k), (k, hidden)),
            b1=np.zeros(hidden),
            w2=rng.normal(0.0, 0.1 / np.sqrt(hidden), hidden),
            b2=0.0,
            mean=mean,
            std=std,
        )

    def predict_rows(self, x: Array) -> Array:
        """Predicted score differences (in points) for rows of raw :func:`inputs`."""
        h = np.tanh(((x - self.mean) / self.std) @ self.w1 + self.b1)
        out: Array = (h @ self.w2 + self.b2 + x[:, -1]) * SCALE
        return out

    def value(self, game: Game, seat: int) -> float | None:
        """``seat``'s predicted round score minus the others' mean (None: not trained for it)."""
        x = inputs(game, seat)
        if x is None:
            return None
        return self._one(x)

    def score(self, game: Game, seat: int) -> float:
        """:meth:`value`, for a table it was trained on (a search's horizon value)."""
        x = inputs(game, seat)
        return 0.0 if x is None else self._one(x)

    def _one(self, x: list[float]) -> float:
        v = (np.asarray(x) - self.mean) / self.std
        h = np.tanh(v @ self.w1 + self.b1)
        return (float(h @ self.w2 + self.b2) + x[-1]) * SCALE

    def arrays(self) -> dict[str, Any]:
        return {
            "format": np.int64(FORMAT),
            "inputs": np.array(INPUTS),
            "w1": self.w1,
            "b1": self.b1,
            "w2": self.w2,
            "b2": np.float64(self.b2),
            "mean": self.mean,
            "std": self.std,
            "seed": np.int64(self.seed),
            "steps": np.int64(self.steps),
        }

    def save(self, path: Path) -> None:
        """Write the weights (float32 would do; float64 keeps a reload exact)."""
        with path.open("wb") as stream:
            np.savez_compressed(stream, **self.arrays())

    @classmethod
    def load(cls, path: Path = WEIGHTS_FILE) -> ValueNet:
        with np.load(path) as data:
            version = int(data["format"])
            if version != FORMAT:
                raise ValueError(f"{path}: weights format {version}, this code reads {FORMAT}")
            if tuple(str(s) for s in data["inputs"]) != INPUTS:
                raise ValueError(f"{path}: the weights were trained on other inputs")
            return cls(
                w1=data["w1"],
                b1=data["b1"],
                w2=data["w2"],
                b2=float(data["b2"]),
                mean=data["mean"],
                std=data["std"],
                seed=int(data["seed"]),
                steps=int(data["steps"]),
            )


_LOADED: dict[Path, ValueNet] = {}


def shipped(path: Path | None = None) -> ValueNet:
    """The weights at ``path`` (default: the shipped file), read once per process."""
    where = (path or WEIGHTS_FILE).resolve()
    net = _LOADED.get(where)
    if net is None:
        net = _LOADED[where] = ValueNet.load(where)
    return net
