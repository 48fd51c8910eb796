"""Sample a whole game that agrees with everything one seat knows.

A search bot cannot see the deck, so it deals one itself: every card it knows goes where it knows
it lies, the unseen cards are shuffled over the places it does not know (unknown hand cards, the
draw pile, the parts of the discard pile it did not see), and the result is rebuilt with
:meth:`Game.from_snapshot`.  What the opponents know is guessed: each of their own cards with
probability ``opponent_knows``, whether the seat knows that card or not.  Players keep the low
cards they know, so an opponent's card that its owner knows and the seat does not is dealt low:
as the lowest of ``1 + keep_low / opponent_knows`` unseen cards (the fractional part is the
chance of one more card to choose from: 0.5 deals the lower of two half the time, 2.5 the lowest
of three or of four).  A card its owner has not seen is dealt as any unseen card.  With
``kept_known`` False, every opponent's card the seat does not know is dealt as the lowest of
``1 + keep_low``, whoever knows it.

Where the seat was given the round's events (``memory.aware`` follows it from its start), which
cards each opponent knows is not guessed: it is what the events showed (the opening peek, the
cards it put in its hand, its peeks and spies, the swaps), both for the cards dealt low and for
what the opponents know in the sampled game.  Without events the draws are the ones above.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..engine import EMPTY, Game, Phase
from .aware import Awareness
from .base import SeatInfo
from .memory import Memory, Place


class Sampler:
    """Deals sampled games for one seat's decision."""

    def __init__(
        self,
        info: SeatInfo,
        memory: Memory,
        rules_json: dict[str, Any],
        *,
        opponent_knows: float = 0.6,
        keep_low: float = 0.0,
        kept_known: bool = True,
        track_events: bool = False,
        lowest_of: Callable[[Awareness, Place], float | None] | None = None,
    ) -> None:
        view = info.view
        self.view = view
        self.seat = info.seat
        self.rules_json = rules_json
        self.opponent_knows = opponent_knows
        self.keep_low = keep_low
        self.values = info.rules.deck_cards.values
        names = info.rules.deck_cards.names
        self.ids: dict[str, list[int]] = {}
        for cid, name in enumerate(names):
            self.ids.setdefault(name, []).append(cid)
        self.size = len(names)
        hands = view.hands
        self.places: list[Place] = [
            (o, s) for o, hand in enumerate(hands) for s, filled in enumerate(hand) if filled
        ]
        self.known = {p: n for p, n in memory.known.items() if p in set(self.places)}
        self.pile = list(memory.pile[: view.discard_size])
        self.pile += [None] * (view.discard_size - len(self.pile))
        if self.pile:
            self.pile[-1] = view.top_discard
        self.held: str | None = view.held
        self.holding = view.holding
        self.kept_known = kept_known
        aware = memory.aware
        # What the opponents know, from the events (None: not given them, or told not to use them).
        self.tracked: Awareness | None = (
            aware if track_events and aware.tracks(view.round) else None
        )
        # Of how many unseen cards an opponent's card its owner knows is dealt the lowest, by
        # what the events say of that place (None, or events not followed: ``keep_low``).
        self.lowest_of = lowest_of if self.tracked is not None else None

    def sample(self, rng: random.Random) -> Game:  # noqa: C901 - one pass whose seeded draws keep their order
        """One game consistent with the seat's knowledge."""
        view, seat = self.view, self.seat
        free = {name: list(ids) for name, ids in self.ids.items()}
        for ids in free.values():
            rng.shuffle(ids)

        def take(name: str | None) -> int:
            if name is None:
                return EMPTY
            ids = free.get(name)
            return ids.pop() if ids else EMPTY  # memory out of step: leave the place unknown

        held = take(self.held) if self.holding else EMPTY
        place_ids = {p: take(self.known.get(p)) for p in self.places}
        pile_ids = [take(n) for n in self.pile]
        rest = [c for ids in free.values() for c in ids]
        rng.shuffle(rest)
        hidden_places = [p for p, c in place_ids.items() if c == EMPTY]
        values = self.values
        knows = self.opponent_knows
        # Which of their cards the opponents know.  Players keep the low cards they know and
        # replace the high ones, so those are dealt low; a card its owner has not seen is as
        # likely as any (with ``kept_known`` False, every unknown card is dealt low).
        aware = self._owners_know(rng)
        keep_low = self.keep_low / max(knows, 0.05) if self.kept_known else self.keep_low
        lowest_of, tracked = self.lowest_of, self.tracked
        for p in hidden_places:
            card = rest.pop()
            if p[0] != seat and rest and (p in aware or not self.kept_known):
                low = keep_low
                k = lowest_of(tracked, p) if lowest_of is not None and tracked is not None else None
                if k is not None:  # the model's word for this place (None: it has none)
                    low = max(0.0, k - 1.0)
                more = int(low) + (rng.random() < low % 1.0)
                for _ in range(more):
                    other = rng.randrange(len(rest))
                    if values[rest[other]] < values[card]:
                        card, rest[other] = rest[other], card
            place_ids[p] = card
        pile_ids = [c if c != EMPTY else rest.pop() for c in pile_ids]
        if self.holding and held == EMPTY:
            held = rest.pop()
        hands = [[EMPTY] * len(hand) for hand in view.hands]
        for (o, s), c in place_ids.items():
            hands[o][s] = c
        known = [0] * view.players
        hidden = set(hidden_places)
        for p, c in place_ids.items():
            if p not in hidden:
                known[seat] |= 1 << c
        for o, p in self._knowers(aware):
            c = place_ids.get(p, EMPTY)
            if c != EMPTY:
                known[o] |= 1 << c
        if held != EMPTY and (self.held is not None):
            known[seat] |= 1 << held
        caller = view.caller
        snapshot = {
            "rules": self.rules_json,
            "players": view.players,
            "seed": rng.getrandbits(30),
            "round": view.round,
            "first": view.first,
            "phase": view.phase,
            "turn": seat,
            "hands": hands,
            "draw_pile": rest,
            "discard_pile": pile_ids,
            "held": held,
            "held_from_discard": view.phase is Phase.TAKEN,
            "pending": list(view.powers),
            "caller": caller if caller is not None else EMPTY,
            "finals_left": view.final_turns_left or 0,
            "passes": 0,
            "peeked": list(view.peeked),
            "known": known,
            "public": 0,
            "reshuffles": 0,
            "totals": list(view.totals),
            "hundred_used": [False] * view.players,
            "history": [],
            "winners": [],
            # In a sudden-death round the engine finds its players again from the totals.
            "sudden_death_played": bool(view.sudden_death),
        }
        return Game.from_snapshot(snapshot)

    def _owners_know(self, rng: random.Random) -> set[Place]:
        """The opponents' places whose card their owner knows: followed from the events, or
        each with probability ``opponent_knows``."""
        seat, tracked = self.seat, self.tracked
        if tracked is not None:
            return {p for p in self.places if p[0] != seat and tracked.knows(p[0], p)}
        knows = self.opponent_knows
        return {p for p in self.places if p[0] != seat and rng.random() < knows}

    def _knowers(self, aware: set[Place]) -> list[tuple[int, Place]]:
        """(opponent, place) for every card an opponent knows in the sampled game: from the
        events every place it knows (a spied card of another's too), else its own ``aware``."""
        tracked = self.tracked
        if tracked is None:
            return [(p[0], p) for p in aware]
        seat = self.seat
        return [(o, p) for o, known in enumerate(tracked.known) if o != seat for p in known]
