"""What one bot remembers of the current round: cards by place, the discard pile it saw.

The engine's knowledge (``SeatInfo.knowledge``) is perfect recall.  A :class:`Memory` copies it,
and a forgetful bot drops remembered cards at random at the start of each of its turns: a
forgotten card stays forgotten until the bot looks at that place again.  The memory also follows
the discard pile (card names by position, ``None`` where a card went by unseen), starting afresh
when the pile is shuffled into a new draw pile, and notices own cards that left by someone else's
swap (the card that arrived is probably a high one).  Where ``follow_events`` is set, it follows
from the events the seat is given which cards each player knows, by place
(:class:`~facedown.bots.aware.Awareness`).
"""

from __future__ import annotations

import random
from typing import Any

from ..engine import Action, View
from ..engine import actions as A
from .aware import Awareness
from .base import SeatInfo

Place = tuple[int, int]


def parse_place(text: str) -> Place:
    """``"1:3"`` -> ``(1, 3)``."""
    owner, slot = text.split(":")
    return int(owner), int(slot)


class Memory:
    """One seat's memory of one round."""

    def __init__(self, forget: float = 0.0, rng: random.Random | None = None) -> None:
        self.forget = forget
        self.rng = rng or random.Random(0)
        self.round = -1
        self.known: dict[Place, str] = {}
        self.forgotten: dict[Place, str] = {}
        self.pile: list[str | None] = []
        self.draw_size = -1
        self.suspect: set[Place] = set()
        self.last_action: Action | None = None
        self.aware = Awareness()
        # Whether ``aware`` follows the events given (a bot that reads it turns it on: the
        # others do not pay for following every event).
        self.follow_events = False

    def reset(self, round_no: int) -> None:
        self.round = round_no
        self.known.clear()
        self.forgotten.clear()
        self.pile.clear()
        self.draw_size = -1
        self.suspect.clear()
        self.last_action = None

    # ------------------------------------------------------------------ observing
    def observe(self, info: SeatInfo) -> None:
        """Take in what the seat sees now (the events given with ``info`` once: a driver gives
        each event in one observation only)."""
        view = info.view
        if self.follow_events:
            self.aware.follow(info.events, view)
        if view.round != self.round:
            self.reset(view.round)
        current = {parse_place(p): n for p, n in info.knowledge.items()}
        self._note_swapped_away(info.seat, current, view.hands)
        for place, name in current.items():
            if self.forgotten.get(place) == name:
                continue
            self.forgotten.pop(place, None)
            self.known[place] = name
            self.suspect.discard(place)
        for place in [p for p, n in self.known.items() if current.get(p) != n]:
            del self.known[place]
        for place in [p for p, n in self.forgotten.items() if current.get(p) != n]:
            del self.forgotten[place]
        self._observe_pile(view)

    def _note_swapped_away(self, seat: int, current: dict[Place, str], hands: Any) -> None:
        """An own card known a moment ago is no longer known where it lay: someone swapped it."""
        mine = self.last_action
        for place in self.known:
            owner, slot = place
            if owner != seat or place in current or not hands[owner][slot]:
                continue
            if mine is not None and mine.kind == A.SWAP and mine.slots[0] == slot:
                continue  # our own swap: the card that came is the one we chose
            self.suspect.add(place)

    def _observe_pile(self, view: View) -> None:
        draw, size, top = view.draw_size, view.discard_size, view.top_discard
        if draw > self.draw_size >= 0:  # the discard pile became a new draw pile
            self.pile.clear()
        self.draw_size = draw
        del self.pile[size:]
        self.pile.extend([None] * (size - len(self.pile)))
        if size:
            self.pile[-1] = top

    # ------------------------------------------------------------------ forgetting
    def forget_some(self) -> None:
        """Each remembered card is forgotten with probability ``forget`` (once per turn)."""
        if self.forget <= 0.0:
            return
        for place in list(self.known):
            if self.rng.random() < self.forget:
                self.forgotten[place] = self.known.pop(place)

    def look_again(self, place: Place) -> None:
        """The bot looks at ``place`` (peek, spy): what it sees there is remembered again."""
        self.forgotten.pop(place, None)

    def seen_pile(self) -> list[str]:
        """The names of the discard pile's cards this memory saw (the top included)."""
        return [n for n in self.pile if n is not None]
