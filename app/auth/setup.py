"""Wire the auth pieces into an app: session cookie middleware and the login limiter."""

from __future__ import annotations

from fastapi import FastAPI

from app.auth.rate_limit import LoginLimiter
from app.auth.sessions import install_session_middleware
from app.core.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Called once by create_app."""
    app.state.login_limiter = LoginLimiter(settings)
    install_session_middleware(app, settings)
