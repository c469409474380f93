"""Revocation that holds everywhere: reactivation revives nothing; password change and "sign out
everywhere" end every session and API token; a sign-out is refused by every web process."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, sign_in

from app.core.db import get_session
from app.main import create_app
from app.users.models import ApiToken


def _signed_in(app: FastAPI, account: Account) -> TestClient:
    client = TestClient(app)
    sign_in(client, account.email, account.password)
    return client


def _token(client: TestClient, account: Account) -> dict[str, str]:
    response = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def _admin_sets_active(admin: TestClient, user_id: int, active: bool) -> None:
    token = csrf_from(admin.get("/admin/users").text)
    response = admin.post(
        f"/admin/users/{user_id}/active", data={"active": str(active).lower(), "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text[:300]


def test_reactivating_an_account_does_not_revive_its_old_tokens_or_sessions(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    target = make_account("candidate")
    session_client = _signed_in(web_app, target)
    bearer = _token(TestClient(web_app), target)
    old_cookies = dict(session_client.cookies)
    admin = _signed_in(web_app, make_account("admin"))

    _admin_sets_active(admin, target.user.id, False)
    _admin_sets_active(admin, target.user.id, True)

    assert TestClient(web_app).get("/api/auth/me", headers=bearer).status_code == 401
    replayed = TestClient(web_app, cookies=old_cookies)
    assert replayed.get("/candidate", follow_redirects=False).status_code == 303  # to sign-in
    # The account itself works again with its password.
    assert _signed_in(web_app, target).get("/candidate").status_code == 200


def test_changing_the_password_ends_other_sessions_and_tokens_but_keeps_this_one(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("interviewer")
    here = _signed_in(web_app, account)
    elsewhere = _signed_in(web_app, account)
    bearer = _token(TestClient(web_app), account)

    page = here.get("/account/password")
    assert page.status_code == 200
    assert 'for="current_password"' in page.text
    response = here.post("/account/password", data={
        "current_password": account.password, "new_password": "a brand new secret",
        "new_password_confirm": "a brand new secret", "csrf_token": csrf_from(page.text),
    })
    assert response.status_code == 200
    assert "Your password was changed" in response.text

    assert here.get("/interviewer").status_code == 200
    assert elsewhere.get("/interviewer", follow_redirects=False).status_code == 303
    assert TestClient(web_app).get("/api/auth/me", headers=bearer).status_code == 401
    revoked = db.scalars(select(ApiToken.revoked_at).where(ApiToken.user_id == account.user.id)).all()
    assert revoked and all(moment is not None for moment in revoked)
    old = TestClient(web_app).post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert old.status_code == 401
    new = TestClient(web_app).post("/api/auth/token", json={"email": account.email, "password": "a brand new secret"})
    assert new.status_code == 200


def test_changing_the_password_needs_the_current_one_and_matching_new_ones(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    client = _signed_in(web_app, account)
    token = csrf_from(client.get("/account/password").text)
    wrong = client.post("/account/password", data={
        "current_password": "not my password", "new_password": "another secret",
        "new_password_confirm": "another secret", "csrf_token": token})
    assert wrong.status_code == 422
    assert "current password is not correct" in wrong.text
    mismatch = client.post("/account/password", data={
        "current_password": account.password, "new_password": "another secret",
        "new_password_confirm": "another secreT", "csrf_token": token})
    assert mismatch.status_code == 422
    assert "do not match" in mismatch.text
    # Nothing changed: the old password still signs in.
    _signed_in(web_app, account)


def test_password_change_without_csrf_token_is_refused(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    client = _signed_in(web_app, account)
    response = client.post("/account/password", data={
        "current_password": account.password, "new_password": "another secret",
        "new_password_confirm": "another secret"})
    assert response.status_code == 403
    _signed_in(web_app, account)


def test_sign_out_everywhere_ends_every_session_and_token(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    here, elsewhere = _signed_in(web_app, account), _signed_in(web_app, account)
    bearer = _token(TestClient(web_app), account)
    token = csrf_from(here.get("/account/password").text)
    response = here.post("/account/sign-out-everywhere", data={"csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303
    for client in (here, elsewhere):
        assert client.get("/candidate", follow_redirects=False).status_code == 303
    assert TestClient(web_app).get("/api/auth/me", headers=bearer).status_code == 401


def test_a_sign_out_is_refused_by_another_web_process_and_after_a_restart(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    """Two app instances (as two processes, or before and after a restart) share only the database."""
    other_app = create_app()

    def _session() -> Iterator[Session]:
        yield db

    other_app.dependency_overrides[get_session] = _session
    account = make_account("candidate")
    client = _signed_in(web_app, account)
    copied = dict(client.cookies)
    assert TestClient(other_app, cookies=copied).get("/candidate").status_code == 200
    token = csrf_from(client.get("/candidate").text)
    assert client.post("/sign-out", data={"csrf_token": token}, follow_redirects=False).status_code == 303
    assert TestClient(other_app, cookies=copied).get("/candidate", follow_redirects=False).status_code == 303
