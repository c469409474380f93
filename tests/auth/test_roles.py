"""Role dependencies answer the same way for cookie and bearer requests: JSON 401/403 under /api."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from web.support import Account, sign_in

from app.auth.deps import WRONG_ROLE, AdminUser, InterviewerUser

probe = APIRouter(prefix="/api/probe")


@probe.get("/admin")
def admin_only(user: AdminUser) -> dict[str, str]:
    return {"email": user.email}


@probe.get("/interviewer")
def interviewer_only(user: InterviewerUser) -> dict[str, str]:
    return {"email": user.email}


@pytest.fixture
def probe_app(web_app: FastAPI) -> FastAPI:
    web_app.include_router(probe)
    return web_app


def _bearer(client: TestClient, account: Account) -> dict[str, str]:
    body = client.post("/api/auth/token", json={"email": account.email, "password": account.password}).json()
    return {"Authorization": f"Bearer {body['access_token']}"}


@pytest.mark.parametrize(
    ("role", "admin_status", "interviewer_status"),
    [("candidate", 403, 403), ("interviewer", 403, 200), ("admin", 200, 200)],
)
def test_roles_apply_equally_to_bearer_and_cookie(
    probe_app: FastAPI, make_account: Callable[..., Account], role: str, admin_status: int, interviewer_status: int
) -> None:
    account = make_account(role)
    bearer_client = TestClient(probe_app)
    headers = _bearer(bearer_client, account)
    cookie_client = TestClient(probe_app)
    sign_in(cookie_client, account.email)
    for client, kwargs in ((bearer_client, {"headers": headers}), (cookie_client, {})):
        admin = client.get("/api/probe/admin", **kwargs)  # type: ignore[arg-type]
        interviewer = client.get("/api/probe/interviewer", **kwargs)  # type: ignore[arg-type]
        assert (admin.status_code, interviewer.status_code) == (admin_status, interviewer_status)
        if admin_status == 403:
            assert admin.json() == {"detail": WRONG_ROLE}


def test_anonymous_api_request_is_a_json_401(probe_app: FastAPI) -> None:
    response = TestClient(probe_app).get("/api/probe/admin")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert "Not authenticated" in response.json()["detail"]
