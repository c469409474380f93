"""Input an attacker sends on purpose: a clear 4xx every time, never a 500 or an echo of the input."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.db import get_session
from app.core.settings import get_settings
from app.main import create_app
from web.support import Account, csrf_from, page_csrf, sign_in

HUGE = "99999999999999999999"


def _bearer(client: TestClient, account: Account) -> dict[str, str]:
    response = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert response.status_code == 200
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def _quiet(app: FastAPI) -> TestClient:
    # raise_server_exceptions=False: a 500 must be seen as the client sees it, not as a test error.
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize("attempt_id", [HUGE, "-1", "0", "-" + HUGE])
def test_attempt_ids_out_of_range_are_a_clean_4xx(
    web_app: FastAPI, make_account: Callable[..., Account], attempt_id: str
) -> None:
    client = _quiet(web_app)
    response = client.get(f"/api/attempts/{attempt_id}", headers=_bearer(client, make_account("candidate")))
    assert response.status_code in (404, 422), response.text
    assert "detail" in response.json()


@pytest.mark.parametrize("interview", [int(HUGE), -1, 1e30, -(2**63) - 1])
def test_interview_numbers_out_of_range_in_an_attempt_are_a_clean_4xx(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: object, interview: float
) -> None:
    client = _quiet(web_app)
    response = client.post("/api/attempts", headers=_bearer(client, make_account("candidate")),
                           json={"scenario": "warm-up", "kind": "run", "interview": interview})
    assert response.status_code in (404, 422), response.text


def test_admin_user_forms_with_ids_out_of_range_are_a_clean_4xx(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = _quiet(web_app)
    sign_in(client, make_account("admin").email)
    token = csrf_from(client.get("/admin/users").text)
    for user_id in (HUGE, "-5"):
        for action, form in (("active", {"active": "false"}), ("role", {"role": "admin"})):
            response = client.post(f"/admin/users/{user_id}/{action}", data={**form, "csrf_token": token})
            assert response.status_code in (404, 422), (user_id, action, response.status_code)
            assert "<html" in response.text  # the error page, not a bare traceback


def test_interview_form_numbers_out_of_range_are_a_clean_4xx(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = _quiet(web_app)
    sign_in(client, make_account("interviewer").email)
    token = csrf_from(client.get("/interviewer").text)
    for field in ("scenario_version_id", "time_limit_minutes", "valid_days"):
        form = {"candidate_email": "someone@example.com", "scenario_version_id": "1", "time_limit_minutes": "60",
                "valid_days": "7", field: HUGE, "csrf_token": token}
        response = client.post("/interviewer/interviews", data=form)
        assert response.status_code == 422, (field, response.status_code)


@pytest.mark.parametrize("body", [
    b'{"email": "\\ud800@example.com", "password": "whatever-it-is"}',
    b'{"email": "a@example.com", "password": "\\udc00\\udc00\\udc00\\udc00\\udc00\\udc00"}',
    b'{"email": "a@example.com", "password": "\xed\xa0\x80 raw surrogate"}',
])
def test_lone_surrogates_in_json_are_a_422(web_app: FastAPI, body: bytes) -> None:
    response = _quiet(web_app).post("/api/auth/token", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert "not valid UTF-8" in response.json()["detail"]


def test_lone_surrogate_in_the_scenario_of_an_attempt_is_a_422(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    client = _quiet(web_app)
    response = client.post("/api/attempts", headers={**_bearer(client, make_account("candidate")),
                           "content-type": "application/json"}, content=b'{"scenario": "warm\\ud800up"}')
    assert response.status_code == 422


def test_surrogate_bytes_in_a_form_do_not_break_sign_in(web_app: FastAPI) -> None:
    client = _quiet(web_app)
    token = page_csrf(client)
    response = client.post("/sign-in", content=f"email=%ED%A0%80%40x.io&password=%ED%A0%80aaaaaaa&csrf_token={token}",
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 401


def test_validation_errors_do_not_echo_the_input(web_app: FastAPI) -> None:
    secret = "p" * 300
    response = _quiet(web_app).post("/api/auth/token", json={"email": "a@example.com", "password": secret})
    assert response.status_code == 422
    assert secret not in response.text
    assert response.json()["detail"][0]["loc"] == ["body", "password"]
    assert "input" not in response.json()["detail"][0]


def test_a_json_body_beyond_the_limit_is_refused_before_it_is_read(web_app: FastAPI) -> None:
    limit = get_settings().max_request_body_bytes
    body = b'{"email": "a@example.com", "password": "' + b"x" * (limit + 10) + b'"}'
    response = _quiet(web_app).post("/api/auth/token", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert len(response.content) < 500


def test_a_chunked_json_body_beyond_the_limit_is_refused_while_it_streams(web_app: FastAPI) -> None:
    limit = get_settings().max_request_body_bytes

    def chunks():  # no Content-Length: the server must count
        for _ in range(limit // 65536 + 2):
            yield b"x" * 65536

    response = _quiet(web_app).post("/api/auth/token", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_large_body_of_another_type_is_capped_too(web_app: FastAPI) -> None:
    limit = get_settings().max_request_body_bytes
    response = _quiet(web_app).post("/api/auth/token", content=b"x" * (limit + 1),
                                    headers={"content-type": "text/plain"})
    assert response.status_code == 413


def test_a_forged_host_header_is_refused_without_a_base_url(web_app: FastAPI) -> None:
    response = _quiet(web_app).get("/", headers={"Host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 400
    assert "evil.example" not in response.headers.get("location", "")


def _app_with(db: Session, monkeypatch: pytest.MonkeyPatch, **settings: object) -> FastAPI:
    from app import main

    changed = get_settings().model_copy(update=settings)
    monkeypatch.setattr(main, "get_settings", lambda: changed)
    app = create_app()
    app.dependency_overrides[get_session] = lambda: db
    return app


def test_with_a_base_url_links_and_redirects_ignore_the_host_header(
    db: Session, monkeypatch: pytest.MonkeyPatch, make_account: Callable[..., Account]
) -> None:
    app = _app_with(db, monkeypatch, base_url="https://dojo.example.com")
    client = TestClient(app, base_url="https://dojo.example.com")
    response = client.get("/", headers={"Host": "evil.example", "X-Forwarded-Proto": "http"}, follow_redirects=False)
    assert response.headers["location"] == "https://dojo.example.com/sign-in"
    page = client.get("/sign-in", headers={"Host": "evil.example"})
    assert "evil.example" not in page.text


def test_an_invite_link_names_the_base_url_whatever_the_host(
    db: Session, monkeypatch: pytest.MonkeyPatch, make_account: Callable[..., Account], published_version: object
) -> None:
    app = _app_with(db, monkeypatch, base_url="https://dojo.example.com")
    client = TestClient(app, base_url="https://dojo.example.com")
    sign_in(client, make_account("interviewer").email)
    token = csrf_from(client.get("/interviewer").text)
    response = client.post("/interviewer/interviews", headers={"Host": "evil.example"}, data={
        "candidate_email": "invited@example.com", "scenario_version_id": str(published_version.id),  # type: ignore[attr-defined]
        "time_limit_minutes": "60", "valid_days": "7", "csrf_token": token})
    assert response.status_code == 201, response.text[:500]
    assert "https://dojo.example.com/invite/" in response.text
    assert "evil.example" not in response.text
