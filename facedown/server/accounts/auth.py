"""Guest sessions: a signed token names a player, so they can rejoin from any device.

A token carries the player's id, their name and when it was issued; it is valid for a
lifetime (30 days by default) from then.  Rotating a token gives a fresh one and makes every
token issued to that player before it invalid (a leaked link stops working).  A rotation is
kept in the store (``Store.set_token_floor``) before the fresh token is handed out, and a
starting server loads them all (:meth:`Tokens.load_floors`): it survives a restart.

A token without an issue time (the format from before tokens expired) is refused like a forged
one: read with an issue time of 0 it would be long expired anyway, and accepted as new it would
never expire.  Seats are bound to the player id inside the token, so such a holder gets
``bad_token`` and cannot take their old seat back (docs/server.md).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from itsdangerous import BadSignature, URLSafeSerializer

DEFAULT_LIFETIME = 30 * 24 * 3600.0  # seconds


@dataclass(frozen=True)
class Guest:
    player_id: str
    name: str
    issued: float = 0.0  # unix time the token naming this guest was issued
    # An account holder's token is bound to the account session that obtained it and to one
    # table (docs/accounts.md, "Seat tokens of an account"); a guest's has neither.
    session: str | None = None
    table: str | None = None

    @property
    def bound(self) -> bool:
        return self.session is not None

    def expires(self, lifetime: float) -> float:
        return self.issued + lifetime


class Tokens:
    """Issues, checks and rotates session tokens signed with the server's secret key."""

    def __init__(
        self,
        secret: str,
        lifetime: float = DEFAULT_LIFETIME,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._signer = URLSafeSerializer(secret, salt="facedown-guest")
        self.lifetime = lifetime
        self._clock = clock
        self._valid_from: dict[str, int] = {}  # player id -> earliest issue (ms) still valid

    def issue(
        self,
        name: str,
        player_id: str | None = None,
        *,
        session: str | None = None,
        table: str | None = None,
    ) -> tuple[Guest, str]:
        """A token for the player (a new guest when ``player_id`` is None); an account
        holder's names the account ``session`` it is issued to and the ``table`` it seats."""
        if (session is None) != (table is None):
            raise ValueError("a token is bound to both a session and a table, or to neither")
        player = player_id or secrets.token_hex(8)
        return self._issue(Guest(player, name, 0.0, session, table), int(self._clock() * 1000))

    def _issue(self, guest: Guest, issued_ms: int) -> tuple[Guest, str]:
        data: dict[str, object] = {"p": guest.player_id, "n": guest.name, "t": issued_ms}
        if guest.session is not None:
            data["s"] = guest.session
            data["b"] = guest.table
        token = str(self._signer.dumps(data))
        return replace(guest, issued=issued_ms / 1000), token

    def check(self, token: str | None) -> Guest | None:
        """The guest a token names, or None when it is missing, forged, malformed, expired or
        rotated away."""
        guest = self._read(token)
        if guest is None:
            return None
        issued_ms = round(guest.issued * 1000)
        if guest.issued + self.lifetime < self._clock():
            return None
        if issued_ms < self._valid_from.get(guest.player_id, 0):
            return None
        return guest

    def rotate(self, token: str | None) -> tuple[Guest, str] | None:
        """A fresh token for the guest ``token`` names, and every earlier token of that guest
        no longer valid; None when ``token`` is not valid itself.  (In this process only: the
        server stores the floor first, see :meth:`rotation`.)"""
        rotated = self.rotation(token)
        if rotated is None:
            return None
        guest, fresh = rotated
        self.refuse_before(guest.player_id, int(guest.issued * 1000))
        return guest, fresh

    def rotation(self, token: str | None) -> tuple[Guest, str] | None:
        """A fresh token for the guest ``token`` names, changing nothing yet: once the fresh
        token's issue time is stored as the guest's floor, :meth:`refuse_before` it."""
        guest = self.check(token)
        if guest is None:
            return None
        # Issued strictly later than the token it replaces, even within one millisecond.
        issued_ms = max(int(self._clock() * 1000), int(guest.issued * 1000) + 1)
        return self._issue(guest, issued_ms)  # bound to the same session and table

    def refuse_before(self, player_id: str, issued_ms: int) -> None:
        """Tokens of ``player_id`` issued before ``issued_ms`` are no longer valid."""
        self._valid_from[player_id] = max(issued_ms, self._valid_from.get(player_id, 0))

    def load_floors(self, floors: dict[str, int]) -> None:
        """The rotations a store kept (player id -> earliest issue in ms still valid)."""
        for player_id, issued_ms in floors.items():
            self.refuse_before(player_id, issued_ms)

    def _read(self, token: str | None) -> Guest | None:
        """The guest a well-signed token names (its issue time in ms exact in ``issued``)."""
        if not token:
            return None
        try:
            data = self._signer.loads(token)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("p"), str):
            return None
        issued = data.get("t")
        if not isinstance(issued, int) or isinstance(issued, bool):
            return None  # a token from before tokens expired: it never would, so it is refused
        session, table = data.get("s"), data.get("b")
        if session is not None and not (isinstance(session, str) and isinstance(table, str)):
            return None
        return Guest(data["p"], str(data.get("n", "")), issued / 1000, session, table)
