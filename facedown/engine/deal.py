"""Dealing a round: from the seed, or stacked in advance for scenarios and tests.

Shuffles take their order from ``random.Random`` seeded by (seed, round, reshuffle count), never
from global randomness, so a game is deterministic from its ruleset, seed and actions.  Each game
keeps one generator and reseeds it for every shuffle (the same stream as a new ``Random`` with
that seed, without building one).
"""

from __future__ import annotations

import _random
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat, starmap

from . import events as E
from .cards import Deck
from .events import Event
from .phases import OPENING, TURN_START
from .state import EMPTY, NO_LIMIT, State


@dataclass(frozen=True)
class StackedDeal:
    """A round's deal fixed in advance (scenarios, tests): the rest of the deck is shuffled."""

    hands: Sequence[Sequence[int]]
    discard: int
    draw_top: Sequence[int] = ()
    first: int | None = None

    @classmethod
    def from_names(
        cls,
        deck: Deck,
        hands: Sequence[Sequence[object]],
        discard: object,
        draw: Sequence[object] = (),
        first: int | None = None,
    ) -> StackedDeal:
        """The deal its card names describe: a name stands for the next physical card of that
        name not dealt yet.  Raises ValueError for a card not in ``deck``, or used up."""
        pool = deck.ids_by_name()

        def take(name: object) -> int:
            ids = pool.get(str(name))
            if not ids:
                raise ValueError(f"card {name!r} is not in the deck, or every one of them is dealt")
            return ids.pop(0)

        dealt = [[take(name) for name in hand] for hand in hands]
        return cls(dealt, take(discard), [take(name) for name in draw], first)


def deal_round(state: State, deal: StackedDeal | None, first: int | None) -> list[Event]:
    """Deal the next round of ``state``: shuffled from the seed, or stacked by ``deal``."""
    n = state.players
    state.round_no += 1
    if deal is not None and deal.first is not None:
        first = deal.first
    if first is not None:
        if not 0 <= first < n:
            raise ValueError(f"first player {first} is not a seat")
        state.first = first
    cards = len(state.deck.names)  # the deck's own len() is a Python call: every round asks
    rng = state._rng  # reseeded for the round's shuffle (reseeded() and shuffle_seed(), inline)
    _seed(rng, (state.seed << 40) ^ (state.round_no << 20))
    if deal is None:
        # The shuffle of range(cards): the stable order of the stream's keys is the deck order
        # itself (what shuffle() gives for these cards, without the list it reorders).
        keys = list(starmap(rng.random, repeat((), cards)))  # rng.random() ``cards`` times
        order = sorted(range(cards), key=keys.__getitem__)
        # Each hand takes the next cards off the end of the order, the last first.
        tables = state._tables
        state.hands = list(map(order.__getitem__, tables.hand_slices))
        at = tables.discard_at
        discard = order[at]
        del order[at:]
        state.draw_pile = order
        state.occ = [state._tables.dealt] * n
    else:
        size = state.rules.hand_size
        state.hands, discard, state.draw_pile = _stack(deal, n, size, list(range(cards)), rng)
        state.occ = [tuple(range(len(h))) for h in state.hands]
    state.discard_pile = [discard]
    state.peeked = [False] * n
    if state.sudden_death_played:  # (sudden_seats is empty in every other round)
        playing = state.sudden_seats()
        if playing:
            _sit_out(state, playing)
            for seat in range(n):
                if seat not in playing:
                    state.peeked[seat] = True  # a seat sitting out has nothing to look at
    state.held = EMPTY
    state.held_from_discard = False
    state.pending = ()
    state.caller = EMPTY
    state.finals_left = 0
    state.passes = 0
    state.reshuffles = 0
    state._play_from = state.version  # no play yet: it begins after the opening look
    state._limit_at = NO_LIMIT
    state.known = [0] * n
    state.public = 0
    state._showing = None
    state.is_match_over = False
    state.turn = state.first
    state.version += 1
    state._legal_cache = {}
    events = [E.round_started(state.first, state.round_no)]
    if state.rules.opening_peek == 0:
        state.phase = TURN_START
        state.begin_play()
        events.append(E.play_started(state.first))
    else:
        state.phase = OPENING
    return events


def _sit_out(state: State, playing: tuple[int, ...]) -> None:
    """A sudden-death round: the seats not in the tie hold no cards (theirs go to the bottom of
    the draw pile) and the round starts with the first of the tied from the starter on."""
    n = state.players
    for seat in range(n):
        if seat not in playing:
            hand = state.hands[seat]
            state.draw_pile[:0] = [c for c in hand if c >= 0]
            state.hands[seat] = [EMPTY] * len(hand)
            state.occ[seat] = ()
    while state.first not in playing:
        state.first = (state.first + 1) % n


def shuffle_seed(seed: int, round_no: int, reshuffle: int) -> int:
    """The seed of one shuffle: a distinct stream per (seed, round, reshuffle)."""
    return (seed << 40) ^ (round_no << 20) ^ reshuffle


def shuffle_rng(seed: int, round_no: int, reshuffle: int) -> random.Random:
    """A new generator for one shuffle (what :func:`reseeded` gives, for code without a game)."""
    return random.Random(shuffle_seed(seed, round_no, reshuffle))


# The C generator's own seed: for an int it sets the same state as ``Random.seed``, without the
# Python wrapper (which only also clears the cached ``gauss`` value, never used here).
_seed = _random.Random.seed
# n numbers of a generator's stream are drawn in C, without a Python loop, by
# ``starmap(rng.random, repeat((), n))``: the bound method called with no arguments (quicker than
# mapping the unbound ``Random.random`` over ``repeat(rng, n)``, which checks its argument's type
# at every call).


def new_rng() -> random.Random:
    """A generator for a new match (its state is set by :func:`reseeded` before every use).

    Made without seeding it (no read of the system's entropy, and no seeding that the first
    deal's reseeding would undo at once): until it is reseeded its stream is all zeros.
    """
    rng = random.Random.__new__(random.Random)
    rng.gauss_next = None  # type: ignore[attr-defined]  # as Random.__init__ sets it: pickling reads it
    return rng


def reseeded(state: State, round_no: int, reshuffle: int) -> random.Random:
    """The game's own generator, reseeded for one shuffle: the stream of :func:`shuffle_rng`."""
    rng = state._rng
    _seed(rng, shuffle_seed(state.seed, round_no, reshuffle))
    return rng


def shuffle(rng: random.Random, cards: list[int]) -> list[int]:
    """A uniformly random order of ``cards`` (sorting by random keys: quicker than shuffle).

    Card ``i`` gets the ``i``-th number of the stream as its key; the sort is stable.
    """
    keys = list(starmap(rng.random, repeat((), len(cards))))
    order = sorted(range(len(cards)), key=keys.__getitem__)
    cards[:] = [cards[i] for i in order]
    return cards


def _stack(
    deal: StackedDeal, n: int, size: int, order: list[int], rng: random.Random
) -> tuple[list[list[int]], int, list[int]]:
    if len(deal.hands) != n:
        raise ValueError(f"the deal must give {n} hands")
    used = [c for h in deal.hands for c in h] + [deal.discard, *deal.draw_top]
    if len(set(used)) != len(used) or not all(0 <= c < len(order) for c in used):
        raise ValueError("a stacked deal must name distinct cards of the deck")
    hands = [list(h) for h in deal.hands]
    rest = [c for c in order if c not in set(used)]
    rest = shuffle(rng, rest)
    return hands, deal.discard, rest + list(reversed(deal.draw_top))
