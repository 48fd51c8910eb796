"""What every route module asks of a request: the server's shared state, the client address.

The app keeps its :class:`~..edge.state.ServerState` in ``app.state.server``; a handler takes it
as a parameter ``state: State`` (FastAPI's ``Depends``), so the handlers are plain module-level
functions, registered on one ``APIRouter`` per feature, with nothing captured by a closure.
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Header, HTTPException, Request

from ..edge.state import ServerState

# An Authorization header longer than this is no session token of ours.
BEARER = Header(None, max_length=600)


def server_state(request: Request) -> ServerState:
    """The shared state of the app serving ``request`` (set by ``create_app``)."""
    return cast(ServerState, request.app.state.server)


State = Annotated[ServerState, Depends(server_state)]


def client_address(request: Request, state: State) -> str:
    """The client address ``request`` counts against (see :meth:`ServerState.address`)."""
    return state.address(request.client.host if request.client else None, request.headers)


Address = Annotated[str, Depends(client_address)]


def refused(status: int, code: str, message: str, **more: object) -> HTTPException:
    """An HTTP refusal with the body every error of the API has: its code and message."""
    return HTTPException(status, {"code": code, "message": message, **more})
