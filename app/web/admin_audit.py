"""The audit log page: who changed which scenario, version or account, and when."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.audit import service as audit
from app.auth.deps import AdminUser, SessionDep
from app.http.templating import render

router = APIRouter(prefix="/admin/audit", tags=["pages"], include_in_schema=False)
AREAS = {"": "Everything", "scenario.": "Scenarios", "version.": "Versions", "user.": "Users"}


@router.get("", name="admin_audit")
def audit_log(request: Request, _user: AdminUser, session: SessionDep, area: str = "") -> Response:
    """The newest 200 events, optionally one area only."""
    area = area if area in AREAS else ""
    events = audit.recent(session=session, prefix=area)
    return render(request, "admin/audit.html", {
        "events": [(event, audit.describe(event)) for event in events], "areas": AREAS, "area": area})
