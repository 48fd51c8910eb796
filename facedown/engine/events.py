"""Events: what an action did, as small typed values.

An :class:`Event` says which cards it showed to everyone (``public``) and which it showed to the
acting player alone (``private``); :func:`facedown.engine.observer.seen_event` renders it for one
viewer and drops what that viewer may not see.  Events are built only by the constructors below,
one per kind, so which card is public and which private is written once, by name.

Events are immutable values, so the kinds whose fields range over a few seats and cards (a turn
started, a card drawn or discarded, a call) are made once per value and shared by every game:
their constructors look the event up instead of building it (a third of the cost of building).
The lookups run in C: a one-seat kind's constructor is its memo's ``__getitem__``, a two-field
kind's is ``functools.cache`` around the function that builds it (no Python call either way).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import cache
from typing import NamedTuple

from .results import RoundResult

EVERYONE = -2  # viewer that sees everything: the server's own log and audits
SPECTATOR = -1  # viewer that sees public information only


class EventKind(StrEnum):
    ROUND_STARTED = "round_started"
    OPENING_PEEKED = "opening_peeked"
    PLAY_STARTED = "play_started"
    TURN_STARTED = "turn_started"
    DREW = "drew"
    RESHUFFLED = "reshuffled"
    TOOK_DISCARD = "took_discard"
    UNDID = "undid"
    REPLACED = "replaced"
    SET_FAILED = "set_failed"
    KEPT = "kept"
    DISCARDED = "discarded"
    PEEKED = "peeked"
    SPIED = "spied"
    SWAPPED = "swapped"
    SKIPPED = "skipped"
    CALLED = "called"
    TAP_HIT = "tap_hit"
    TAP_MISSED = "tap_missed"
    PENALTY = "penalty"
    PASSED = "passed"
    ROUND_OVER = "round_over"
    MATCH_OVER = "match_over"


ROUND_STARTED = EventKind.ROUND_STARTED
OPENING_PEEKED = EventKind.OPENING_PEEKED
PLAY_STARTED = EventKind.PLAY_STARTED
TURN_STARTED = EventKind.TURN_STARTED
DREW = EventKind.DREW
RESHUFFLED = EventKind.RESHUFFLED
TOOK_DISCARD = EventKind.TOOK_DISCARD
UNDID = EventKind.UNDID
REPLACED = EventKind.REPLACED
SET_FAILED = EventKind.SET_FAILED
KEPT = EventKind.KEPT
DISCARDED = EventKind.DISCARDED
PEEKED = EventKind.PEEKED
SPIED = EventKind.SPIED
SWAPPED = EventKind.SWAPPED
SKIPPED = EventKind.SKIPPED
CALLED = EventKind.CALLED
TAP_HIT = EventKind.TAP_HIT
TAP_MISSED = EventKind.TAP_MISSED
PENALTY = EventKind.PENALTY
PASSED = EventKind.PASSED
ROUND_OVER = EventKind.ROUND_OVER
MATCH_OVER = EventKind.MATCH_OVER

NO_CARDS: tuple[int, ...] = ()


class Event(NamedTuple):
    """One thing that happened.

    ``player`` is who did it (-1: nobody); ``slots`` are that player's slots, ``target`` and
    ``target_slot`` the other place involved.  ``public`` cards were shown to everyone,
    ``private`` cards to ``player`` alone.  ``round_no``, ``draw_size``, ``result`` and
    ``winners`` belong to the kinds that name them.
    """

    kind: EventKind
    player: int = -1
    slots: tuple[int, ...] = ()
    target: int = -1
    target_slot: int = -1
    public: tuple[int, ...] = ()
    private: tuple[int, ...] = ()
    round_no: int = 0
    draw_size: int = -1
    result: RoundResult | None = None
    winners: tuple[int, ...] = ()


# Events are built with tuple.__new__: three times quicker than the NamedTuple constructor.  The
# field order is Event's: kind, player, slots, target, target_slot, public, private, round_no,
# draw_size, result, winners.
_new = tuple.__new__


class _Shared(dict[int, Event]):
    """The events of a one-seat kind by seat, each made on first use by ``make``."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[..., Event]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: int) -> Event:
        made = self[key] = self.make(key)
        return made


def _play_started(first: int) -> Event:
    return _new(Event, (PLAY_STARTED, first, (), -1, -1, (), (), 0, -1, None, ()))


def _turn_started(seat: int) -> Event:
    return _new(Event, (TURN_STARTED, seat, (), -1, -1, (), (), 0, -1, None, ()))


def _skipped(seat: int) -> Event:
    return _new(Event, (SKIPPED, seat, (), -1, -1, (), (), 0, -1, None, ()))


def _called(seat: int) -> Event:
    return _new(Event, (CALLED, seat, (), -1, -1, (), (), 0, -1, None, ()))


def _passed(seat: int) -> Event:
    return _new(Event, (PASSED, seat, (), -1, -1, (), (), 0, -1, None, ()))


