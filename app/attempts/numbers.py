"""Attempt numbers as people read them: 1, 2, 3 … within one workspace (a challenge's practice, or one
interview), in time order over every kind, never the database id that counts every user's attempts.

A Run, a Submit and a scratch run share one count, so "Run 3" on the candidate's History is "Run 3" on the
interviewer's review, timeline, playback and live page too."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt

KIND_TITLES = {"run": "Run", "submit": "Submit", "scratch": "Scratch run"}


def _same_workspace(*, user_id: int, version_id: int, interview_id: int | None) -> list[ColumnElement[bool]]:
    scope = Attempt.interview_id.is_(None) if interview_id is None else Attempt.interview_id == interview_id
    return [Attempt.user_id == user_id, Attempt.scenario_version_id == version_id, scope]


def number_at(*, session: Session, user_id: int, version_id: int, interview_id: int | None, attempt_id: int) -> int:
    """The number of attempt `attempt_id` in the workspace named by the rest (for callers holding only ids)."""
    return int(session.scalar(select(func.count(Attempt.id)).where(
        *_same_workspace(user_id=user_id, version_id=version_id, interview_id=interview_id),
        Attempt.id <= attempt_id)) or 0)


def number_of(*, session: Session, attempt: Attempt) -> int:
    """The attempt's number in its workspace (1 for the first)."""
    return number_at(session=session, user_id=attempt.user_id, version_id=attempt.scenario_version_id,
                     interview_id=attempt.interview_id, attempt_id=attempt.id)


def numbers_of(*, session: Session, newest_first: Sequence[Attempt]) -> dict[int, int]:
    """attempt id -> number, for one workspace's newest attempts listed newest first (History's list)."""
    if not newest_first:
        return {}
    top = number_of(session=session, attempt=newest_first[0])
    return {a.id: top - i for i, a in enumerate(newest_first)}


def numbers_in_full(attempts: Iterable[Attempt]) -> dict[int, int]:
    """attempt id -> number, counted in memory, for lists that hold every attempt of each workspace they
    touch (an interview's attempts, a candidate's whole practice on a challenge): no query needed, and the
    same numbers number_of gives."""
    counts: dict[tuple[int, int, int | None], int] = {}
    out: dict[int, int] = {}
    for attempt in sorted(attempts, key=lambda a: a.id):
        key = (attempt.user_id, attempt.scenario_version_id, attempt.interview_id)
        counts[key] = out[attempt.id] = counts.get(key, 0) + 1
    return out


def attempt_name(kind: str, number: int) -> str:
    """ "Run 3", "Submit 4", "Scratch run 5": how every page names an attempt."""
    return f"{KIND_TITLES.get(kind, kind.capitalize())} {number}"
