"""Fan-out: how a table's messages reach the connections that watch it.

The table renders one message per audience (each seat, and spectators) and publishes them; the
hub delivers each connection the message of its audience.  ``LocalHub`` does this inside one
process; ``relay.ClusterHub``, the same interface, also delivers to the connections of other
processes of a cluster through Redis (the messages are already rendered, so no other process
needs the game state).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from .protocol import ServerFrame, encode

SPECTATORS = -1  # the audience of connections without a seat


class Subscriber(Protocol):
    """A connection as the hub sees it."""

    @property
    def seat(self) -> int | None:
        """The seat whose messages this connection receives (None: a spectator)."""

    def send(self, message: ServerFrame, frame: str | None = None) -> None:
        """Queue a message without waiting (a connection too slow to drain is dropped);
        ``frame``: its encoding, when the caller has it (one for all who get the message)."""

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the connection (in the background)."""


class Hub(Protocol):
    def subscribe(self, table_id: str, subscriber: Subscriber) -> None: ...

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None: ...

    def publish(
        self,
        table_id: str,
        messages: Mapping[int, ServerFrame],
        frames: Mapping[int, str] | None = None,
    ) -> None:
        """Deliver ``messages[seat]`` to each seat's connections, ``messages[SPECTATORS]`` to
        spectators.  A seat without a message gets nothing.  ``frames``: the encodings of some
        of the messages, by audience, when the caller made them (each ``encode(message)``
        exactly); the others are encoded here."""

    def present(self, table_id: str) -> set[int]:
        """Seats with at least one live connection."""

    def subscribers(self, table_id: str) -> list[Subscriber]:
        """Every connection subscribed to the table."""

    def audiences(self, table_id: str) -> set[int]:
        """Audiences with a live connection: seats, and SPECTATORS when anyone watches.
        The table renders messages for these only."""


class LocalHub:
    """The in-process hub: one machine, one process."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscriber]] = {}

    def subscribe(self, table_id: str, subscriber: Subscriber) -> None:
        self._subs.setdefault(table_id, set()).add(subscriber)

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None:
        subs = self._subs.get(table_id)
        if subs is not None:
            subs.discard(subscriber)
            if not subs:
                del self._subs[table_id]

    def publish(
        self,
        table_id: str,
        messages: Mapping[int, ServerFrame],
        frames: Mapping[int, str] | None = None,
    ) -> None:
        deliver(list(self._subs.get(table_id, ())), messages, dict(frames or {}))

    def subscribers(self, table_id: str) -> list[Subscriber]:
        return list(self._subs.get(table_id, ()))

    def present(self, table_id: str) -> set[int]:
        return {s.seat for s in self._subs.get(table_id, ()) if s.seat is not None}

    def audiences(self, table_id: str) -> set[int]:
        return {SPECTATORS if s.seat is None else s.seat for s in self._subs.get(table_id, ())}


def frame_of(audience: int, messages: Mapping[int, ServerFrame], frames: dict[int, str]) -> str:
    """The encoding of ``audience``'s message, made once and kept in ``frames``."""
    frame = frames.get(audience)
    if frame is None:
        frame = frames[audience] = encode(messages[audience])
    return frame


def deliver(
    subs: Iterable[Subscriber], messages: Mapping[int, ServerFrame], frames: dict[int, str]
) -> None:
    """Send each subscriber its audience's message (none: it gets nothing), each message
    encoded once for all who get it (``frames`` keeps the encodings, by audience)."""
    for sub in subs:
        seat = sub.seat
        audience = SPECTATORS if seat is None else seat
        message = messages.get(audience)
        if message is not None:
            sub.send(message, frame_of(audience, messages, frames))
