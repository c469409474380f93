"""Where each role lands after sign-in, and which `next` targets are safe to follow."""

from __future__ import annotations

from fastapi import Request

from app.users.models import Role, User

DASHBOARD_ROUTES = {
    Role.candidate.value: "candidate_dashboard",
    Role.interviewer.value: "interviewer_dashboard",
    Role.admin.value: "admin_dashboard",
}


def dashboard_url(request: Request, user: User) -> str:
    return str(request.url_for(DASHBOARD_ROUTES.get(user.role, "candidate_dashboard")))


def safe_next(target: str | None) -> str | None:
    """A same-site path to return to, or None (never an absolute or protocol-relative URL)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    if any(ord(ch) < 32 for ch in target):
        return None
    return target
