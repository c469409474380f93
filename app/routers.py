"""Every router of every domain, included in one place so the route table test can see them all."""

from __future__ import annotations

from fastapi import FastAPI


def include_all(app: FastAPI) -> None:
    """Attach each domain's routers and error handlers to the app."""
    # Domains add their routers here as they land (one import and one include each).
    return None
