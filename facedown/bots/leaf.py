"""What a position at a playout's horizon is worth: a value fitted to how rounds of `hard` end.

A search that plays a few turns and stops must say how good the table is then.  Counting the hand
totals treats every card alike, but they are not alike: a card its owner has never seen is
usually replaced blind before the round ends (so what it really is counts for little), and a
known high card is about to go.  :func:`leaf_value` predicts a seat's round score minus the
others' mean from each seat's hand as its owner knows it, with weights fitted (least squares) to
rounds of `hard` against `hard` by ``benchmarks/leaf_values.py``.
"""

from __future__ import annotations

from ..engine import Game

# A seat's minus the others' mean of each, after a constant 1.
FEATURES = (
    "1",
    "hand total",
    "total of the cards its owner does not know",
    "cards its owner does not know",
    "its highest card it knows (0: none)",
    "cards in hand",
)

# (preset, players) -> weights of FEATURES, from
# `benchmarks/leaf_values.py --jobs 2` (2,000 rounds to fit per table, seed 1).
WEIGHTS: dict[tuple[str, int], tuple[float, ...]] = {
    ("boyo", 2): (-0.9372, 0.4170, -0.1927, 1.7374, -0.2006, 0.9306),
    ("boyo", 3): (-1.0349, 0.4063, -0.1597, 1.7853, -0.1469, 0.8067),
    ("boyo", 4): (-1.0637, 0.3938, -0.0970, 1.6431, -0.0829, 0.6554),
    ("boyo", 6): (-1.1526, 0.3491, -0.0160, 1.7771, -0.0169, 0.3272),
    ("cabo", 2): (-1.0350, 0.6280, -0.4284, 2.8837, -0.2845, 1.4295),
    ("cabo", 3): (-0.7909, 0.4457, -0.3102, 2.4831, -0.1042, 0.8332),
    ("cabo", 4): (-0.7081, 0.4577, -0.3605, 2.4759, -0.1545, 0.7619),
    ("cabo", 6): (-0.4709, 0.3742, -0.2362, 1.6928, -0.1544, 1.1620),
    ("kivo", 2): (-0.3219, 0.4679, -0.4245, 1.7832, -0.4420, 0.0000),
    ("kivo", 3): (-0.2543, 0.4445, -0.3714, 1.3453, -0.4342, 0.0000),
    ("kivo", 4): (-0.2736, 0.4721, -0.4278, 1.7146, -0.4243, 0.0000),
    ("kivo", 6): (-0.2391, 0.3544, -0.2870, 1.3580, -0.2356, 0.0000),
    ("kaboom", 2): (-1.1128, 0.6504, 0.3134, -0.8841, -0.2873, 0.1656),
    ("kaboom", 3): (-0.8143, 0.4327, -0.1512, 1.4558, -0.0872, 0.6808),
    ("kaboom", 4): (-0.7513, 0.3644, -0.1547, 1.6574, -0.0521, 0.7258),
    ("kaboom", 6): (-0.7667, 0.4264, -0.2049, 1.8691, -0.1044, 0.6514),
}


def leaf_weights(preset: str, players: int) -> tuple[float, ...] | None:
    """The fitted weights for a table (a bigger table than fitted: the biggest fitted), or
    None (then the search compares hand totals)."""
    found = WEIGHTS.get((preset, players))
    if found is None:
        fitted = [n for p, n in WEIGHTS if p == preset and n < players]
        if fitted:
            found = WEIGHTS[(preset, max(fitted))]
    return found


def seat_features(game: Game, seat: int) -> tuple[float, float, float, float, float]:
    """Hand total, its part ``seat`` does not know, cards it does not know, highest card it
    knows, cards in hand."""
    values = game.deck.values
    mask = game.known[seat] | game.public
    total = unknown = 0.0
    hidden = cards = 0
    high: float | None = None
    for c in game.hands[seat]:
        if c < 0:
            continue
        cards += 1
        v = values[c]
        total += v
        if (mask >> c) & 1:
            if high is None or v > high:
                high = v
        else:
            unknown += v
            hidden += 1
    return total, unknown, float(hidden), high if high is not None else 0.0, float(cards)


def features(game: Game, seat: int) -> list[float]:
    """:data:`FEATURES` for ``seat``: its own minus the others' mean, after a constant 1."""
    n = game.players
    mine = seat_features(game, seat)
    others = [0.0] * len(mine)
    for o in range(n):
        if o != seat:
            for i, x in enumerate(seat_features(game, o)):
                others[i] += x
    return [1.0] + [m - t / (n - 1) for m, t in zip(mine, others, strict=True)]


def leaf_value(game: Game, seat: int, weights: tuple[float, ...]) -> float:
    """The predicted round score of ``seat`` minus the others' mean, from the table as it is."""
    return sum(w * x for w, x in zip(weights, features(game, seat), strict=True))
