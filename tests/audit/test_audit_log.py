"""User-management actions are recorded with who did them, and the audit page shows them to admins only."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import csrf_from, sign_in

from app.audit.models import AuditEvent


def test_user_changes_are_recorded_and_shown_on_the_audit_page(web_client: TestClient, make_account,
                                                                 db: Session) -> None:
    admin, target = make_account("admin"), make_account("candidate")
    sign_in(web_client, admin.email)
    token = csrf_from(web_client.get("/admin/users").text)
    assert web_client.post(f"/admin/users/{target.user.id}/role", data={"role": "interviewer", "csrf_token": token},
                           follow_redirects=False).status_code == 303
    assert web_client.post(f"/admin/users/{target.user.id}/active", data={"active": "false", "csrf_token": token},
                           follow_redirects=False).status_code == 303
    refused = web_client.post(f"/admin/users/{admin.user.id}/role", data={"role": "candidate", "csrf_token": token})
    assert refused.status_code == 422

    events = db.query(AuditEvent).filter(AuditEvent.target == f"user {target.email}").order_by(AuditEvent.id).all()
    assert [(e.action, e.actor_email) for e in events] == [("user.role_changed", admin.email),
                                                           ("user.deactivated", admin.email)]
    assert events[0].details == {"previous": "candidate", "role": "interviewer"}
    assert not db.query(AuditEvent).filter(AuditEvent.target == f"user {admin.email}").count()  # refused: no event

    page = web_client.get("/admin/audit?area=user.")
    assert page.status_code == 200
    assert f"{admin.email} changed role of user {target.email}" in page.text
    assert f"{admin.email} deactivated user {target.email}" in page.text


def test_the_audit_page_is_for_admins_only(web_client: TestClient, make_account) -> None:
    sign_in(web_client, make_account("interviewer").email)
    assert web_client.get("/admin/audit").status_code == 403
