"""Self sign-up: a visitor creates a candidate account to practise, when the admins allow it.

The same password rules, throttling and error messages as signing in; the switch lives in the
run-time site settings (admins flip it on the admin dashboard, and the audit log records who did).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from app.audit import service as audit
from app.auth import sessions
from app.auth.deps import AdminUser, OptionalUser, SessionDep
from app.auth.login import password_guard
from app.auth.rate_limit import LoginThrottled
from app.http.navigation import dashboard_url
from app.http.templating import render
from app.site import service as site
from app.users import service as users_service
from app.users.models import Role
from app.users.passwords import MIN_PASSWORD_LENGTH
from app.web.errors import error_page

router = APIRouter(tags=["pages"], include_in_schema=False)
CLOSED = "Sign-up is switched off on this server. Ask an administrator for an account, or use your interview invite."


def _form(email: str, error: str | None = None) -> dict[str, object]:
    return {"email": email, "error": error, "min_password": MIN_PASSWORD_LENGTH}


@router.get("/sign-up", name="sign_up_page")
def sign_up_page(request: Request, session: SessionDep, user: OptionalUser) -> Response:
    """The sign-up form, when sign-up is open (signed-in visitors go to their dashboard)."""
    if user is not None:
        return RedirectResponse(dashboard_url(request, user), status_code=303)
    if not site.sign_up_allowed(session=session):
        return error_page(request, 403, CLOSED)
    return render(request, "sign_up.html", _form(""))


@router.post("/sign-up", name="sign_up")
def sign_up(
    request: Request,
    session: SessionDep,
    email: Annotated[str, Form(max_length=254)] = "",
    password: Annotated[str, Form(max_length=256)] = "",
    password_confirm: Annotated[str, Form(max_length=256)] = "",
) -> Response:
    """Create a candidate account and sign it in; errors show on the form with the email kept."""
    if not site.sign_up_allowed(session=session):
        return error_page(request, 403, CLOSED)
    guard = password_guard(request, email)
    try:
        guard.check()
        if password != password_confirm:
            raise users_service.UserError("The two passwords do not match.")
        user = users_service.create_user(session=session, email=email, password=password, role=Role.candidate.value)
        audit.record(session=session, actor=user, action="user.signed_up", target=user.email)
    except LoginThrottled as exc:
        response = render(request, "sign_up.html", _form(email, exc.message), status_code=429)
        response.headers.update(exc.headers)
        return response
    except users_service.UserError as exc:
        session.rollback()
        guard.failed()
        return render(request, "sign_up.html", _form(email, str(exc)), status_code=422)
    session.commit()
    sessions.start_session(request, user)
    return RedirectResponse(dashboard_url(request, user), status_code=303)


@router.post("/admin/settings/sign-up", name="set_sign_up")
def set_sign_up(request: Request, user: AdminUser, session: SessionDep,
                allow: Annotated[str, Form(max_length=10)] = "") -> Response:
    """Open or close self sign-up (the admin dashboard's switch)."""
    allowed = allow == "yes"
    site.put(session=session, key="allow_sign_up", value=allowed, by=user)
    audit.record(session=session, actor=user, action="site.sign_up_opened" if allowed else "site.sign_up_closed",
                 target="sign-up")
    session.commit()
    return RedirectResponse(str(request.url_for("admin_dashboard")) + "#sign-up-heading", status_code=303)
