"""Liveness (``/health``: the process answers; never needs a key) and readiness (``/ready``: the index,
the database and the embedder answer; 503 naming what does not)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from starlette.responses import Response

from lectern.api.errors import error_body
from lectern.api.services import Services, services
from lectern.conversation import iso_timestamp

router = APIRouter(tags=["health"])


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(json.dumps(body), status_code=status, media_type="application/json")


@router.get("/health", summary="Liveness: the server is up")
async def health() -> Response:
    return _json(200, {"status": "healthy", "timestamp": iso_timestamp()})


@router.get(
    "/ready",
    summary="Readiness: index, database and embedder reachable",
    responses={503: {"description": "A dependency is down; the body names it."}},
)
async def ready(svc: Annotated[Services, Depends(services)]) -> Response:
    checks = await svc.readiness()
    down = {
        name: str(check.get("reason", "down")) for name, check in checks.items() if check["status"] != "up"
    }
    if down:
        reason = "; ".join(f"{name}: {why}" for name, why in down.items())
        body = error_body("not_ready", f"Not ready: {reason}", status=503)
        body["dependencies"] = checks
        return _json(503, body)
    return _json(200, {"status": "ready", "dependencies": checks, "timestamp": iso_timestamp()})
