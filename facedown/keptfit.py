"""Fit the kept-card model of :mod:`facedown.bots.kept` from rounds of `hard` self-play.

Seat 0 follows the events (as the expert does with ``track_events``); at each of its turn starts
every opponent place whose card the owner knows and seat 0 does not gives that card's rank among
the cards seat 0 has not seen, read off the real game: a fitting tool, not a player, so it may
look (the bots' decision modules never touch a game).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .bots.aware import Awareness
from .bots.base import SeatInfo
from .bots.driver import play_round
from .bots.heuristic import HeuristicBot
from .bots.kept import KeptCards, cell, table_key
from .bots.memory import Place
from .bots.profiles import HARD
from .engine import PRESETS, Action, Game, Phase

# Cells seen fewer times are not fitted: a mean rank of one or two cards says nothing (boyo's
# rarest cells came out at k = 39 and 999 without this bound).
LEAST = 30


class _Recorder(HeuristicBot):
    """`hard` at seat 0, following the events, noting the ranks of the opponents' known cards."""

    def __init__(self, seed: int, game: Game, ranks: dict[str, list[float]]) -> None:
        super().__init__(HARD, seed)
        self.memory.follow_events = True
        self.game = game
        self.ranks = ranks

    def choose(self, info: SeatInfo) -> Action:
        action = super().choose(info)
        aware = self.memory.aware
        if info.view.phase is Phase.TURN_START and aware.tracks(info.view.round):
            self._note(info.seat, aware)
        return action

    def _note(self, seat: int, aware: Awareness) -> None:
        game, known = self.game, self.memory.known
        values = game.rules.deck_cards.values
        unseen = [values[c] for c in game.draw_pile]
        theirs: list[tuple[Place, int]] = []
        for owner, hand in enumerate(game.hands):
            for slot, card in enumerate(hand):
                place = (owner, slot)
                if card < 0 or place in known:
                    continue
                unseen.append(values[card])
                if owner != seat and aware.knows(owner, place):
                    theirs.append((place, values[card]))
        others = len(unseen) - 1
        for place, value in theirs:
            below = sum(1 for u in unseen if u < value)
            ties = sum(1 for u in unseen if u == value) - 1
            rank = (below + ties / 2) / max(1, others)
            self.ranks[cell(place in aware.chosen, aware.kept_turns(place))].append(rank)


def fit_table(
    preset: str, players: int, rounds: int, seed: int, least: int = LEAST
) -> dict[str, float]:
    """*k* by cell for one table from ``rounds`` rounds of `hard` self-play (a cell seen fewer
    than ``least`` times is left out: :meth:`KeptCards.lowest_of` falls back on the one kept a
    turn less)."""
    ranks: dict[str, list[float]] = defaultdict(list)
    rules = PRESETS[preset]
    for r in range(rounds):
        game = Game(rules, players, seed=seed * 1_000_003 + r)
        bots: list[Any] = [_Recorder(seed + 7 * r, game, ranks)]
        bots += [HeuristicBot(HARD, seed + 7 * r + i) for i in range(1, players)]
        play_round(game, bots)
    return {
        cell: max(1.0, round(1.0 / max(sum(rs) / len(rs), 1e-3) - 1.0, 3))
        for cell, rs in sorted(ranks.items())
        if len(rs) >= least
    }


def fit(tables: list[tuple[str, int]], rounds: int, seed: int, least: int = LEAST) -> KeptCards:
    """The model of every table (preset, seats) from ``rounds`` rounds each."""
    fitted = {table_key(p, n): fit_table(p, n, rounds, seed, least) for p, n in tables}
    return KeptCards(fitted, seed, rounds)
