"""The base of every request body the HTTP API reads.

A body's fields take their JSON types as sent, as the WebSocket's messages do: a string is not a
number (``"seats": "4"``), nor a number a boolean, nor ``true`` a number.  Pydantic would otherwise
convert them, so a client's mistake would be played as something it did not send.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestBody(BaseModel):
    """A request's JSON body, validated strictly (no conversion between JSON types)."""

    model_config = ConfigDict(strict=True)
