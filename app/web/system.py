"""Health check and the OpenAPI UI served from vendored files (no CDN)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from sqlalchemy import text

from app.auth.deps import SessionDep

router = APIRouter()


@router.get("/healthz", name="healthz", tags=["system"])
def healthz(session: SessionDep) -> JSONResponse:
    """200 when the database answers `SELECT 1`, 503 otherwise."""
    try:
        session.execute(text("SELECT 1"))
    except Exception as exc:  # any database failure means "not healthy"; the kind is reported
        return JSONResponse({"status": "error", "database": f"unavailable: {exc.__class__.__name__}"}, status_code=503)
    return JSONResponse({"status": "ok", "database": "ok"})


@router.get("/docs", name="docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """Swagger UI for the JSON API."""
    static = request.app.url_path_for
    return get_swagger_ui_html(
        openapi_url=str(request.app.openapi_url),
        title=f"{request.app.title} — API",
        swagger_js_url=str(static("static", path="vendor/swagger-ui/swagger-ui-bundle.js")),
        swagger_css_url=str(static("static", path="vendor/swagger-ui/swagger-ui.css")),
        swagger_favicon_url=str(static("static", path="vendor/swagger-ui/favicon-32x32.png")),
    )
