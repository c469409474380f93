"""Creating attempts (validated, rate-limited, enqueued after commit) and finding who may read them."""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.attempts import job_kinds, numbers
from app.attempts.models import Attempt, AttemptKind, AttemptStatus
from app.attempts.package_info import PublicPackage, public_package
from app.core.db import as_utc, utcnow
from app.core.errors import DojoError
from app.core.settings import get_settings
from app.engine.scratch import FILE_NAME as SCRATCH_FILE
from app.interviews import access as interview_access
from app.interviews import clock
from app.interviews.models import Interview
from app.scenarios import service as scenarios_service
from app.scenarios.models import ScenarioVersion
from app.users.models import Role, User
from app.workspace import hints
from app.workspace.models import scope_for

IN_FLIGHT = (AttemptStatus.queued.value, AttemptStatus.running.value)


class AttemptRejected(DojoError):
    """The request cannot become an attempt; the message is safe to show and `status_code` is 4xx."""

    def __init__(self, status_code: int, detail: str, headers: dict[str, str] | None = None,
                 link: tuple[str, str] | None = None) -> None:
        super().__init__(detail, status_code, headers)
        self.detail = detail
        self.link = link  # (text, path) of a page the refusal points to, which pages show as a link


def create_attempt(
    *,
    session: Session,
    user: User,
    scenario: str,
    files: dict[str, str],
    kind: str,
    notes: dict[str, str],
    interview_id: int | None = None,
    hints_used: dict[str, int] | None = None,  # bug id -> highest hint level taken
) -> Attempt:
    """Validate and store a queued attempt; it is dispatched when the caller commits.

    Call it at the start of a transaction: its first statement takes the write lock, because on
    SQLite a transaction that has already read cannot write once another connection has.
    """
    if kind not in {k.value for k in AttemptKind}:
        raise AttemptRejected(422, f"Unknown kind {kind[:20]!r}: use 'run', 'submit' or 'scratch'.")
    _lock_user(session=session, user=user)
    version = _version_for(session=session, user=user, scenario=scenario, interview_id=interview_id)
    package = public_package(version)
    _check_files(files, package, kind=kind)
    _check_notes(notes, package)
    _check_rate(session=session, user=user, kind=kind)
    taken = hints.levels_used(session=session, user_id=user.id, version_id=version.id, scope=scope_for(interview_id))

    attempt = Attempt(
        user_id=user.id,
        scenario_version_id=version.id,
        interview_id=interview_id,
        kind=kind,
        status=AttemptStatus.queued.value,
        files={**package.starter_files, **files},
        notes=dict(notes),
        hints_used={**taken, **(hints_used or {})},
    )
    session.add(attempt)
    session.flush()
    job_kinds.dispatch_after_commit(session, attempt.id)
    return attempt


def _version_for(*, session: Session, user: User, scenario: str, interview_id: int | None) -> ScenarioVersion:
    if interview_id is not None:
        interview = session.get(Interview, interview_id)
        if interview is None or interview.candidate_id != user.id:
            raise AttemptRejected(404, f"Interview {interview_id} not found.")
        if interview.invite_used_at is None:
            # The interview starts when the candidate accepts the invite, not when it is created.
            raise AttemptRejected(409, f"Interview {interview_id} has not started: open your invite link first.")
        clock.refuse_after_deadline(interview)
        clock.start(interview)
        pinned = session.get(ScenarioVersion, interview.scenario_version_id)
        if pinned is None or scenarios_service.slug_of(session=session, version=pinned) != scenario:
            raise AttemptRejected(422, f"Interview {interview_id} is not about scenario {scenario!r}.")
        return pinned
    version = scenarios_service.get_published(session=session, slug=scenario)
    if version is None:
        raise AttemptRejected(404, f"Unknown scenario {scenario!r}.")
    return version


def _check_files(files: dict[str, str], package: PublicPackage, *, kind: str) -> None:
    settings = get_settings()
    if len(files) > settings.max_files_per_attempt:
        raise AttemptRejected(422, f"Too many files: {len(files)} (at most {settings.max_files_per_attempt}).")
    # scratch.py is the scratch console's script: it belongs to scratch runs only.
    editable = (*package.editable, SCRATCH_FILE) if kind == AttemptKind.scratch.value else package.editable
    for name, text in files.items():
        if name not in editable:
            allowed = ", ".join(editable)
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


