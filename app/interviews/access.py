"""Who may see and change an interview: its owner, the interviewers it is shared with, and admins.

Owners and admins manage it (invite, revoke, extend, share); shared reviewers read and review it.
Anyone else, candidates included, is told it does not exist (404), so ids reveal nothing.
"""

from __future__ import annotations

from sqlalchemy import Select, exists, or_, select
from sqlalchemy.orm import Session

from app.interviews.errors import InterviewError, InterviewNotFound
from app.interviews.models import Interview, InterviewReviewer
from app.users import service as users_service
from app.users.models import Role, User

STAFF = (Role.interviewer.value, Role.admin.value)
LIST_LIMIT = 500


def _shared_with(user_id: int) -> object:
    return exists().where(InterviewReviewer.interview_id == Interview.id, InterviewReviewer.user_id == user_id)


def visible_query(user: User) -> Select[Interview]:
    """Interviews this user may read, newest first (nothing at all for candidates)."""
    query = select(Interview).order_by(Interview.created_at.desc(), Interview.id.desc())
    if user.role == Role.admin.value:
        return query
    if user.role != Role.interviewer.value:
        return query.where(Interview.id.is_(None))
    return query.where(or_(Interview.interviewer_id == user.id, _shared_with(user.id)))  # type: ignore[arg-type]


def interviews_for(*, session: Session, interviewer: User, limit: int = LIST_LIMIT) -> list[Interview]:
    """The interviews this user may read, newest first (admins see everyone's)."""
    return list(session.scalars(visible_query(interviewer).limit(limit)))


def can_view(*, session: Session, user: User, interview: Interview) -> bool:
    if can_manage(user, interview):
        return True
    if user.role != Role.interviewer.value:
        return False
    return session.get(InterviewReviewer, (interview.id, user.id)) is not None


def can_manage(user: User, interview: Interview) -> bool:
    """Owners and admins invite, revoke, extend and share; shared reviewers only read and review."""
    owner = user.role == Role.interviewer.value and interview.interviewer_id == user.id
    return owner or user.role == Role.admin.value


def visible_interview(*, session: Session, user: User, interview_id: int) -> Interview:
    """The interview if this user may read it; InterviewNotFound otherwise."""
    interview = session.get(Interview, interview_id)
    if interview is None or not can_view(session=session, user=user, interview=interview):
        raise InterviewNotFound(f"Interview {interview_id} not found.")
    return interview


def managed_interview(*, session: Session, user: User, interview_id: int) -> Interview:
    """The interview if this user may manage it; 404 if they cannot see it, 403 if they only review it."""
    interview = visible_interview(session=session, user=user, interview_id=interview_id)
    if not can_manage(user, interview):
        raise InterviewError("Only the interviewer who created this interview (or an admin) can change it.", 403)
    return interview


def reviewers_of(*, session: Session, interview: Interview) -> list[User]:
    """The interviewers the interview is shared with, by email."""
    return list(session.scalars(
        select(User).join(InterviewReviewer, InterviewReviewer.user_id == User.id)
        .where(InterviewReviewer.interview_id == interview.id).order_by(User.email)
    ))


def share(*, session: Session, interview: Interview, email: str) -> User:
    """Share with another interviewer or admin by email (flushed); sharing twice is harmless."""
    user = users_service.get_by_email(session=session, email=users_service.normalise_email(email))
    if user is None or not user.is_active or user.role not in STAFF:
        raise InterviewError("Share with the email of an active interviewer or admin account.")
    if user.id == interview.interviewer_id:
        raise InterviewError("That interviewer already owns this interview.")
    if session.get(InterviewReviewer, (interview.id, user.id)) is None:
        session.add(InterviewReviewer(interview_id=interview.id, user_id=user.id))
        session.flush()
    return user


def unshare(*, session: Session, interview: Interview, user_id: int) -> None:
    row = session.get(InterviewReviewer, (interview.id, user_id))
    if row is not None:
        session.delete(row)
        session.flush()
