"""/healthz (the process answers), /readyz (the database and broker answer) and /metrics (admins)."""

from __future__ import annotations

from typing import TypedDict

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from app.auth.deps import AdminUser
from app.core.db import new_session
from app.core.settings import get_settings
from app.ops import metrics

router = APIRouter(tags=["system"])


@router.get("/healthz", name="healthz")
def healthz() -> JSONResponse:
    """Liveness: 200 while the process serves requests (it touches no other service)."""
    return JSONResponse({"status": "ok"})


def _database() -> str:
    try:
        with new_session() as session:
            session.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means "not ready"; only its kind is reported
        return f"unavailable: {exc.__class__.__name__}"
    return "ok"


def _broker() -> str:
    url = get_settings().broker_url
    if not url:
        return "not used"
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:
        return f"unavailable: {exc.__class__.__name__}"
    return "ok"


class WaitingVersion(TypedDict):
    scenario: str
    version: int


class References(TypedDict):
    """The built-in versions whose reference run is still being prepared, as /readyz reports them."""

    status: str  # ok | preparing | unknown: <error>
    waiting_for: list[WaitingVersion]


def _references() -> References:
    """The built-in scenario versions whose reference run is still being prepared after a start."""
    from app.scenarios.reference_wait import pending_references

    try:
        pending = pending_references()
    except Exception as exc:  # the database is down: reported by _database
        return {"status": f"unknown: {exc.__class__.__name__}", "waiting_for": []}
    return {"status": "preparing" if pending else "ok",
            "waiting_for": [{"scenario": p.scenario, "version": p.version} for p in pending]}


@router.get("/readyz", name="readyz")
async def readyz() -> JSONResponse:
    """Readiness: 200 when the database (and the broker, if configured) answer and every built-in
    scenario has its reference; 503 otherwise, saying which of them is missing or down."""
    database, broker = await run_in_threadpool(_database), await run_in_threadpool(_broker)
    references = await run_in_threadpool(_references)
    services_up = database == "ok" and broker in ("ok", "not used")
    ready = services_up and references["status"] == "ok"
    status = "ok" if ready else ("preparing" if services_up else "unavailable")
    body = {"status": status, "database": database, "broker": broker, "references": references}
    return JSONResponse(body, status_code=200 if ready else 503)


@router.get("/metrics", name="metrics", include_in_schema=False)
async def metrics_page(user: AdminUser) -> Response:
    """Prometheus text format; admins only (an admin's bearer token suits a scraper)."""
    body = await run_in_threadpool(metrics.render)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
