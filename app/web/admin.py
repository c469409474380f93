"""The admin pages: every scenario version with its status, and user role/active management."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from sqlalchemy import func, select
from starlette.responses import RedirectResponse, Response

from app.audit import service as audit
from app.auth.deps import AdminUser, SessionDep
from app.http.params import RowIdPath
from app.http.templating import is_htmx, render
from app.scenarios.models import Scenario, ScenarioVersion
from app.site import service as site
from app.users import service as users_service
from app.users.models import User

router = APIRouter(prefix="/admin", tags=["pages"], include_in_schema=False)


@router.get("", name="admin_dashboard")
def admin_dashboard(request: Request, user: AdminUser, session: SessionDep) -> Response:
    """All scenario versions (any status) and a count of users per role."""
    versions = session.execute(
        select(ScenarioVersion, Scenario.slug, Scenario.archived)
        .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
        .order_by(Scenario.slug, ScenarioVersion.version.desc())
    ).all()
    role_counts = dict(session.execute(select(User.role, func.count()).group_by(User.role)).all())
    inactive = session.scalar(select(func.count()).select_from(User).where(User.is_active.is_(False))) or 0
    return render(request, "admin.html", {"versions": versions, "role_counts": role_counts, "inactive": inactive,
                                          "sign_up_allowed": site.sign_up_allowed(session=session)})


@router.get("/users", name="admin_users")
def admin_users(request: Request, user: AdminUser, session: SessionDep) -> Response:
    """Every account with forms to change its role and active flag."""
    return render(request, "admin_users.html", {"users": users_service.list_users(session=session)})


@router.post("/users", name="admin_create_user")
def create_user(
    request: Request,
    user: AdminUser,
    session: SessionDep,
    email: Annotated[str, Form()] = "",
    role: Annotated[str, Form()] = "candidate",
    password: Annotated[str, Form()] = "",
) -> Response:
    """Add an account with a first password the admin passes on (there is no email delivery)."""
    try:
        created = users_service.create_user(session=session, email=email, password=password, role=role)
        audit.record(session=session, actor=user, action="user.created", target=f"user {created.email}",
                     role=created.role)
    except users_service.UserError as exc:
        session.rollback()
        failed: dict[str, object] = {
            "users": users_service.list_users(session=session), "create_error": str(exc),
            "form": {"email": email, "role": role},
        }
        return render(request, "admin_users.html", failed, status_code=422)
    session.commit()
    done: dict[str, object] = {"users": users_service.list_users(session=session), "created": created}
    return render(request, "admin_users.html", done, status_code=201)


def _target(session: SessionDep, user_id: int) -> User:
    target = session.get(User, user_id)
    if target is None:
        raise HTTPException(404, "There is no user with that id.")
    return target


def _after_change(request: Request, target: User, error: str | None, session: SessionDep) -> Response:
    """htmx gets the re-rendered row; a plain form goes back to the list (or shows the error)."""
    status = 422 if error else 200
    if is_htmx(request):
        return render(request, "partials/user_row.html", {"user": target, "error": error}, status_code=status)
    if error:
        context = {"users": users_service.list_users(session=session), "error": error}
        return render(request, "admin_users.html", context, status_code=status)
    return RedirectResponse(str(request.url_for("admin_users")), status_code=303)


@router.post("/users/{user_id}/active", name="admin_set_active")
def set_active(
    request: Request, user_id: RowIdPath, user: AdminUser, session: SessionDep, active: Annotated[bool, Form()]
) -> Response:
    """Activate or deactivate an account; deactivation ends its sessions and tokens at once."""
    target = _target(session, user_id)
    try:
        users_service.set_active(session=session, user=target, actor=user, active=active)
        audit.record(session=session, actor=user, action="user.activated" if active else "user.deactivated",
                     target=f"user {target.email}")
    except users_service.UserError as exc:
        session.rollback()
        return _after_change(request, target, str(exc), session)
    session.commit()
    return _after_change(request, target, None, session)


@router.post("/users/{user_id}/role", name="admin_set_role")
def set_role(
    request: Request, user_id: RowIdPath, user: AdminUser, session: SessionDep, role: Annotated[str, Form()]
) -> Response:
    """Change an account's role."""
    target = _target(session, user_id)
    try:
        previous = target.role
        users_service.set_role(session=session, user=target, actor=user, role=role)
        audit.record(session=session, actor=user, action="user.role_changed", target=f"user {target.email}",
                     previous=previous, role=role)
    except users_service.UserError as exc:
        session.rollback()
        return _after_change(request, target, str(exc), session)
    session.commit()
    return _after_change(request, target, None, session)
