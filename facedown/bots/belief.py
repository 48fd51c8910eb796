"""A bot's picture of the table: known cards, the unseen cards, and estimates for the rest.

Unseen cards are the deck minus every card the bot remembers: cards in hands, the discard pile
it saw, the card it holds.  An unknown card in a hand is estimated at the mean value of the unseen
cards; opponents keep their low cards, so an unknown opponent card counts a little lower, and an
own card that arrived by someone else's swap a little higher.
"""

from __future__ import annotations

import random
from collections import Counter

from .base import SeatInfo
from .cardbook import CardBook
from .memory import Memory, Place


class Belief:
    """Estimates of every card on the table, from one seat's memory."""

    def __init__(
        self,
        info: SeatInfo,
        memory: Memory,
        book: CardBook,
        *,
        track_pile: bool = True,
        opp_bias: float = 0.0,
        swap_bias: float = 0.0,
    ) -> None:
        view = info.view
        self.book = book
        self.seat = info.seat
        self.players: int = view.players
        self.slots: list[tuple[int, ...]] = [
            tuple(s for s, filled in enumerate(hand) if filled) for hand in view.hands
        ]
        self.known: dict[Place, str] = {
            p: n for p, n in memory.known.items() if p[1] in self.slots[p[0]]
        }
        self.held: str | None = view.held
        self.top: str | None = view.top_discard
        self.caller: int | None = view.caller
        seen = Counter(self.known.values())
        seen.update(memory.seen_pile() if track_pile else ([self.top] if self.top else []))
        if self.held is not None:
            seen[self.held] += 1
        pool = book.counts - seen
        self.pool: list[str] = list(pool.elements())
        values = [book.values[n] for n in self.pool]
        self.mean = sum(values) / len(values) if values else book.mean
        self.opp_mean = self.mean - opp_bias
        self.suspect_mean = self.mean + swap_bias
        self.suspect = {p for p in memory.suspect if p not in self.known}
        self.others = [(self.seat + i) % self.players for i in range(1, self.players)]

    # ------------------------------------------------------------------ estimates
    def value(self, name: str) -> int:
        return self.book.values[name]

    def est(self, place: Place) -> float:
        """The expected value of the card at ``place``."""
        name = self.known.get(place)
        if name is not None:
            return self.book.values[name]
        if place[0] != self.seat:
            return self.opp_mean
        return self.suspect_mean if place in self.suspect else self.mean

    def is_known(self, place: Place) -> bool:
        return place in self.known

    def mine(self) -> list[Place]:
        return [(self.seat, s) for s in self.slots[self.seat]]

    def unknown_mine(self) -> list[Place]:
        return [p for p in self.mine() if p not in self.known]

    def theirs(self, owner: int) -> list[Place]:
        return [(owner, s) for s in self.slots[owner]]

    def total(self, owner: int) -> float:
        return sum(self.est(p) for p in self.theirs(owner))

    def unknown_count(self, owner: int) -> int:
        return sum(1 for p in self.theirs(owner) if p not in self.known)

    # ------------------------------------------------------------------ sampling
    def sample_totals(self, rng: random.Random, samples: int) -> list[list[float]]:
        """Hand totals of every player in worlds drawn from the unseen cards.

        The biases of :meth:`est` apply: an unknown opponent card counts ``opp_bias`` lower, an own
        card that came by someone's swap ``swap_bias`` higher.
        """
        unknown = [p for o in range(self.players) for p in self.theirs(o) if p not in self.known]
        fixed = [0.0] * self.players
        for (owner, _), name in self.known.items():
            fixed[owner] += self.book.values[name]
        for place in unknown:
            fixed[place[0]] += self.est(place) - self.mean
        values = [self.book.values[n] for n in self.pool] or [round(self.mean)]
        owners = [p[0] for p in unknown]
        k = len(unknown)
        # Drawn with replacement: one quick call, and the pool is large next to k.
        drawn = rng.choices(values, k=k * samples)
        out = []
        for i in range(0, k * samples, k) if k else range(samples):
            totals = list(fixed)
            for owner, v in zip(owners, drawn[i : i + k], strict=True):
                totals[owner] += v
            out.append(totals)
        return out
