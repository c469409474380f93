"""What each role's dashboard shows, and the interviewer's and admin's actions."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.core.security import token_digest
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from web.support import Account, csrf_from, sign_in, unique_email


def _signed_in(web_app: FastAPI, account: Account) -> TestClient:
    client = TestClient(web_app)
    sign_in(client, account.email)
    return client


def _attempt(db: Session, user: User, version: ScenarioVersion, status: str) -> Attempt:
    attempt = Attempt(user_id=user.id, scenario_version_id=version.id, kind="run", status=status, files={})
    db.add(attempt)
    db.commit()
    return attempt


def test_candidate_sees_challenges_and_only_their_own_attempts(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me, other = make_account("candidate"), make_account("candidate")
    _attempt(db, me.user, published_version, "passed")
    _attempt(db, other.user, published_version, "failed")
    page = _signed_in(web_app, me).get("/candidate").text
    assert html.escape(published_version.title) in page
    table = page.split('id="attempts-heading"', 1)[1].split("</table>", 1)[0]
    assert table.count("<td>Run 1</td>") == 1  # mine, numbered in my workspace; theirs is not listed
    assert "status-passed" in table and "status-failed" not in table


def test_interviewer_creates_an_interview_and_sees_the_invite_link_once(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = _signed_in(web_app, make_account("interviewer"))
    page = client.get("/interviewer")
    email = unique_email("invitee")
    response = client.post(
        "/interviewer/interviews",
        data={"candidate_email": email, "scenario_version_id": str(published_version.id),
              "time_limit_minutes": "30", "valid_days": "2", "csrf_token": csrf_from(page.text)},
    )
    assert response.status_code == 201
    match = re.search(r'value="(http://testserver/invite/[^"]+)"', response.text)
    assert match, "the invite link is shown after creating the interview"
    token = match.group(1).rsplit("/", 1)[1]
    interview = db.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    assert interview is not None and interview.candidate_email == email
    # Shown once: the dashboard lists the interview but never the link again.
    again = client.get("/interviewer").text
    assert email in again
    assert token not in again


def test_interviewer_htmx_create_returns_only_the_dashboard_body(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = _signed_in(web_app, make_account("interviewer"))
    token = csrf_from(client.get("/interviewer").text)
    response = client.post(
        "/interviewer/interviews",
        data={"candidate_email": unique_email("htmx"), "scenario_version_id": str(published_version.id),
              "time_limit_minutes": "30", "valid_days": "2"},
        headers={"HX-Request": "true", "X-CSRF-Token": token},
    )
    assert response.status_code == 201
    assert response.text.lstrip().startswith('<div id="dashboard-body">')
    assert "/invite/" in response.text


def test_interviewer_create_with_bad_email_is_422_and_writes_nothing(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    account = make_account("interviewer")
    client = _signed_in(web_app, account)
    token = csrf_from(client.get("/interviewer").text)
    response = client.post(
        "/interviewer/interviews",
        data={"candidate_email": "not an email", "scenario_version_id": str(published_version.id),
              "time_limit_minutes": "30", "valid_days": "2", "csrf_token": token},
    )
    assert response.status_code == 422
    assert "Enter a valid candidate email address." in response.text
    assert db.scalar(select(Interview).where(Interview.interviewer_id == account.user.id)) is None


def test_interviewer_sees_only_their_own_interviews(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    first, second = make_account("interviewer"), make_account("interviewer")
    first_client = _signed_in(web_app, first)
    email = unique_email("private")
    first_client.post(
        "/interviewer/interviews",
        data={"candidate_email": email, "scenario_version_id": str(published_version.id), "time_limit_minutes": "30",
              "valid_days": "2", "csrf_token": csrf_from(first_client.get("/interviewer").text)},
    )
    assert email in first_client.get("/interviewer").text
    assert email not in _signed_in(web_app, second).get("/interviewer").text


def test_admin_dashboard_lists_scenario_versions_with_status(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    page = _signed_in(web_app, make_account("admin")).get("/admin").text
    assert html.escape(published_version.title) in page
    assert 'status-published">published<' in page


def test_admin_deactivates_a_user_who_is_then_signed_out(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    target = make_account("candidate")
    target_client = _signed_in(web_app, target)
    admin_client = _signed_in(web_app, make_account("admin"))
    token = csrf_from(admin_client.get("/admin/users").text)
    response = admin_client.post(
        f"/admin/users/{target.user.id}/active", data={"active": "false", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303
    assert target_client.get("/candidate", follow_redirects=False).status_code == 303


def test_admin_cannot_deactivate_themselves_and_is_told_why(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    admin = make_account("admin")
    client = _signed_in(web_app, admin)
    token = csrf_from(client.get("/admin/users").text)
    response = client.post(f"/admin/users/{admin.user.id}/active", data={"active": "false", "csrf_token": token})
    assert response.status_code == 422
    assert "You cannot deactivate your own account." in response.text
    db.expire_all()
    assert db.get(User, admin.user.id).is_active is True


def test_candidate_opening_an_admin_page_gets_a_403_page(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    response = _signed_in(web_app, make_account("candidate")).get("/admin/users")
    assert response.status_code == 403
    assert "text/html" in response.headers["content-type"]
    assert "Your account does not have access to this page." in response.text


def test_admin_adds_a_user_who_can_sign_in(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    client = _signed_in(web_app, make_account("admin"))
    email = unique_email("added")
    response = client.post(
        "/admin/users",
        data={"email": email, "role": "interviewer", "password": "first-password",
              "csrf_token": csrf_from(client.get("/admin/users").text)},
    )
    assert response.status_code == 201
    assert f"Added interviewer {email}" in response.text
    fresh = TestClient(web_app)
    sign_in(fresh, email, "first-password")
    assert fresh.get("/interviewer").status_code == 200


def test_admin_adding_a_duplicate_user_is_422_and_writes_nothing(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    existing = make_account("candidate")
    client = _signed_in(web_app, make_account("admin"))
    response = client.post(
        "/admin/users",
        data={"email": existing.email, "role": "admin", "password": "another-password",
              "csrf_token": csrf_from(client.get("/admin/users").text)},
    )
    assert response.status_code == 422
    assert f"A user with email {existing.email} already exists." in response.text
    db.expire_all()
    assert db.get(User, existing.user.id).role == "candidate"
