"""The `db` fixture really isolates tests, even when code under test commits."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.users.models import User

EMAIL = "isolation-probe@example.com"


@pytest.mark.parametrize("round_", [1, 2])
def test_committed_rows_do_not_leak_into_the_next_test(db: Session, round_: int) -> None:
    assert db.scalar(select(func.count()).select_from(User).where(User.email == EMAIL)) == 0
    db.add(User(email=EMAIL, role="candidate"))
    db.commit()
    assert db.scalar(select(func.count()).select_from(User).where(User.email == EMAIL)) == 1
