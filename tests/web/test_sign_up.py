"""Self sign-up: closed by default, opened by an admin, same password rules and throttling as sign-in."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.audit.models import AuditEvent
from app.auth.rate_limit import LoginLimiter
from app.core.settings import get_settings
from app.users.models import User
from web.support import Account, page_csrf, sign_in, unique_email


def _set_sign_up(web_app: FastAPI, admin: Account, allow: bool) -> None:
    client = TestClient(web_app)
    sign_in(client, admin.email)
    token = page_csrf(client, "/admin")
    response = client.post("/admin/settings/sign-up", data={"csrf_token": token, "allow": "yes" if allow else "no"},
                           follow_redirects=False)
    assert response.status_code == 303


def test_sign_up_is_closed_until_an_admin_opens_it(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    admin = make_account("admin")
    visitor = TestClient(web_app)
    _set_sign_up(web_app, admin, False)
    assert "Create an account" not in visitor.get("/sign-in").text
    assert visitor.get("/sign-up").status_code == 403
    _set_sign_up(web_app, admin, True)
    assert "Create an account to practise" in visitor.get("/sign-in").text
    token = page_csrf(visitor, "/sign-up")
    email = unique_email("newbie")
    created = visitor.post("/sign-up", data={"csrf_token": token, "email": email, "password": "long enough pw",
                                             "password_confirm": "long enough pw"}, follow_redirects=False)
    assert created.status_code == 303 and created.headers["location"].endswith("/candidate")
    assert visitor.get("/candidate").status_code == 200  # signed in
    user = db.scalars(select(User).where(User.email == email)).one()
    assert user.role == "candidate"
    actions = db.scalars(select(AuditEvent.action).order_by(AuditEvent.id.desc()).limit(3)).all()
    assert "user.signed_up" in actions and "site.sign_up_opened" in actions
    _set_sign_up(web_app, admin, False)


def test_sign_up_errors_keep_the_email_and_say_what_to_fix(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    admin, existing = make_account("admin"), make_account("candidate")
    _set_sign_up(web_app, admin, True)
    visitor = TestClient(web_app)
    token = page_csrf(visitor, "/sign-up")
    short = visitor.post("/sign-up", data={"csrf_token": token, "email": "a@example.com", "password": "short",
                                           "password_confirm": "short"})
    assert short.status_code == 422 and "at least 8 characters" in short.text and 'value="a@example.com"' in short.text
    mismatch = visitor.post("/sign-up", data={"csrf_token": token, "email": "a@example.com",
                                              "password": "long enough pw", "password_confirm": "different pw!"})
    assert mismatch.status_code == 422 and "do not match" in mismatch.text
    taken = visitor.post("/sign-up", data={"csrf_token": token, "email": existing.email,
                                           "password": "long enough pw", "password_confirm": "long enough pw"})
    assert taken.status_code == 422 and "already exists" in taken.text
    _set_sign_up(web_app, admin, False)


def test_sign_up_is_throttled_like_sign_in(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    admin = make_account("admin")
    _set_sign_up(web_app, admin, True)
    settings = get_settings().model_copy(update={"login_attempts_per_ip": 2})
    web_app.state.login_limiter = LoginLimiter(settings)  # a fresh limiter with a low ceiling
    visitor = TestClient(web_app, client=("203.0.113.77", 5000))
    token = page_csrf(visitor, "/sign-up")
    codes = [visitor.post("/sign-up", data={"csrf_token": token, "email": "x@example.com", "password": "p",
                                            "password_confirm": "p"}).status_code for _ in range(3)]
    assert codes[:2] == [422, 422] and codes[2] == 429
    _set_sign_up(web_app, admin, False)
