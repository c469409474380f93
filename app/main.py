"""The FastAPI application factory: routers, static files, error pages, start-up work."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from app.auth.csrf import csrf_protect
from app.core.paths import STATIC_DIR
from app.core.settings import get_settings
from app.web.limits import limit_form_fields


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    from app import startup

    startup.on_start(app)
    try:
        yield
    finally:
        startup.on_stop(app)


def create_app() -> FastAPI:
    """Build the web app; importing this module never touches the database."""
    settings = get_settings()
    app = FastAPI(
        title="Transformer Debugging Dojo",
        version="0.1.0",
        docs_url=None,  # served by app.web.system from vendored files
        redoc_url=None,
        lifespan=lifespan,
        # /metrics and the JSON logs are the app's own (app.ops); FastAPI's OpenTelemetry would only
        # look for a provider on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
        # Every route, including those other domains add later, gets the size limit and CSRF check.
        dependencies=[Depends(limit_form_fields), Depends(csrf_protect)],
    )
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    from app import routers
    from app.auth import setup as auth_setup
    from app.web import setup as web_setup

    web_setup.install(app, settings)
    auth_setup.install(app, settings)
    routers.include_all(app)
    return app
