"""Every password check is throttled like sign-in, and every new password must be hard to guess.

The limits are set low here (a fresh limiter per test), so a few posts reach them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.auth.rate_limit import LoginLimiter
from app.core.security import verify_password
from app.core.settings import get_settings
from app.interviews import service as interviews_service
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from web.support import PASSWORD, Account, csrf_from, page_csrf, sign_in, unique_email
from web.test_sign_up import _set_sign_up

WEAK = ["password", "aaaaaaaa", "12345678"]
STRONG = "velvet tractor orbit lemon"


def _low_limits(web_app: FastAPI, **limits: int) -> None:
    """A fresh limiter with low ceilings (the defaults take dozens of posts to reach)."""
    web_app.state.login_limiter = LoginLimiter(get_settings().model_copy(update=limits))


def _change(client: TestClient, current: str, new: str = STRONG, confirm: str | None = None) -> Response:
    token = csrf_from(client.get("/account/password").text)
    return client.post("/account/password", data={
        "current_password": current, "new_password": new, "new_password_confirm": confirm or new,
        "csrf_token": token})


def _invite(db: Session, make_account: Callable[..., Account], version: ScenarioVersion) -> str:
    _interview, token = interviews_service.create_interview(
        session=db, interviewer=make_account("interviewer").user, candidate_email=unique_email("invited"),
        scenario_version=version, time_limit_minutes=45, expires_in=timedelta(days=3))
    db.commit()
    return token


def _accept(client: TestClient, token: str, password: str) -> Response:
    form_token = csrf_from(client.get(f"/invite/{token}").text)
    return client.post(f"/invite/{token}", data={"password": password, "password_confirm": password,
                                                 "csrf_token": form_token}, follow_redirects=False)


def _sign_up(visitor: TestClient, email: str, password: str) -> Response:
    return visitor.post("/sign-up", data={"csrf_token": page_csrf(visitor, "/sign-up"), "email": email,
                                          "password": password, "password_confirm": password})


def _hash_of(db: Session, user: User) -> str | None:
    db.expire_all()
    return db.scalar(select(User.password_hash).where(User.id == user.id))


# --- throttling ---------------------------------------------------------------------------------


def test_wrong_current_passwords_are_throttled_and_the_right_one_then_waits(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    _low_limits(web_app, login_attempts_per_account=3)
    account = make_account("candidate")
    client = TestClient(web_app, client=("198.51.100.10", 5000))
    sign_in(client, account.email)
    codes = [_change(client, f"guess number {n}").status_code for n in range(6)]
    assert codes[:3] == [422, 422, 422] and set(codes[3:]) == {429}, codes
    # A guesser who now hits the password is still refused, and the password is unchanged.
    right = _change(client, PASSWORD)
    assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0
    assert "Too many password attempts" in right.text
    assert verify_password(PASSWORD, _hash_of(db, account.user))


def test_password_change_counts_against_the_clients_sign_in_budget(
    web_app: FastAPI, make_account: Callable[..., Account]
) -> None:
    _low_limits(web_app, login_attempts_per_ip=3)
    account = make_account("candidate")
    client = TestClient(web_app, client=("198.51.100.11", 5000))
    sign_in(client, account.email)  # attempt 1 from this address
    assert [_change(client, f"guess {n}").status_code for n in range(2)] == [422, 422]
    assert _change(client, "guess 3").status_code == 429
    # The same limiter: this address cannot sign in either now.
    other = TestClient(web_app, client=("198.51.100.11", 5001))
    token = page_csrf(other)
    refused = other.post("/sign-in", data={"email": account.email, "password": PASSWORD, "csrf_token": token})
    assert refused.status_code == 429


def test_invite_redemption_with_a_password_is_throttled_per_client(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    _low_limits(web_app, login_attempts_per_ip=3)
    token = _invite(db, make_account, published_version)
    client = TestClient(web_app, client=("198.51.100.12", 5000))
    codes = [_accept(client, token, "short").status_code for _ in range(3)]
    assert codes == [422, 422, 422]
    throttled = _accept(client, token, STRONG)
    assert throttled.status_code == 429 and "Retry-After" in throttled.headers
    assert "Too many password attempts" in throttled.text
    # Nothing was redeemed: from another address the same strong password works.
    assert _accept(TestClient(web_app, client=("198.51.100.13", 5000)), token, STRONG).status_code == 303


def test_invite_redemption_through_the_api_is_throttled_per_account(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    _low_limits(web_app, login_attempts_per_account=2)
    token = _invite(db, make_account, published_version)
    client = TestClient(web_app, client=("198.51.100.14", 5000))
    codes = [client.post(f"/api/invites/{token}", json={"password": weak}).status_code for weak in WEAK]
    assert codes == [422, 422, 429], codes
    refused = client.post(f"/api/invites/{token}", json={"password": STRONG})
    assert refused.status_code == 429 and "Too many password attempts" in refused.json()["detail"]
    elsewhere = TestClient(web_app, client=("198.51.100.15", 5000))
    assert elsewhere.post(f"/api/invites/{token}", json={"password": STRONG}).status_code == 200


def test_sign_up_failures_for_one_email_are_throttled_per_account(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    admin = make_account("admin")
    _set_sign_up(web_app, admin, True)
    _low_limits(web_app, login_attempts_per_account=2)
    visitor = TestClient(web_app, client=("198.51.100.16", 5000))
    email = unique_email("newbie")
    codes = [_sign_up(visitor, email, weak).status_code for weak in WEAK]
    assert codes == [422, 422, 429], codes
    _set_sign_up(web_app, admin, False)


# --- strength -----------------------------------------------------------------------------------


@pytest.mark.parametrize("weak", WEAK)
def test_sign_up_refuses_a_guessable_password_and_says_why(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], weak: str
) -> None:
    admin = make_account("admin")
    _set_sign_up(web_app, admin, True)
    email = unique_email("newbie")
    response = _sign_up(TestClient(web_app), email, weak)
    assert response.status_code == 422
    assert "too easy to guess" in response.text and "three or four unrelated words" in response.text
    assert db.scalar(select(func.count()).select_from(User).where(User.email == email)) == 0
    _set_sign_up(web_app, admin, False)


@pytest.mark.parametrize("weak", WEAK)
def test_password_change_refuses_a_guessable_new_password(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], weak: str
) -> None:
    account = make_account("candidate")
    client = TestClient(web_app)
    sign_in(client, account.email)
    response = _change(client, PASSWORD, weak)
    assert response.status_code == 422 and "too easy to guess" in response.text
    assert verify_password(PASSWORD, _hash_of(db, account.user))
    assert _change(client, PASSWORD, STRONG).status_code == 200
    assert verify_password(STRONG, _hash_of(db, account.user))


def test_invite_refuses_a_guessable_password_on_the_page_and_the_api(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    token = _invite(db, make_account, published_version)
    page = _accept(TestClient(web_app), token, "12345678")
    assert page.status_code == 422 and "too easy to guess" in page.text and "top-10 common password" in page.text
    api = TestClient(web_app).post(f"/api/invites/{token}", json={"password": "aaaaaaaa"})
    assert api.status_code == 422 and "Repeats like" in api.json()["detail"]
    assert TestClient(web_app).post(f"/api/invites/{token}", json={"password": STRONG}).status_code == 200
