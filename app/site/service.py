"""Reading and changing run-time settings; unknown keys are refused so typos never pass silently."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.interviews.rubric import DEFAULT_RUBRIC, RUBRIC_KEY
from app.site.models import SiteSetting
from app.users.models import User

# key -> default value (any JSON value); every run-time setting is declared here.
DEFAULTS: dict[str, object] = {
    "allow_sign_up": False,  # visitors may create a candidate account from the sign-in page
    RUBRIC_KEY: DEFAULT_RUBRIC,  # the criteria interviewers score, each level 1-4 described
}


def get(*, session: Session, key: str) -> Any:
    """The stored value, or the declared default."""
    if key not in DEFAULTS:
        raise KeyError(key)
    row = session.get(SiteSetting, key)
    return DEFAULTS[key] if row is None else row.value


def put(*, session: Session, key: str, value: Any, by: User | None) -> None:
    """Store a value (flushed, not committed)."""
    if key not in DEFAULTS:
        raise KeyError(key)
    row = session.get(SiteSetting, key)
    if row is None:
        session.add(SiteSetting(key=key, value=value, updated_by_id=by.id if by else None))
    else:
        row.value = value
        row.updated_by_id = by.id if by else None
    session.flush()


def sign_up_allowed(*, session: Session) -> bool:
    return bool(get(session=session, key="allow_sign_up"))
