"""Cookie sessions: flags, sign-out, deactivation and password changes end access at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, page_csrf, sign_in

from app.auth.sessions import SESSION_COOKIE
from app.core.security import hash_password
from app.core.settings import get_settings
from app.main import create_app
from app.users.models import User


def _set_cookie_header(web_app: FastAPI, account: Account) -> str:
    client = TestClient(web_app)
    token = page_csrf(client)
    response = client.post(
        "/sign-in", data={"email": account.email, "password": account.password, "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303
    return response.headers["set-cookie"]


def test_session_cookie_is_httponly_lax_with_max_age(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    header = _set_cookie_header(web_app, make_account("candidate")).lower()
    assert header.startswith(f"{SESSION_COOKIE}=")
    assert "httponly" in header
    assert "samesite=lax" in header
    assert f"max-age={get_settings().session_max_age_seconds}" in header
    assert "secure" not in header.replace("samesite", "")


def test_session_cookie_is_secure_when_configured(
    monkeypatch: pytest.MonkeyPatch, db: Session, make_account: Callable[..., Account]
) -> None:
    from app import main
    from app.core.db import get_session

    secure = get_settings().model_copy(update={"cookie_secure": True})
    monkeypatch.setattr(main, "get_settings", lambda: secure)
    app = create_app()
    app.dependency_overrides[get_session] = lambda: db
    account = make_account("candidate")
    # A Secure cookie only comes back over HTTPS.
    client = TestClient(app, base_url="https://testserver")
    token = page_csrf(client)
    response = client.post(
        "/sign-in", data={"email": account.email, "password": account.password, "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert "; secure" in response.headers["set-cookie"].lower()


def test_deactivated_user_loses_access_on_the_next_request(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    client = TestClient(web_app)
    sign_in(client, account.email)
    assert client.get("/candidate").status_code == 200
    db.get(User, account.user.id).is_active = False
    db.commit()
    response = client.get("/candidate", follow_redirects=False)
    assert response.status_code == 303
    assert "/sign-in" in response.headers["location"]
    assert client.get("/api/auth/me").status_code == 401


def test_password_change_ends_older_sessions(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    account = make_account("candidate")
    client = TestClient(web_app)
    sign_in(client, account.email)
    db.get(User, account.user.id).password_hash = hash_password("a brand new password")
    db.commit()
    assert client.get("/candidate", follow_redirects=False).status_code == 303


def test_sign_out_ends_the_session_even_for_a_copied_cookie(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("candidate").email)
    copied = dict(client.cookies)
    token = csrf_from(client.get("/candidate").text)
    response = client.post("/sign-out", data={"csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].endswith("/sign-in")
    assert client.get("/candidate", follow_redirects=False).status_code == 303
    replay = TestClient(web_app, cookies=copied)
    assert replay.get("/candidate", follow_redirects=False).status_code == 303


def test_sign_out_without_csrf_token_keeps_the_session(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("candidate").email)
    assert client.post("/sign-out", follow_redirects=False).status_code == 403
    assert client.get("/candidate").status_code == 200


def test_tampered_cookie_is_anonymous(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("admin").email)
    value = client.cookies[SESSION_COOKIE]
    forged = TestClient(web_app, cookies={SESSION_COOKIE: value[:-3] + ("AAA" if value[-3:] != "AAA" else "BBB")})
    assert forged.get("/admin", follow_redirects=False).status_code == 303
