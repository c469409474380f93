"""Invite links in the browser flow: set a password and land signed in; used, expired, unknown links."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.core.security import token_digest
from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from web.support import Account, csrf_from, sign_in, unique_email

NEW_PASSWORD = "a good long password"


def _invite(db: Session, make_account: Callable[..., Account], version: ScenarioVersion, email: str) -> str:
    _interview, token = service.create_interview(
        session=db, interviewer=make_account("interviewer").user, candidate_email=email,
        scenario_version=version, time_limit_minutes=45, expires_in=timedelta(days=3),
    )
    db.commit()
    return token


def _accept(client: TestClient, token: str, password: str = NEW_PASSWORD, confirm: str | None = None) -> object:
    page = client.get(f"/invite/{token}")
    assert page.status_code == 200, page.text[:300]
    data = {"password": password, "password_confirm": confirm or password, "csrf_token": csrf_from(page.text)}
    return client.post(f"/invite/{token}", data=data, follow_redirects=False)


def _users_with(db: Session, email: str) -> int:
    return int(db.scalar(select(func.count()).select_from(User).where(User.email == email)) or 0)


def test_invite_sets_password_and_signs_the_candidate_in(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("invited")
    token = _invite(db, make_account, published_version, email)
    client = TestClient(web_app)
    page = client.get(f"/invite/{token}")
    assert html.escape(published_version.title) in page.text and "45 minutes" in page.text
    assert page.headers["Referrer-Policy"] == "same-origin"
    response = _accept(client, token)
    assert response.status_code == 303  # type: ignore[attr-defined]
    # To the lobby, where the candidate reads the challenge and presses Start (the clock waits for it).
    assert response.headers["location"].endswith("/lobby")  # type: ignore[attr-defined]
    assert client.get("/candidate").status_code == 200
    assert _users_with(db, email) == 1
    # The new password works on the sign-in form too.
    sign_in(TestClient(web_app), email, NEW_PASSWORD)


def test_reused_invite_gets_410_page(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    token = _invite(db, make_account, published_version, unique_email("invited"))
    assert _accept(TestClient(web_app), token).status_code == 303  # type: ignore[attr-defined]
    again = TestClient(web_app).get(f"/invite/{token}")
    assert again.status_code == 410
    assert "already been used" in again.text


def test_expired_invite_gets_410_page_and_post_writes_nothing(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("invited")
    token = _invite(db, make_account, published_version, email)
    client = TestClient(web_app)
    form_token = csrf_from(client.get(f"/invite/{token}").text)
    interview = db.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    assert interview is not None
    interview.invite_expires_at = interview.invite_expires_at - timedelta(days=4)
    db.commit()
    assert client.get(f"/invite/{token}").status_code == 410
    response = client.post(
        f"/invite/{token}", data={"password": NEW_PASSWORD, "password_confirm": NEW_PASSWORD, "csrf_token": form_token}
    )
    assert response.status_code == 410
    assert "expired" in response.text
    assert _users_with(db, email) == 0


def test_unknown_invite_gets_404_page(web_client: TestClient) -> None:
    response = web_client.get("/invite/this-is-not-an-invite")
    assert response.status_code == 404
    assert "not valid" in response.text


def test_mismatched_passwords_are_422_and_write_nothing(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("invited")
    token = _invite(db, make_account, published_version, email)
    response = _accept(TestClient(web_app), token, NEW_PASSWORD, "something else entirely")
    assert response.status_code == 422  # type: ignore[attr-defined]
    assert "do not match" in response.text  # type: ignore[attr-defined]
    assert _users_with(db, email) == 0
    assert service.find_invite(session=db, token=token).invite_used_at is None


def test_invite_post_without_csrf_token_is_refused(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    email = unique_email("invited")
    token = _invite(db, make_account, published_version, email)
    client = TestClient(web_app)
    client.get(f"/invite/{token}")
    response = client.post(f"/invite/{token}", data={"password": NEW_PASSWORD, "password_confirm": NEW_PASSWORD})
    assert response.status_code == 403
    assert _users_with(db, email) == 0


def test_existing_account_is_asked_to_sign_in_then_accepts(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    existing = make_account("candidate")
    token = _invite(db, make_account, published_version, existing.email)
    client = TestClient(web_app)
    page = client.get(f"/invite/{token}")
    assert "Sign in to continue" in page.text
    assert f"next=%2Finvite%2F{token}" in html.unescape(page.text)
    sign_in(client, existing.email)
    accept_page = client.get(f"/invite/{token}")
    assert "Accept the invitation" in accept_page.text
    response = client.post(f"/invite/{token}", data={"csrf_token": csrf_from(accept_page.text)}, follow_redirects=False)
    assert response.status_code == 303
    assert TestClient(web_app).get(f"/invite/{token}").status_code == 410