# The one-seat kinds: the memo's own lookup is the constructor (no Python call at all).
play_started: Callable[[int], Event] = _Shared(_play_started).__getitem__
turn_started: Callable[[int], Event] = _Shared(_turn_started).__getitem__
skipped: Callable[[int], Event] = _Shared(_skipped).__getitem__
called: Callable[[int], Event] = _Shared(_called).__getitem__
passed: Callable[[int], Event] = _Shared(_passed).__getitem__


@cache
def round_started(first: int, round_no: int) -> Event:
    return _new(Event, (ROUND_STARTED, first, (), -1, -1, (), (), round_no, -1, None, ()))


def opening_peeked(seat: int, slots: tuple[int, ...], seen: tuple[int, ...]) -> Event:
    """``seat`` looked at ``slots`` of its own: the cards are shown to it alone."""
    return _new(Event, (OPENING_PEEKED, seat, slots, -1, -1, (), seen, 0, -1, None, ()))


@cache
def drew(seat: int, card: int) -> Event:
    """``seat`` drew ``card`` from the deck: only it sees the card."""
    return _new(Event, (DREW, seat, (), -1, -1, (), (card,), 0, -1, None, ()))


def reshuffled(draw_size: int) -> Event:
    return _new(Event, (RESHUFFLED, -1, (), -1, -1, (), (), 0, draw_size, None, ()))


@cache
def took_discard(seat: int, card: int) -> Event:
    """``seat`` took the top discard, in plain sight."""
    return _new(Event, (TOOK_DISCARD, seat, (), -1, -1, (card,), (), 0, -1, None, ()))


@cache
def undid(seat: int, card: int) -> Event:
    """``seat`` put the card taken from the discard pile back."""
    return _new(Event, (UNDID, seat, (), -1, -1, (card,), (), 0, -1, None, ()))


def replaced(
    seat: int, slots: tuple[int, ...], discarded: tuple[int, ...], drawn: tuple[int, ...]
) -> Event:
    """``seat`` put its held card at ``slots[0]``: the ``discarded`` cards go face up on the
    pile; ``drawn`` is the card put in, seen by ``seat`` alone (empty when it came from the
    discard pile, which everyone saw)."""
    return _new(Event, (REPLACED, seat, slots, -1, -1, discarded, drawn, 0, -1, None, ()))


def set_failed(seat: int, slots: tuple[int, ...], shown: tuple[int, ...]) -> Event:
    """The cards at ``slots`` were not a set: they are shown to everyone."""
    return _new(Event, (SET_FAILED, seat, slots, -1, -1, shown, (), 0, -1, None, ()))


def kept(seat: int, slot: int, card: int, *, in_sight: bool) -> Event:
    """After a failed set ``seat`` keeps its held card at ``slot`` (public when it came from
    the discard pile, else seen by ``seat`` alone)."""
    seen = (card,)
    public, private = (seen, NO_CARDS) if in_sight else (NO_CARDS, seen)
    return _new(Event, (KEPT, seat, (slot,), -1, -1, public, private, 0, -1, None, ()))


@cache
def discarded(seat: int, card: int) -> Event:
    return _new(Event, (DISCARDED, seat, (), -1, -1, (card,), (), 0, -1, None, ()))


def peeked(seat: int, slot: tuple[int, ...], card: int) -> Event:
    """``seat`` looked at its own card at ``slot``: shown to it alone."""
    return _new(Event, (PEEKED, seat, slot, -1, -1, (), (card,), 0, -1, None, ()))


def spied(seat: int, target: int, target_slot: int, card: int) -> Event:
    """``seat`` looked at ``target``'s card at ``target_slot``: shown to ``seat`` alone."""
    return _new(Event, (SPIED, seat, (), target, target_slot, (), (card,), 0, -1, None, ()))


def swapped(seat: int, slot: tuple[int, ...], target: int, target_slot: int) -> Event:
    """Two cards changed places unseen."""
    return _new(Event, (SWAPPED, seat, slot, target, target_slot, (), (), 0, -1, None, ()))


def tap_hit(seat: int, slot: tuple[int, ...], card: int) -> Event:
    """``seat``'s card at ``slot`` matched the top discard and went onto the pile, face up."""
    return _new(Event, (TAP_HIT, seat, slot, -1, -1, (card,), (), 0, -1, None, ()))


def tap_missed(seat: int, slot: tuple[int, ...], card: int) -> Event:
    """``seat``'s card at ``slot`` did not match: it is shown to everyone and stays."""
    return _new(Event, (TAP_MISSED, seat, slot, -1, -1, (card,), (), 0, -1, None, ()))


@cache
def penalty(seat: int, slot: int) -> Event:
    """An unseen penalty card was added to ``seat``'s hand at ``slot``."""
    return _new(Event, (PENALTY, seat, (slot,), -1, -1, (), (), 0, -1, None, ()))


def round_over(result: RoundResult) -> Event:
    """The reveal: every hand, public."""
    return _new(Event, (ROUND_OVER, -1, (), -1, -1, (), (), 0, -1, result, ()))


def match_over(winners: tuple[int, ...]) -> Event:
    return _new(Event, (MATCH_OVER, -1, (), -1, -1, (), (), 0, -1, None, winners))
