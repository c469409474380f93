"""Attempt numbers as people read them: 1, 2, 3 … within one workspace (a challenge's practice, or one
interview), in time order over every kind, never the database id that counts every user's attempts."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt


def _same_workspace(attempt: Attempt) -> list[ColumnElement[bool]]:
    scope = (Attempt.interview_id.is_(None) if attempt.interview_id is None
             else Attempt.interview_id == attempt.interview_id)
    return [Attempt.user_id == attempt.user_id, Attempt.scenario_version_id == attempt.scenario_version_id, scope]


def number_of(*, session: Session, attempt: Attempt) -> int:
    """The attempt's number in its workspace (1 for the first)."""
    return int(session.scalar(select(func.count(Attempt.id)).where(*_same_workspace(attempt),
                                                                  Attempt.id <= attempt.id)) or 0)


def numbers_of(*, session: Session, newest_first: Sequence[Attempt]) -> dict[int, int]:
    """attempt id -> number, for one workspace's newest attempts listed newest first (History's list)."""
    if not newest_first:
        return {}
    top = number_of(session=session, attempt=newest_first[0])
    return {a.id: top - i for i, a in enumerate(newest_first)}
