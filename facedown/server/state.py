"""What the HTTP routes and the WebSocket share: the settings, the session tokens, the lobby."""

from __future__ import annotations

from dataclasses import dataclass

from .auth import Guest, Tokens
from .lobby import Lobby
from .settings import ServerSettings


@dataclass
class ServerState:
    settings: ServerSettings
    tokens: Tokens
    live_lobby: Lobby | None = None  # set while the app runs (its lifespan)

    def lobby(self) -> Lobby:
        assert self.live_lobby is not None, "the app is not running"
        return self.live_lobby

    @staticmethod
    def bearer(authorization: str | None) -> str | None:
        """The token of an ``Authorization: Bearer <token>`` header."""
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return None

    def guest_from(self, authorization: str | None) -> Guest | None:
        """The guest of an ``Authorization: Bearer <token>`` header, if valid."""
        return self.tokens.check(self.bearer(authorization))

    def link(self, code: str) -> str:
        return f"{self.settings.public_url}/t/{code}"