KIND_NAMES = {"run": "run", "submit": "submission", "scratch": "scratch run"}


def _check_rate(*, session: Session, user: User, kind: str) -> None:
    """One attempt of each kind in flight per user, and at most N attempts a minute."""
    settings = get_settings()
    busy = session.scalar(
        select(Attempt).where(Attempt.user_id == user.id, Attempt.kind == kind, Attempt.status.in_(IN_FLIGHT))
        .limit(1)
    )
    if busy is not None:
        # The grading in progress may be on another challenge: name it, number it as its History does,
        # and point at its page.
        what = KIND_NAMES.get(kind, kind)
        version = session.get(ScenarioVersion, busy.scenario_version_id)
        title = version.title if version is not None else "another challenge"
        path = (f"/interviews/{busy.interview_id}/workspace" if busy.interview_id is not None
                else f"/challenges/{scenarios_service.slug_of(session=session, version=version)}" if version
                else "/candidate")
        number = numbers.number_of(session=session, attempt=busy)
        raise AttemptRejected(
            429,
            f"Your {what} on {title} (attempt {number} there) is still being graded; wait for its result before "
            f"starting another {what}. It is at {path}",
            {"Retry-After": "10"}, link=(f"Open {title}", path),
        )
    window = timedelta(seconds=60)
    recent = session.scalars(
        select(Attempt.created_at).where(Attempt.user_id == user.id, Attempt.created_at > utcnow() - window)
        .order_by(Attempt.created_at)
    ).all()
    if len(recent) >= settings.attempts_per_user_per_minute:
        oldest = recent[-settings.attempts_per_user_per_minute]
        wait = max(1, math.ceil((as_utc(oldest) + window - utcnow()).total_seconds()))
        raise AttemptRejected(
            429,
            f"Too many attempts: at most {settings.attempts_per_user_per_minute} a minute. "
            f"You can run again in {wait} s.",
            {"Retry-After": str(wait)},
        )


def cancel_own_attempt(*, session: Session, attempt_id: int, user: User) -> None:
    """Cancel the user's own queued attempt; 404 for others' attempts, 409 once grading started."""
    from app.attempts import claims

    attempt = session.get(Attempt, attempt_id)
    if attempt is None or attempt.user_id != user.id:
        raise AttemptRejected(404, f"Attempt {attempt_id} not found.")
    if not claims.cancel(session=session, attempt_id=attempt_id):
        raise AttemptRejected(409, f"Attempt {attempt_id} is already {attempt.status}: only a queued attempt "
                                   "can be cancelled.")


# Built once: the workspace polls an attempt every 400 ms while it is graded, and session.get builds
# its statement on each call.
_ATTEMPT_BY_ID = select(Attempt).where(Attempt.id == bindparam("attempt_id"))


def visible_attempt(*, session: Session, attempt_id: int, user: User) -> Attempt | None:
    """The attempt if this user may read it: their own, their interviews' (interviewer), any (admin)."""
    attempt = session.execute(_ATTEMPT_BY_ID, {"attempt_id": attempt_id}).scalar_one_or_none()
    if attempt is None or not may_read(session=session, user=user, owner_id=attempt.user_id,
                                       interview_id=attempt.interview_id):
        return None
    return attempt


def may_read(*, session: Session, user: User, owner_id: int, interview_id: int | None) -> bool:
    """Who may read an attempt: its owner, any admin, an interviewer who may view its interview."""
    if user.role == Role.admin.value or owner_id == user.id:
        return True
    if user.role == Role.interviewer.value and interview_id is not None:
        interview = session.get(Interview, interview_id)
        return interview is not None and interview_access.can_view(session=session, user=user, interview=interview)
    return False


def list_own_attempts(*, session: Session, user: User, limit: int = 50) -> list[Attempt]:
    """The user's newest attempts."""
    return list(
        session.scalars(
            select(Attempt).where(Attempt.user_id == user.id).order_by(Attempt.id.desc()).limit(limit)
        ).all()
    )
