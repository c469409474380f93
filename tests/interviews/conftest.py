from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from sqlalchemy.orm import Session
from web.support import (  # noqa: F401
    Account,
    fast_password_hashing,
    make_account,
    published_version,
    web_app,
    web_client,
)

from app.auth.tokens import issue_token
from app.users.models import User


@dataclass
class ApiUser:
    user: User
    headers: dict[str, str]


@pytest.fixture
def api_user(db: Session, request: pytest.FixtureRequest) -> Callable[[str], ApiUser]:
    """A committed user of the role with a bearer token."""
    accounts: Callable[..., Account] = request.getfixturevalue("make_account")

    def _make(role: str) -> ApiUser:
        user = accounts(role).user
        token = issue_token(session=db, user=user)
        db.commit()
        return ApiUser(user=user, headers={"Authorization": f"Bearer {token}"})

    return _make
