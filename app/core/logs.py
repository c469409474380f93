"""Structured logs: one JSON object per line, each carrying the request id of the work it belongs to.

The request id comes from the client's X-Request-ID (when it looks like an id) or is made up at the
door; it is stored with an attempt's dispatch, so the worker that grades the attempt logs under the
same id as the request that submitted it.
"""

from __future__ import annotations

import logging
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pythonjsonlogger.json import JsonFormatter

from app.core.settings import Settings

request_id_var: ContextVar[str | None] = ContextVar("dojo_request_id", default=None)
_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


def new_request_id(offered: str | None = None) -> str:
    """The client's id when it is a plain token of sane length, otherwise a fresh random one."""
    return offered if offered and _ID_RE.match(offered) else secrets.token_hex(8)


def current_request_id() -> str | None:
    return request_id_var.get()


@contextmanager
def request_context(request_id: str | None) -> Iterator[None]:
    """Log under this request id for the duration of the block (a worker grading an attempt)."""
    token = request_id_var.set(request_id)
    try:
        yield
    finally:
        request_id_var.reset(token)


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record (None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def configure(settings: Settings) -> None:
    """Send every logger (uvicorn's and Celery's included) to stderr in the configured format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestIdFilter())
    if settings.log_format.lower() == "text":
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    else:
        handler.setFormatter(JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            json_ensure_ascii=False,
        ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("alembic").setLevel(logging.WARNING)
