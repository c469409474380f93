"""Creating attempts (validated, rate-limited, enqueued after commit) and finding who may read them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptKind, AttemptStatus
from app.attempts.package_info import PublicPackage, public_package
from app.core.db import utcnow
from app.core.settings import get_settings
from app.dispatch import dispatcher
from app.interviews import access as interview_access
from app.interviews.models import Interview
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import Role, User

IN_FLIGHT = (AttemptStatus.queued.value, AttemptStatus.running.value)


class AttemptRejected(Exception):
    """The request cannot become an attempt; `detail` is safe to show and `status_code` is 4xx."""

    def __init__(self, status_code: int, detail: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
        self.headers = headers


def create_attempt(
    *,
    session: Session,
    user: User,
    scenario: str,
    files: dict[str, str],
    kind: str,
    notes: dict[str, str],
    interview_id: int | None = None,
    hints_used: dict[str, Any] | None = None,
) -> Attempt:
    """Validate and store a queued attempt; it is dispatched when the caller commits.

    Call it at the start of a transaction: its first statement takes the write lock, because on
    SQLite a transaction that has already read cannot write once another connection has.
    """
    if kind not in {k.value for k in AttemptKind}:
        raise AttemptRejected(422, f"Unknown kind {kind!r}: use 'run' or 'submit'.")
    _lock_user(session=session, user=user)
    version = _version_for(session=session, user=user, scenario=scenario, interview_id=interview_id)
    package = public_package(version)
    _check_files(files, package)
    _check_notes(notes, package)
    _check_rate(session=session, user=user, kind=kind)

    attempt = Attempt(
        user_id=user.id,
        scenario_version_id=version.id,
        interview_id=interview_id,
        kind=kind,
        status=AttemptStatus.queued.value,
        files={**package.starter_files, **files},
        notes=dict(notes),
        hints_used=dict(hints_used or {}),
    )
    session.add(attempt)
    session.flush()
    dispatcher.enqueue_after_commit(session, attempt.id)
    return attempt


def _version_for(*, session: Session, user: User, scenario: str, interview_id: int | None) -> ScenarioVersion:
    if interview_id is not None:
        interview = session.get(Interview, interview_id)
        if interview is None or interview.candidate_id != user.id:
            raise AttemptRejected(404, f"Interview {interview_id} not found.")
        if interview.invite_used_at is None:
            # The interview starts when the candidate accepts the invite, not when it is created.
            raise AttemptRejected(409, f"Interview {interview_id} has not started: open your invite link first.")
        pinned = session.get(ScenarioVersion, interview.scenario_version_id)
        if pinned is None or scenarios_service.slug_of(session=session, version=pinned) != scenario:
            raise AttemptRejected(422, f"Interview {interview_id} is not about scenario {scenario!r}.")
        return pinned
    version = scenarios_service.get_published(session=session, slug=scenario)
    if version is None:
        raise AttemptRejected(404, f"Unknown scenario {scenario!r}.")
    return version


def _check_files(files: dict[str, str], package: PublicPackage) -> None:
    settings = get_settings()
    if len(files) > settings.max_files_per_attempt:
        raise AttemptRejected(422, f"Too many files: {len(files)} (at most {settings.max_files_per_attempt}).")
    for name, text in files.items():
        if name not in package.editable:
            allowed = ", ".join(package.editable)
            raise AttemptRejected(422, f"Unknown file name {name[:80]!r}: this scenario's files are {allowed}.")
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError:
            raise AttemptRejected(422, f"File {name!r} is not valid UTF-8 text.") from None
        if size > settings.max_file_bytes:
            raise AttemptRejected(
                413, f"File {name!r} is {size} bytes; the limit is {settings.max_file_bytes} bytes."
            )


def _check_notes(notes: dict[str, str], package: PublicPackage) -> None:
    limit = get_settings().max_form_field_chars
    for question_id, text in notes.items():
        if question_id not in package.question_ids:
            raise AttemptRejected(422, f"Unknown question {question_id[:80]!r} in notes.")
        if len(text) > limit:
            raise AttemptRejected(422, f"The note for {question_id!r} is longer than {limit} characters.")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise AttemptRejected(422, f"The note for {question_id!r} is not valid UTF-8 text.") from None


def _lock_user(*, session: Session, user: User) -> None:
    # A no-op write takes the user's row lock (PostgreSQL) or the write lock (SQLite) first, so two
    # concurrent requests from one user cannot both pass the limits below.
    session.execute(update(User).where(User.id == user.id).values(display_name=User.display_name))


def _check_rate(*, session: Session, user: User, kind: str) -> None:
    settings = get_settings()
    if kind == AttemptKind.submit.value:
        busy = session.scalar(
            select(Attempt.id).where(
                Attempt.user_id == user.id, Attempt.kind == kind, Attempt.status.in_(IN_FLIGHT)
            ).limit(1)
        )
        if busy is not None:
            raise AttemptRejected(
                429,
                f"Your submission {busy} is still being graded; wait for its result before submitting again.",
                {"Retry-After": "10"},
            )
    recent = session.scalar(
        select(func.count(Attempt.id)).where(
            Attempt.user_id == user.id, Attempt.created_at > utcnow() - timedelta(seconds=60)
        )
    )
    if (recent or 0) >= settings.attempts_per_user_per_minute:
        raise AttemptRejected(
            429,
            f"Too many attempts: at most {settings.attempts_per_user_per_minute} per minute. Try again shortly.",
            {"Retry-After": "60"},
        )


def visible_attempt(*, session: Session, attempt_id: int, user: User) -> Attempt | None:
    """The attempt if this user may read it: their own, their interviews' (interviewer), any (admin)."""
    attempt = session.get(Attempt, attempt_id)
    if attempt is None:
        return None
    if user.role == Role.admin.value or attempt.user_id == user.id:
        return attempt
    if user.role == Role.interviewer.value and attempt.interview_id is not None:
        interview = session.get(Interview, attempt.interview_id)
        if interview is not None and interview_access.can_view(session=session, user=user, interview=interview):
            return attempt
    return None


def list_own_attempts(*, session: Session, user: User, limit: int = 50) -> list[Attempt]:
    """The user's newest attempts."""
    return list(
        session.scalars(
            select(Attempt).where(Attempt.user_id == user.id).order_by(Attempt.id.desc()).limit(limit)
        ).all()
    )
