"""The sign-in form: each failure has its status and message; success lands on the role's dashboard."""

from __future__ import annotations

import html
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.auth.login import BAD_CREDENTIALS, DEACTIVATED
from web.support import Account, page_csrf


def _post(client: TestClient, email: str, password: str, next_path: str = "") -> object:
    token = page_csrf(client)
    return client.post(
        "/sign-in", data={"email": email, "password": password, "csrf_token": token, "next": next_path},
        follow_redirects=False,
    )


@pytest.mark.parametrize(
    ("role", "dashboard"), [("candidate", "/candidate"), ("interviewer", "/interviewer"), ("admin", "/admin")]
)
def test_sign_in_lands_on_the_role_dashboard(
    web_client: TestClient, make_account: Callable[..., Account], role: str, dashboard: str
) -> None:
    account = make_account(role)
    response = _post(web_client, account.email, account.password)
    assert response.status_code == 303  # type: ignore[attr-defined]
    assert response.headers["location"].endswith(dashboard)  # type: ignore[attr-defined]
    assert web_client.get(dashboard).status_code == 200


def test_wrong_password_is_401_with_a_message_and_no_session(
    web_client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate")
    response = _post(web_client, account.email, "not the password")
    assert response.status_code == 401  # type: ignore[attr-defined]
    assert BAD_CREDENTIALS in html.unescape(response.text)  # type: ignore[attr-defined]
    assert account.email in response.text  # type: ignore[attr-defined]  # the email is kept in the form
    assert web_client.get("/candidate", follow_redirects=False).status_code == 303


def test_unknown_user_gets_the_same_message_as_a_wrong_password(web_client: TestClient) -> None:
    response = _post(web_client, "nobody-here@example.com", "whatever-password")
    assert response.status_code == 401  # type: ignore[attr-defined]
    assert BAD_CREDENTIALS in html.unescape(response.text)  # type: ignore[attr-defined]


def test_deactivated_user_is_told_so_only_with_the_right_password(
    web_client: TestClient, make_account: Callable[..., Account]
) -> None:
    account = make_account("candidate", active=False)
    right = _post(web_client, account.email, account.password)
    assert right.status_code == 403  # type: ignore[attr-defined]
    assert DEACTIVATED in html.unescape(right.text)  # type: ignore[attr-defined]
    wrong = _post(web_client, account.email, "not the password")
    assert wrong.status_code == 401  # type: ignore[attr-defined]
    assert web_client.get("/candidate", follow_redirects=False).status_code == 303


def test_sign_in_follows_a_same_site_next_path(web_client: TestClient, make_account: Callable[..., Account]) -> None:
    account = make_account("admin")
    response = _post(web_client, account.email, account.password, "/admin/users")
    assert response.headers["location"] == "/admin/users"  # type: ignore[attr-defined]


@pytest.mark.parametrize("next_path", ["https://evil.example/", "//evil.example/", "/\\evil.example"])
def test_sign_in_ignores_an_off_site_next(
    web_client: TestClient, make_account: Callable[..., Account], next_path: str
) -> None:
    account = make_account("candidate")
    response = _post(web_client, account.email, account.password, next_path)
    assert response.headers["location"].endswith("/candidate")  # type: ignore[attr-defined]


def test_anonymous_page_visit_redirects_to_sign_in_and_back(web_app: FastAPI) -> None:
    response = TestClient(web_app).get("/admin/users", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].endswith("/sign-in?next=%2Fadmin%2Fusers")


def test_anonymous_htmx_request_gets_hx_redirect(web_app: FastAPI) -> None:
    response = TestClient(web_app).get("/candidate", headers={"HX-Request": "true"}, follow_redirects=False)
    assert response.status_code == 401
    assert "/sign-in" in response.headers["HX-Redirect"]
