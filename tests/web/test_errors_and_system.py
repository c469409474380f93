"""Error pages (HTML for pages, JSON for /api), oversized fields, /healthz, /docs, headers, the unsafe banner."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.db import get_session
from app.core.settings import get_settings
from app.http import templating
from app.users.models import User
from web.support import Account, csrf_from, page_csrf, sign_in


def test_unknown_page_is_an_html_404(web_client: TestClient) -> None:
    response = web_client.get("/no/such/page")
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "There is nothing at this address." in response.text


def test_unknown_api_path_is_a_json_404(web_client: TestClient) -> None:
    response = web_client.get("/api/no/such/thing")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_candidate_calling_an_api_it_may_not_use_gets_json_not_html(web_client: TestClient) -> None:
    response = web_client.get("/api/auth/me")
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/json")


def test_oversized_form_field_is_413_with_a_message_and_changes_nothing(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("admin").email)
    target = make_account("candidate")
    limit = get_settings().max_form_field_chars
    response = client.post(
        f"/admin/users/{target.user.id}/role",
        data={"role": "x" * (limit + 1), "csrf_token": csrf_from(client.get("/admin/users").text)},
    )
    assert response.status_code == 413
    assert f"The field role is too long ({limit + 1} characters; the limit is {limit})" in response.text
    db.expire_all()
    assert db.get(User, target.user.id).role == "candidate"


def test_oversized_sign_in_field_is_413(web_client: TestClient) -> None:
    limit = get_settings().max_form_field_chars
    token = page_csrf(web_client)
    response = web_client.post("/sign-in", data={"email": "a@b.co", "password": "p" * (limit + 5), "csrf_token": token})
    assert response.status_code == 413
    assert "too long" in response.text


def test_huge_form_body_is_refused_before_it_is_read(web_client: TestClient) -> None:
    body = "x=" + "y" * (get_settings().max_form_field_chars * 20)
    response = web_client.post(
        "/sign-in", content=body, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert response.status_code == 413
    assert response.json() == {"detail": "The submitted form is too large."}


def test_healthz_answers_without_touching_the_database(web_client: TestClient) -> None:
    response = web_client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_reports_the_database_and_no_broker(web_client: TestClient) -> None:
    response = web_client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "not used",
                               "references": {"status": "ok", "waiting_for": []}}


def test_readyz_is_503_when_the_database_is_down(web_app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import create_engine

    from app.ops import routes

    dead = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
    monkeypatch.setattr(routes, "new_session", lambda: Session(bind=dead))
    response = TestClient(web_app).get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["database"].startswith("unavailable")


def test_readyz_is_503_when_the_broker_is_down(web_app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.settings import get_settings

    monkeypatch.setattr(get_settings(), "broker_url", "redis://127.0.0.1:1/0")
    response = TestClient(web_app).get("/readyz")
    assert response.status_code == 503
    assert response.json()["broker"].startswith("unavailable")


def test_docs_load_swagger_from_local_static_files(web_client: TestClient) -> None:
    page = web_client.get("/docs")
    assert page.status_code == 200
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in page.text
    assert "/static/vendor/swagger-ui/swagger-ui.css" in page.text
    assert "cdn.jsdelivr" not in page.text and "unpkg" not in page.text
    assert web_client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
    assert web_client.get("/static/vendor/htmx/htmx.min.js").status_code == 200


def test_docs_csp_admits_only_its_own_inline_script_by_hash(web_client: TestClient) -> None:
    import base64
    import hashlib
    import re

    page = web_client.get("/docs")
    policy = page.headers["Content-Security-Policy"]
    inline = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in policy
    assert "unsafe-inline" not in policy and "style-src 'self'" in policy


def test_pages_load_no_remote_assets_and_send_security_headers(web_client: TestClient) -> None:
    response = web_client.get("/sign-in")
    assert "https://" not in response.text
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_unsafe_mode_shows_a_banner_on_every_page(web_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(templating, "unsafe_mode", lambda: False)
    assert "Unsafe development mode" not in web_client.get("/sign-in").text
    monkeypatch.setattr(templating, "unsafe_mode", lambda: True)
    for path in ("/sign-in", "/no/such/page"):
        assert "Unsafe development mode" in web_client.get(path).text


def test_validation_error_on_a_page_is_an_html_422(web_app: FastAPI, make_account: Callable[..., Account]) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("admin").email)
    token = csrf_from(client.get("/admin/users").text)
    response = client.post("/admin/users/1/active", data={"csrf_token": token})
    assert response.status_code == 422
    assert "Some fields are missing or invalid: active." in response.text


def test_wrong_method_on_a_page_is_an_html_405(web_client: TestClient) -> None:
    response = web_client.get("/sign-out")
    assert response.status_code == 405
    assert "This address does not accept that kind of request." in response.text


def test_unexpected_error_is_a_500_page_or_json(web_app: FastAPI) -> None:
    def _broken() -> Iterator[Session]:
        raise RuntimeError("database exploded")
        yield  # pragma: no cover

    web_app.dependency_overrides[get_session] = _broken
    client = TestClient(web_app, raise_server_exceptions=False)
    page = client.get("/sign-in")
    assert page.status_code == 500
    assert page.headers["content-type"].startswith("text/html")
    assert "Something went wrong on our side." in page.text
    assert "database exploded" not in page.text
    api = client.get("/api/auth/me")
    assert api.status_code == 500
    assert api.json() == {"detail": "Something went wrong on our side. Try again in a moment."}


def test_pages_are_not_cached_but_static_files_may_be(web_client: TestClient) -> None:
    assert web_client.get("/sign-in").headers["Cache-Control"] == "no-store"
    assert "no-store" not in web_client.get("/static/css/app.css").headers.get("Cache-Control", "")


def test_huge_chunked_form_body_is_refused_while_it_streams(web_client: TestClient) -> None:
    limit = get_settings().max_form_field_chars * 16
    chunks = (b"y" * 65536 for _ in range(limit // 65536 + 2))

    def body() -> Iterator[bytes]:
        yield b"x="
        yield from chunks

    token = page_csrf(web_client)
    response = web_client.post(
        "/sign-in", content=body(),
        headers={"content-type": "application/x-www-form-urlencoded", "X-CSRF-Token": token},
    )
    assert response.status_code == 413
    assert "The submitted form is too large." in response.text


def test_404_page_for_a_signed_in_user_offers_the_dashboard_not_sign_in(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = TestClient(web_app)
    sign_in(client, make_account("candidate").email)
    page = client.get("/no/such/page").text
    assert 'href="http://testserver/dashboard"' in page
    assert 'href="http://testserver/sign-in"' not in page
