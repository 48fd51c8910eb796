"""Which cards each player knows, by place, followed from the events a seat is shown.

A player at the table sees which of its own slots each opponent looked at in the opening peek,
where it put a drawn or taken card (it knows that card, and chose to keep it), that it threw a
drawn card away (and so kept the cards it knows once more), which card it spied on, which two
cards changed places by someone's swap, and where a TAP or a penalty card went.  The engine
renders each of those to every seat without the faces (:func:`facedown.engine.seen_event`), and
an :class:`Awareness` follows them: for every seat, the places whose card it knows now.

Knowledge follows a card, as the engine's does: a swap moves what each seat knows of the two
cards along with them (an opponent whose known card was swapped away no longer knows the card
that arrived, unless it had spied on it).  Cards shown to everyone (a failed set, a missed TAP,
a card taken from the discard pile and put in a hand) are known to every seat.

For a place its owner knows, it also keeps since when the owner has kept the card there by
choice: :meth:`Awareness.kept_turns` counts the owner's turns ended since it learned the card
without putting another in its place, and a card it put there itself is ``chosen``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import EventKind, Phase, SeenEvent, View

Place = tuple[int, int]

K = EventKind


class Awareness:
    """What every seat of one round knows, by place, as the events have shown it."""

    def __init__(self) -> None:
        self.given = False  # some event was ever given (without, nothing is tracked)
        self.round = -1  # the round followed from its start (-1: none)
        self.known: list[set[Place]] = []  # per seat, the places whose card it knows
        self.since: dict[Place, int] = {}  # a place its owner knows: its turns ended by then
        self.chosen: set[Place] = set()  # places whose card their owner put there
        self.ended: list[int] = []  # per seat, its turns ended this round
        self.turn = -1  # the seat whose turn it is (-1: none)
        self.held_public = False  # the card held now was taken from the discard pile

    def tracks(self, round_no: int) -> bool:
        """Whether this was given events and followed round ``round_no`` from its start."""
        return self.given and self.round == round_no

    def knows(self, seat: int, place: Place) -> bool:
        return place in self.known[seat]

    def kept_turns(self, place: Place) -> int:
        """The turns its owner ended knowing the card at ``place`` and keeping it there."""
        return self.ended[place[0]] - self.since[place]

    # ------------------------------------------------------------------ following events
    def follow(self, events: Iterable[SeenEvent], view: View) -> None:
        """Take in the events given with an observation whose view is ``view``, in order.

        A round is followed from its ``round_started`` event, or from the opening peek when
        the seat first sees it there: a game's first deal is made by its constructor, whose
        events a driver may not pass on (a round with no opening peek is then not followed)."""
        if view.phase is Phase.OPENING and self.round != view.round:
            self._start(view.round, view.players)
        for event in events:
            self.given = True
            kind = event.type
            if kind is K.ROUND_STARTED:
                self._start(event.round or 0, view.players)
            elif self.round >= 0:
                self._apply(kind, event)

    def _start(self, round_no: int, players: int) -> None:
        self.round = round_no
        self.known = [set() for _ in range(players)]
        self.since.clear()
        self.chosen.clear()
        self.ended = [0] * players
        self.turn = -1
        self.held_public = False

    def _apply(self, kind: K, e: SeenEvent) -> None:  # noqa: C901 - one branch per event kind
        by = e.by if e.by is not None else -1
        if kind is K.OPENING_PEEKED or kind is K.PEEKED:
            for slot in e.slots:
                self._learn(by, (by, slot))
        elif kind is K.PLAY_STARTED or kind is K.TURN_STARTED:
            self._end_turn()
            self.turn = by
        elif kind is K.ROUND_OVER:
            self._end_turn()
        elif kind is K.DREW:
            self.held_public = False
        elif kind is K.TOOK_DISCARD:
            self.held_public = True
        elif kind is K.REPLACED:
            for slot in e.slots[1:]:  # the rest of a set leaves the hand
                self._empty((by, slot))
            self._put(by, (by, e.slots[0]))
        elif kind is K.KEPT:  # a failed set: the held card goes to a new place
            self._put(by, (by, e.slots[0]))
        elif kind is K.SET_FAILED or kind is K.TAP_MISSED:
            for slot in e.slots:
                self._show((by, slot))
        elif kind is K.SPIED and e.target is not None and e.target_slot is not None:
            self.known[by].add((e.target, e.target_slot))
        elif kind is K.SWAPPED and e.target is not None and e.target_slot is not None:
            self._swap((by, e.slots[0]), (e.target, e.target_slot))
        elif kind is K.TAP_HIT or kind is K.PENALTY:
            self._empty((by, e.slots[0]))

    def _end_turn(self) -> None:
        if self.turn >= 0:
            self.ended[self.turn] += 1
        self.turn = -1

    def _learn(self, seat: int, place: Place) -> None:
        """``seat`` looked at its own card at ``place``."""
        if place not in self.known[seat]:
            self.known[seat].add(place)
            self.since[place] = self._now(seat)

    def _now(self, owner: int) -> int:
        """The owner's turns ended, counting the one it is in: what it learns in its turn it
        has kept by choice from the end of that turn on."""
        return self.ended[owner] + (self.turn == owner)

    def _put(self, seat: int, place: Place) -> None:
        """``seat`` put the card it held at ``place``: it knows it (everyone does when it came
        from the discard pile) and chose it."""
        self._empty(place)
        if self.held_public:
            self._show(place)
        self.known[seat].add(place)
        self.since[place] = self._now(seat)
        self.chosen.add(place)
        self.held_public = False

    def _show(self, place: Place) -> None:
        """The card at ``place`` was shown to everyone."""
        for seat, known in enumerate(self.known):
            if seat == place[0]:
                self._learn(seat, place)
            else:
                known.add(place)

    def _empty(self, place: Place) -> None:
        """The card at ``place`` left it (or a card nobody has seen came)."""
        for known in self.known:
            known.discard(place)
        self.since.pop(place, None)
        self.chosen.discard(place)

    def _swap(self, a: Place, b: Place) -> None:
        """The cards at ``a`` and ``b`` changed places: what each seat knew of them goes along.
        A card that arrives was not its new owner's choice: known to it only if it had seen it
        where it was, and from now on."""
        for known in self.known:
            has_a, has_b = a in known, b in known
            known.discard(a)
            known.discard(b)
            if has_a:
                known.add(b)
            if has_b:
                known.add(a)
        for place in (a, b):
            self.chosen.discard(place)
            self.since.pop(place, None)
            if place in self.known[place[0]]:
                self.since[place] = self._now(place[0])
