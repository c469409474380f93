"""The FastAPI application factory: routers, static files, error pages, start-up work."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.core.paths import STATIC_DIR
from app.core.settings import get_settings


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
        docs_url="/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    from app import routers

    routers.include_all(app)
    return app
