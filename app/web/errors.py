"""Error responses: JSON under /api, HTML pages elsewhere, sign-in redirects for anonymous visitors.

Every DojoError (app/core/errors.py) is answered here, one way: `{"detail": message}` under /api,
the error page elsewhere, with the error's status and headers. Failures of the database are a 503
that says to try again, never a 500 or a dropped connection.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from sqlalchemy import inspect
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, RedirectResponse, Response

from app.auth.csrf import is_api_path
from app.auth.deps import SignInRequired
from app.core.db import new_session
from app.core.errors import DojoError, InputOutOfRange, ServiceUnavailable
from app.http.templating import is_htmx, render
from app.interviews.errors import InvitePending
from app.users.models import User

log = logging.getLogger(__name__)

TITLES = {
    400: "Bad request", 401: "Sign in required", 403: "Not allowed", 404: "Page not found",
    405: "Method not allowed", 409: "Conflict", 410: "Link no longer valid", 413: "Too large",
    422: "Check your input", 429: "Too many attempts", 500: "Something went wrong",
    503: "Temporarily unavailable",
}
DATABASE_DOWN = "The database is not answering right now. Nothing was lost; try again in a moment."
OUT_OF_RANGE = "A number in the request is out of range."
DEFAULT_MESSAGES = {404: "There is nothing at this address.", 405: "This address does not accept that kind of request."}


# What the layout shows of the signed-in user (templates/base.html).
LAYOUT_FIELDS = frozenset({"email", "role"})


def _usable_layout_user(request: Request) -> None:
    """Make the signed-in user safe for the layout before the error page renders.

    A refusal raised after session.rollback() reaches this handler once the request's session has been
    closed: the user it loaded is expired and detached, and reading `current_user.role` would fail (a
    500 instead of the refusal). Such a user is read again in a short session of its own; if even that
    fails, the page shows the signed-out layout and keeps its status.
    """
    user = getattr(request.state, "user", None)
    if user is None:
        return
    state = inspect(user, raiseerr=False)
    if state is None or state.session is not None or not (state.unloaded & LAYOUT_FIELDS) or state.identity is None:
        return  # loaded, or still attached to an open session that can load it
    try:
        with new_session() as session:
            request.state.user = session.get(User, state.identity[0])
    except SQLAlchemyError:
        log.warning("could not load the signed-in user for an error page", exc_info=True)
        request.state.user = None


def error_page(request: Request, status_code: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The HTML error page every page route shares."""
    _usable_layout_user(request)
    response = render(
        request, "error.html",
        {"status_code": status_code, "title": TITLES.get(status_code, "Error"), "message": message},
        status_code=status_code,
    )
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def sign_in_redirect(request: Request) -> Response:
    """Send an anonymous visitor to sign-in, coming back here afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    location = str(request.url_for("sign_in_page").include_query_params(next=target))
    if is_htmx(request):
        return Response(status_code=401, headers={"HX-Redirect": location})
    return RedirectResponse(location, status_code=303)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if is_api_path(request.url.path) or request.url.path.startswith("/static/"):
        return await http_exception_handler(request, exc)
    detail = exc.detail if isinstance(exc.detail, str) else ""
    if detail in ("", "Not Found", "Method Not Allowed"):  # Starlette's generic texts
        detail = DEFAULT_MESSAGES.get(exc.status_code, TITLES.get(exc.status_code, "Error"))
    return error_page(request, exc.status_code, detail, dict(exc.headers or {}))


def error_response(request: Request, error: DojoError) -> Response:
    """The one rendering of a DojoError: JSON under /api, the error page elsewhere."""
    if is_api_path(request.url.path):
        return JSONResponse({"detail": error.message}, status_code=error.status_code, headers=error.headers or None)
    try:
        return error_page(request, error.status_code, error.message, error.headers)
    except Exception:  # the page itself needs the database or the session (a 503 during an outage)
        return Response(error.message, status_code=error.status_code, media_type="text/plain", headers=error.headers)


async def _dojo_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DojoError)
    return error_response(request, exc)


async def _invite_pending(request: Request, exc: Exception) -> Response:
    """Opening a pending invite's workspace leads to the page that asks to accept it; other requests are 409."""
    assert isinstance(exc, InvitePending)
    if request.method == "GET" and not is_api_path(request.url.path) and not is_htmx(request):
        location = request.url_for("pending_invite_page", interview_id=exc.interview_id)
        return RedirectResponse(str(location), status_code=303)
    return error_response(request, exc)


async def _database_error(request: Request, exc: Exception) -> Response:
    # Connection lost, server restarting, SQLite busy: the request can simply be tried again.
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc.__class__.__name__)
    return error_response(request, ServiceUnavailable(DATABASE_DOWN, headers={"Retry-After": "5"}))


async def _out_of_range(request: Request, exc: Exception) -> Response:
    # SQLite refuses integers beyond 64 bits with OverflowError; no stored id or count is that large.
    return error_response(request, InputOutOfRange(OUT_OF_RANGE))


def public_errors(exc: RequestValidationError) -> list[dict[str, object]]:
    """Validation errors without the submitted input (never echo a password or a 20 MiB body back)."""
    return [{key: value for key, value in err.items() if key in ("type", "loc", "msg")} for err in exc.errors()]


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if is_api_path(request.url.path):
        return JSONResponse({"detail": jsonable_encoder(public_errors(exc))}, status_code=422)
    fields = sorted({str(err["loc"][-1]) for err in exc.errors() if err.get("loc")})
    message = "Some fields are missing or invalid: " + ", ".join(fields) + "." if fields else "The form is invalid."
    return error_page(request, 422, message)


async def _dbapi_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DBAPIError)
    if exc.connection_invalidated:
        return await _database_error(request, exc)
    if "out of range" in str(exc.orig).lower():  # PostgreSQL: a number too large for its column
        return await _out_of_range(request, exc)
    return await _unexpected_error(request, exc)


async def _sign_in_required(request: Request, exc: Exception) -> Response:
    return sign_in_redirect(request)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    message = "Something went wrong on our side. Try again in a moment."
    if is_api_path(request.url.path):
        return JSONResponse({"detail": message}, status_code=500)
    try:
        return error_page(request, 500, message)
    except Exception:  # the error page itself failed (for example no session middleware)
        return Response(message, status_code=500, media_type="text/plain")


def install(app: FastAPI) -> None:
    """Register the handlers on the app."""
    app.add_exception_handler(Exception, _unexpected_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(SignInRequired, _sign_in_required)
    app.add_exception_handler(DojoError, _dojo_error)
    app.add_exception_handler(InvitePending, _invite_pending)
    app.add_exception_handler(OverflowError, _out_of_range)
    for database_error in (OperationalError, InterfaceError):
        app.add_exception_handler(database_error, _database_error)
    app.add_exception_handler(DBAPIError, _dbapi_error)
