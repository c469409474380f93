"""The OpenAPI UI served from vendored files (no CDN); health and metrics are in app/ops/routes.py."""

from __future__ import annotations

import base64
import hashlib
import re

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from app.web.setup import CONTENT_SECURITY_POLICY

router = APIRouter()


INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def docs_content_security_policy(html: str) -> str:
    """The strict policy, plus the hash of each inline script of this page (Swagger UI's bootstrap)."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
        for body in INLINE_SCRIPT.findall(html)
    )
    return CONTENT_SECURITY_POLICY.replace("script-src 'self'", f"script-src 'self' {hashes}".rstrip())


@router.get("/docs", name="docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """Swagger UI for the JSON API, under a CSP that admits only its own inline script (by hash)."""
    page = _swagger_page(request)
    page.headers["Content-Security-Policy"] = docs_content_security_policy(bytes(page.body).decode())
    return page


def _swagger_page(request: Request) -> HTMLResponse:
    static = request.app.url_path_for
    return get_swagger_ui_html(
        openapi_url=str(request.app.openapi_url),
        title=f"{request.app.title} — API",
        swagger_js_url=str(static("static", path="vendor/swagger-ui/swagger-ui-bundle.js")),
        swagger_css_url=str(static("static", path="vendor/swagger-ui/swagger-ui.css")),
        swagger_favicon_url=str(static("static", path="vendor/swagger-ui/favicon-32x32.png")),
    )
