"""Bearer tokens: issued for good credentials, stored as SHA-256 only, refused when bad, revoked or expired."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account

from app.auth.deps import BAD_TOKEN, DEACTIVATED
from app.auth.login import BAD_CREDENTIALS
from app.auth.login import DEACTIVATED as LOGIN_DEACTIVATED
from app.auth.tokens import issue_token
from app.core.db import utcnow
from app.core.security import token_digest
from app.users.models import ApiToken, User


def _token(client: TestClient, account: Account) -> str:
    response = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "bearer"
    return str(body["access_token"])


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_good_credentials_give_a_token_that_authenticates(
    web_client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account("interviewer")
    token = _token(web_client, account)
    me = web_client.get("/api/auth/me", headers=_bearer(token))
    assert me.status_code == 200
    assert me.json()["email"] == account.email
    assert me.json()["role"] == "interviewer"


def test_only_the_sha256_of_a_token_is_stored(
    web_client: TestClient, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    token = _token(web_client, account)
    stored = db.scalars(select(ApiToken.token_hash).where(ApiToken.user_id == account.user.id)).all()
    assert stored == [token_digest(token)]
    assert token not in stored


def test_wrong_password_and_unknown_user_get_the_same_401(
    web_client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    wrong = web_client.post("/api/auth/token", json={"email": account.email, "password": "not the password"})
    unknown = web_client.post("/api/auth/token", json={"email": "nobody@example.com", "password": "whatever1"})
    for response in (wrong, unknown):
        assert response.status_code == 401
        assert response.json() == {"detail": BAD_CREDENTIALS}
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_deactivated_user_gets_no_token(web_client: TestClient, make_account: Callable[..., Account]) -> None:
    account = make_account("candidate", active=False)
    response = web_client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert response.status_code == 403
    assert response.json() == {"detail": LOGIN_DEACTIVATED}


def test_bad_token_is_refused(web_client: TestClient) -> None:
    response = web_client.get("/api/auth/me", headers=_bearer("not-a-token"))
    assert response.status_code == 401
    assert response.json() == {"detail": BAD_TOKEN}


def test_empty_bearer_header_is_refused(web_client: TestClient) -> None:
    response = web_client.get("/api/auth/me", headers={"Authorization": "Bearer "})
    assert response.status_code == 401
    assert response.json() == {"detail": "Use the header 'Authorization: Bearer <token>'."}


def test_basic_authorization_from_a_proxy_is_ignored_not_an_error(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    from web.support import sign_in

    client = TestClient(web_app)
    sign_in(client, make_account("candidate").email)
    basic = {"Authorization": "Basic dXNlcjpwYXNz"}
    assert client.get("/candidate", headers=basic).status_code == 200
    assert client.get("/api/auth/me", headers=basic).status_code == 200
    assert TestClient(web_app).get("/api/auth/me", headers=basic).status_code == 401


def test_revoked_token_is_refused(web_client: TestClient, make_account: Callable[..., Account]) -> None:
    token = _token(web_client, make_account("candidate"))
    assert web_client.delete("/api/auth/token", headers=_bearer(token)).status_code == 204
    response = web_client.get("/api/auth/me", headers=_bearer(token))
    assert response.status_code == 401
    assert response.json() == {"detail": BAD_TOKEN}


def test_expired_token_is_refused(
    web_client: TestClient, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    token = issue_token(session=db, user=account.user, lifetime=timedelta(seconds=-1))
    db.commit()
    assert web_client.get("/api/auth/me", headers=_bearer(token)).status_code == 401


def test_token_of_a_deactivated_user_stops_working_at_once(
    web_client: TestClient, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    token = _token(web_client, account)
    db.get(User, account.user.id).is_active = False
    db.commit()
    response = web_client.get("/api/auth/me", headers=_bearer(token))
    assert response.status_code == 403
    assert response.json() == {"detail": DEACTIVATED}


def test_bad_bearer_token_never_falls_back_to_the_cookie(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    from web.support import sign_in

    client = TestClient(web_app)
    sign_in(client, make_account("admin").email)
    assert client.get("/api/auth/me").status_code == 200
    assert client.get("/api/auth/me", headers=_bearer("forged")).status_code == 401


def test_token_expiry_is_in_the_future(
    web_client: TestClient, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    _token(web_client, account)
    row = db.scalars(select(ApiToken).where(ApiToken.user_id == account.user.id)).one()
    assert row.expires_at is not None
    expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=utcnow().tzinfo)
    assert expires > utcnow() + timedelta(days=1)
