"""The operator's endpoints: liveness, readiness and (when asked for) Prometheus metrics.

- ``GET /api/health``: the process is alive and serving (it never touches the store).
- ``GET /api/ready``: the process can do its work: the store (and in a cluster, Redis) answers
  in time.  503 with what
  failed otherwise, so a load balancer stops sending players to it.
- ``GET /metrics``: the Prometheus text format (``facedown serve --metrics``; off by default).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ...store import StoreError
from ..base.metrics import CONTENT_TYPE
from ..cluster.cluster import ClusterDown
from ..edge.state import ServerState
from .deps import State

READY_TIMEOUT = 2.0  # seconds the store has to answer the readiness check


async def readiness(state: ServerState) -> dict[str, str]:
    """Each dependency's state: ``"ok"`` or why it is not (in a cluster, Redis too)."""
    checks = {"store": await _check(state.lobby().store.ping())}
    if state.node is not None:
        checks["redis"] = await _check(state.node.ping())
    return checks


async def _check(ping: Awaitable[None]) -> str:
    try:
        await asyncio.wait_for(ping, READY_TIMEOUT)
    except TimeoutError:
        return f"no answer in {READY_TIMEOUT:g} s"
    except (StoreError, ClusterDown, RuntimeError) as e:
        return str(e) or type(e).__name__
    return "ok"


router = APIRouter()
# Served only when the operator asks for it (``facedown serve --metrics``): the app adds it then.
metrics_router = APIRouter()


class Health(BaseModel):
    ok: bool = Field(description="always true: the process serves")
    tables: int = Field(description="the tables this process holds in memory")


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, str] = Field(
        description="each dependency (store, and redis in a cluster): ok, or why it is not"
    )


@router.get("/api/health", response_model=Health)
async def health(state: State) -> Health:
    return Health(ok=True, tables=len(state.lobby().tables))


@router.get(
    "/api/ready",
    response_model=Readiness,
    responses={503: {"description": "a dependency is not ready", "model": Readiness}},
)
async def ready(state: State) -> JSONResponse:
    checks = await readiness(state)
    ok = all(v == "ok" for v in checks.values())
    answer = Readiness(ready=ok, checks=checks)
    return JSONResponse(answer.model_dump(), status_code=200 if ok else 503)


@metrics_router.get("/metrics", include_in_schema=False)
async def metrics(state: State) -> Response:
    return Response(state.metrics.render(), media_type=CONTENT_TYPE)
