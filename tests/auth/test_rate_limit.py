"""Login rate limits: per account (failures) and per client IP (every attempt), on the form and the API."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web.support import Account, page_csrf

from app.auth.rate_limit import LoginThrottled, SlidingWindow
from app.core.settings import get_settings


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _form_sign_in(client: TestClient, email: str, password: str) -> int:
    token = page_csrf(client)
    response = client.post(
        "/sign-in", data={"email": email, "password": password, "csrf_token": token}, follow_redirects=False
    )
    return response.status_code


def test_sliding_window_refuses_over_the_limit_and_forgets_after_the_window() -> None:
    clock = FakeClock()
    window = SlidingWindow(limit=3, window=60, clock=clock)
    for _ in range(3):
        assert window.retry_after("k") == 0
        window.hit("k")
    assert window.retry_after("k") == 60
    clock.now += 30
    assert window.retry_after("k") == 30
    assert window.retry_after("other") == 0
    clock.now += 31
    assert window.retry_after("k") == 0


def test_throttle_message_names_the_wait_in_minutes() -> None:
    assert "Wait 5 minute(s)" in str(LoginThrottled(300))


def test_account_is_throttled_after_too_many_wrong_passwords(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    limit = get_settings().login_attempts_per_account
    account = make_account("candidate")
    client = TestClient(web_app, client=("10.0.0.1", 5000))
    for _ in range(limit):
        assert _form_sign_in(client, account.email, "wrong password!") == 401
    # Even the right password is refused now, so guessing cannot continue.
    token = page_csrf(client)
    response = client.post("/sign-in", data={"email": account.email, "password": account.password, "csrf_token": token})
    assert response.status_code == 429
    assert "Too many sign-in attempts" in response.text
    # From another address the account stays locked; another account from the first address is fine.
    other_ip = TestClient(web_app, client=("10.0.0.2", 5000))
    assert _form_sign_in(other_ip, account.email, account.password) == 429
    assert _form_sign_in(client, make_account("candidate").email, "correct horse battery") == 303


def test_ip_is_throttled_after_too_many_attempts_across_accounts(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    limit = get_settings().login_attempts_per_ip
    client = TestClient(web_app, client=("10.0.0.3", 5000))
    for attempt in range(limit):
        assert _form_sign_in(client, f"nobody-{attempt}@example.com", "whatever-pass") == 401
    account = make_account("candidate")
    assert _form_sign_in(client, account.email, account.password) == 429
    assert _form_sign_in(TestClient(web_app, client=("10.0.0.4", 5000)), account.email, account.password) == 303


def test_token_endpoint_is_rate_limited_with_retry_after(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    limit = get_settings().login_attempts_per_account
    account = make_account("candidate")
    client = TestClient(web_app, client=("10.0.0.5", 5000))
    for _ in range(limit):
        assert client.post("/api/auth/token", json={"email": account.email, "password": "nope-nope"}).status_code == 401
    response = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert response.status_code == 429
    assert "Too many sign-in attempts" in response.json()["detail"]
    assert int(response.headers["Retry-After"]) > 0


def test_successful_sign_in_clears_the_account_failures(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    limit = get_settings().login_attempts_per_account
    account = make_account("candidate")
    client = TestClient(web_app, client=("10.0.0.6", 5000))
    for _ in range(limit - 1):
        assert _form_sign_in(client, account.email, "wrong password!") == 401
    assert _form_sign_in(client, account.email, account.password) == 303
    fresh = TestClient(web_app, client=("10.0.0.6", 5000))
    for _ in range(limit - 1):
        assert _form_sign_in(fresh, account.email, "wrong password!") == 401
    assert _form_sign_in(fresh, account.email, account.password) == 303


def test_sliding_window_forgets_idle_keys_when_many_accumulate(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.auth import rate_limit

    monkeypatch.setattr(rate_limit, "SWEEP_ABOVE_KEYS", 5)
    clock = FakeClock()
    window = SlidingWindow(limit=3, window=60, clock=clock)
    for index in range(6):
        window.hit(f"old-{index}")
    clock.now += 61
    window.hit("new")
    assert len(window) == 1
