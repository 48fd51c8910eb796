"""Guest sessions: a signed token names a player, so they can rejoin from any device."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, URLSafeSerializer


@dataclass(frozen=True)
class Guest:
    player_id: str
    name: str


class Tokens:
    """Issues and checks session tokens signed with the server's secret key."""

    def __init__(self, secret: str) -> None:
        self._signer = URLSafeSerializer(secret, salt="facedown-guest")

    def issue(self, name: str, player_id: str | None = None) -> tuple[Guest, str]:
        guest = Guest(player_id or secrets.token_hex(8), name)
        return guest, str(self._signer.dumps({"p": guest.player_id, "n": guest.name}))

    def check(self, token: str | None) -> Guest | None:
        """The guest a token names, or None when it is missing, forged or malformed."""
        if not token:
            return None
        try:
            data = self._signer.loads(token)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("p"), str):
            return None
        return Guest(data["p"], str(data.get("n", "")))
