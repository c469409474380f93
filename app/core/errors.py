"""The project's one error hierarchy: an error a user may see, with its HTTP status.

Raise a DojoError (or a subclass) anywhere below the web layer; app.web.errors turns every one of
them into the same JSON body under /api and the same error page elsewhere. The message is shown as
it is, so it must be safe and helpful ("what went wrong and what to do"), never a traceback.
"""

from __future__ import annotations


class DojoError(Exception):
    """A refusal the client should see: `status_code`, a safe message and optional headers."""

    status_code: int = 400

    def __init__(self, message: str, status_code: int | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        if status_code is not None:
            self.status_code = status_code
        self.headers = dict(headers or {})

    @property
    def message(self) -> str:
        return str(self)


class InputOutOfRange(DojoError):
    """A number in the request does not fit any stored id or limit (ids beyond 64 bits, 1e30)."""

    status_code = 422


class ServiceUnavailable(DojoError):
    """A backing service (database, broker) is down; the request can be retried later."""

    status_code = 503
