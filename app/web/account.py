"""Signing in and out (here or everywhere), changing one's password, and the landing page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from app.auth import revocation, sessions
from app.auth.deps import CurrentUser, OptionalUser, SessionDep
from app.auth.login import LoginFailed, authenticate, client_ip, login_limiter, password_guard
from app.auth.rate_limit import LoginThrottled
from app.http.navigation import dashboard_url, safe_next
from app.http.templating import render
from app.site import service as site
from app.users import service as users_service

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
def sign_in_page(request: Request, user: OptionalUser, session: SessionDep, next: str | None = None) -> Response:
    """The sign-in form (signed-in visitors go straight to their dashboard)."""
    if user is not None:
        return RedirectResponse(safe_next(next) or dashboard_url(request, user), status_code=303)
    return render(request, "sign_in.html", {"next": safe_next(next) or "", "email": "",
                                            "sign_up": site.sign_up_allowed(session=session)})


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
    except (LoginThrottled, LoginFailed) as exc:
        response = render(request, "sign_in.html", {**context, "error": str(exc)}, status_code=exc.status_code)
        response.headers.update({k: v for k, v in exc.headers.items() if k == "Retry-After"})
        return response
    sessions.start_session(request, user)
    return RedirectResponse(safe_next(next) or dashboard_url(request, user), status_code=303)


@router.post("/sign-out", name="sign_out", include_in_schema=False)
def sign_out(request: Request, session: SessionDep) -> Response:
    """End the session (POST with a CSRF token, so no other site can sign you out)."""
    sessions.end_session(request, session)
    session.commit()
    response = RedirectResponse(str(request.url_for("sign_in_page")), status_code=303)
    response.headers["HX-Redirect"] = str(request.url_for("sign_in_page"))
    return response


@router.get("/account/password", name="password_page", include_in_schema=False)
def password_page(request: Request, user: CurrentUser) -> Response:
    """The form to change one's password (which also signs out every other session and token)."""
    return render(request, "account_password.html", {})


@router.post("/account/password", name="change_password", include_in_schema=False)
def change_password(
    request: Request,
    user: CurrentUser,
    session: SessionDep,
    current_password: Annotated[str, Form()] = "",
    new_password: Annotated[str, Form()] = "",
    new_password_confirm: Annotated[str, Form()] = "",
) -> Response:
    """Check the current password (throttled like signing in), set the new one, end every other session and token."""
    guard = password_guard(request, user.email)
    try:
        guard.check()
        users_service.change_password(
            session=session, user=user, current=current_password, new=new_password, confirm=new_password_confirm
        )
    except LoginThrottled as exc:
        response = render(request, "account_password.html", {"error": exc.message}, status_code=429)
        response.headers.update(exc.headers)
        return response
    except users_service.UserError as exc:
        session.rollback()
        if isinstance(exc, users_service.WrongPassword):
            guard.failed()
        return render(request, "account_password.html", {"error": str(exc)}, status_code=422)
    session.commit()
    guard.succeeded()
    sessions.start_session(request, user)  # this browser stays signed in, with the new generation
    return render(request, "account_password.html", {"changed": True})


@router.post("/account/sign-out-everywhere", name="sign_out_everywhere", include_in_schema=False)
def sign_out_everywhere(request: Request, user: CurrentUser, session: SessionDep) -> Response:
    """End every session of the account (this one too) and revoke every API token."""
    revocation.revoke_all(session=session, user=user)
    session.commit()
    sessions.forget_session(request)
    target = str(request.url_for("sign_in_page"))
    response = RedirectResponse(target, status_code=303)
    response.headers["HX-Redirect"] = target
    return response
