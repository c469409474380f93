"""CSRF: forms need the hidden token, htmx needs the header, cookie API calls too; bearer calls are exempt."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, page_csrf, sign_in

from app.auth.csrf import CSRF_FAILED
from app.users.models import User


def _admin_client(web_app: FastAPI, make_account: Callable[..., Account]) -> tuple[TestClient, str]:
    client = TestClient(web_app)
    sign_in(client, make_account("admin").email)
    return client, csrf_from(client.get("/admin/users").text)


def test_form_post_without_csrf_token_is_refused_and_changes_nothing(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    client, _token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    response = client.post(f"/admin/users/{target.user.id}/role", data={"role": "admin"}, follow_redirects=False)
    assert response.status_code == 403
    assert CSRF_FAILED in response.text
    db.expire_all()
    assert db.get(User, target.user.id).role == "candidate"


def test_form_post_with_wrong_csrf_token_is_refused(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    client, token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    # Change the last two hex digits to something they are not: a fixed "00" equals the real
    # token once in 256 runs, and then the test posts the right token.
    wrong = token[:-2] + ("00" if token[-2:] != "00" else "ff")
    assert wrong != token
    response = client.post(
        f"/admin/users/{target.user.id}/role", data={"role": "admin", "csrf_token": wrong}, follow_redirects=False
    )
    assert response.status_code == 403


def test_form_post_with_csrf_token_is_accepted(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    client, token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    response = client.post(
        f"/admin/users/{target.user.id}/role", data={"role": "interviewer", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303
    db.expire_all()
    assert db.get(User, target.user.id).role == "interviewer"


def test_htmx_request_without_csrf_header_is_refused(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    client, _token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    response = client.post(
        f"/admin/users/{target.user.id}/active", data={"active": "false"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 403
    assert CSRF_FAILED in response.text
    db.expire_all()
    assert db.get(User, target.user.id).is_active is True


def test_htmx_request_with_csrf_header_gets_the_row_fragment(
    web_app: FastAPI, make_account: Callable[..., Account], db: Session
) -> None:
    client, token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    response = client.post(
        f"/admin/users/{target.user.id}/active", data={"active": "false"},
        headers={"HX-Request": "true", "X-CSRF-Token": token},
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith(f'<tr id="user-{target.user.id}">')
    assert "deactivated" in response.text
    db.expire_all()
    assert db.get(User, target.user.id).is_active is False


def test_base_layout_sets_the_csrf_header_for_htmx(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    client, token = _admin_client(web_app, make_account)
    html = client.get("/admin/users").text
    assert f'hx-headers=\'{{"X-CSRF-Token": "{token}"}}\'' in html


def test_token_of_another_session_is_refused(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    _other, other_token = _admin_client(web_app, make_account)
    client, _token = _admin_client(web_app, make_account)
    target = make_account("candidate")
    response = client.post(f"/admin/users/{target.user.id}/role", data={"role": "admin", "csrf_token": other_token})
    assert response.status_code == 403


def test_sign_in_without_csrf_token_is_refused_and_does_not_sign_in(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    client = TestClient(web_app)
    page_csrf(client)
    response = client.post("/sign-in", data={"email": account.email, "password": account.password})
    assert response.status_code == 403
    assert client.get("/candidate", follow_redirects=False).status_code == 303


def test_csrf_token_changes_at_sign_in(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    client = TestClient(web_app)
    before = page_csrf(client)
    sign_in(client, make_account("candidate").email)
    after = csrf_from(client.get("/candidate").text)
    assert before != after


def test_cookie_authenticated_api_call_needs_the_csrf_header(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("candidate").email)
    token = csrf_from(client.get("/candidate").text)
    refused = client.delete("/api/auth/token")
    assert refused.status_code == 403
    assert refused.json() == {"detail": CSRF_FAILED}
    # With the header the request reaches the route (which explains there is no bearer token to revoke).
    allowed = client.delete("/api/auth/token", headers={"X-CSRF-Token": token})
    assert allowed.status_code == 400


def test_bearer_api_call_needs_no_csrf_token(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    account = make_account("candidate")
    client = TestClient(web_app)
    token = client.post("/api/auth/token", json={"email": account.email, "password": account.password}).json()
    response = client.delete("/api/auth/token", headers={"Authorization": f"Bearer {token['access_token']}"})
    assert response.status_code == 204
