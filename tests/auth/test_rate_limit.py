"""Login rate limits: per account and client (failures), per account overall, per client IP (every attempt)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web.support import Account, page_csrf

from app.auth.rate_limit import LoginLimiter, LoginThrottled
from app.core.settings import get_settings


def _form_sign_in(client: TestClient, email: str, password: str) -> int:
    token = page_csrf(client)
    response = client.post(
        "/sign-in", data={"email": email, "password": password, "csrf_token": token}, follow_redirects=False
    )
    return response.status_code


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
    # Another account from the first address is fine.
    assert _form_sign_in(client, make_account("candidate").email, "correct horse battery") == 303


def test_wrong_passwords_from_another_address_do_not_lock_the_owner_out(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    """A guesser who types wrong passwords for someone's email throttles only their own address."""
    limit = get_settings().login_attempts_per_account
    account = make_account("candidate")
    attacker = TestClient(web_app, client=("10.0.9.1", 5000))
    for _ in range(limit + 2):
        assert _form_sign_in(attacker, account.email, "wrong password!") in (401, 429)
    assert _form_sign_in(attacker, account.email, account.password) == 429
    owner = TestClient(web_app, client=("10.0.9.2", 5000))
    assert _form_sign_in(owner, account.email, account.password) == 303


def test_failures_from_many_addresses_hit_the_account_ceiling(
    web_app: FastAPI, make_account: Callable[..., Account], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = get_settings().model_copy(update={"login_failures_per_account_everywhere": 6})
    web_app.state.login_limiter = LoginLimiter(settings)
    account = make_account("candidate")
    for n in range(6):
        client = TestClient(web_app, client=(f"10.0.8.{n}", 5000))
        assert _form_sign_in(client, account.email, "wrong password!") == 401
    late = TestClient(web_app, client=("10.0.8.200", 5000))
    assert _form_sign_in(late, account.email, account.password) == 429


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


@pytest.mark.redis
def test_limiters_of_two_processes_share_counts_through_redis() -> None:
    """Two LoginLimiters on one Redis (as two web processes would be) see each other's failures."""
    import uuid

    from services import REDIS_URL

    settings = get_settings().model_copy(update={"rate_limit_storage_url": REDIS_URL})
    first, second = LoginLimiter(settings), LoginLimiter(settings)
    run = uuid.uuid4()
    account = f"shared-{run.hex[:8]}@example.com"
    # Addresses of this run only: the Redis counters outlive the test for their window, and a rerun
    # within it must not find the per-address limit already used up.
    ip, other_ip = f"10.{run.bytes[0]}.{run.bytes[1]}.1", f"10.{run.bytes[0]}.{run.bytes[1]}.2"
    for _ in range(settings.login_attempts_per_account):
        first.check_and_count(ip=ip, account=account)
        first.failed(ip=ip, account=account)
    with pytest.raises(LoginThrottled):
        second.check_and_count(ip=ip, account=account)
    second.check_and_count(ip=other_ip, account=account)  # another client of that account is not locked


def test_a_down_counter_store_does_not_stop_sign_in() -> None:
    settings = get_settings().model_copy(update={"rate_limit_storage_url": "redis://127.0.0.1:1/0"})
    limiter = LoginLimiter(settings)
    limiter.check_and_count(ip="10.1.1.3", account="nobody@example.com")
    limiter.failed(ip="10.1.1.3", account="nobody@example.com")
