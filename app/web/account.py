"""Signing in and out, and the landing page that sends each role to its dashboard."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from app.auth import sessions
from app.auth.deps import CurrentUser, OptionalUser, SessionDep
from app.auth.login import LoginFailed, authenticate, client_ip, login_limiter
from app.auth.rate_limit import LoginThrottled
from app.web.navigation import dashboard_url, safe_next
from app.web.templating import render

router = APIRouter(tags=["pages"])


@router.get("/", name="home", include_in_schema=False)
def home(request: Request, user: OptionalUser) -> Response:
    """Signed in: your dashboard; otherwise the sign-in page."""
    target = dashboard_url(request, user) if user else str(request.url_for("sign_in_page"))
    return RedirectResponse(target, status_code=303)


@router.get("/dashboard", name="dashboard", include_in_schema=False)
def dashboard(request: Request, user: CurrentUser) -> Response:
    """The dashboard of the signed-in user's role."""
    return RedirectResponse(dashboard_url(request, user), status_code=303)


@router.get("/sign-in", name="sign_in_page", include_in_schema=False)
def sign_in_page(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    """The sign-in form (signed-in visitors go straight to their dashboard)."""
    if user is not None:
        return RedirectResponse(safe_next(next) or dashboard_url(request, user), status_code=303)
    return render(request, "sign_in.html", {"next": safe_next(next) or "", "email": ""})


@router.post("/sign-in", name="sign_in", include_in_schema=False)
def sign_in(
    request: Request,
    session: SessionDep,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Response:
    """Check the credentials, start a fresh session and go to the dashboard (or `next`)."""
    context = {"next": safe_next(next) or "", "email": email}
    try:
        user = authenticate(
            session=session, limiter=login_limiter(request), ip=client_ip(request), email=email, password=password
        )
    except LoginThrottled as exc:
        return render(request, "sign_in.html", {**context, "error": str(exc)}, status_code=429)
    except LoginFailed as exc:
        return render(request, "sign_in.html", {**context, "error": str(exc)}, status_code=exc.status_code)
    sessions.start_session(request, user)
    return RedirectResponse(safe_next(next) or dashboard_url(request, user), status_code=303)


@router.post("/sign-out", name="sign_out", include_in_schema=False)
def sign_out(request: Request) -> Response:
    """End the session (POST with a CSRF token, so no other site can sign you out)."""
    sessions.end_session(request)
    response = RedirectResponse(str(request.url_for("sign_in_page")), status_code=303)
    response.headers["HX-Redirect"] = str(request.url_for("sign_in_page"))
    return response
