"""Creating interviews and redeeming their invite links.

The invite token is returned once and only its SHA-256 is stored. Redeeming creates or completes
the candidate's account and marks the invite used in one transaction: the caller commits on
success and rolls back on any InviteError, so a refused invite leaves nothing half-written.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.core.security import hash_password, new_token, token_digest
from app.interviews.errors import InterviewError, InviteError
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.users import service as users_service
from app.users.models import Role, User

MAX_TIME_LIMIT_MINUTES = 8 * 60
MAX_INVITE_LIFETIME = timedelta(days=30)

__all__ = ["InterviewError", "InviteError"]


def create_interview(
    *, session: Session, interviewer: User, candidate_email: str, scenario_version: ScenarioVersion,
    time_limit_minutes: int, expires_in: timedelta,
) -> tuple[Interview, str]:
    """Add an interview (flushed, not committed); returns it and the invite token to show once."""
    email = users_service.normalise_email(candidate_email)
    if not users_service.EMAIL_RE.match(email) or len(email) > 254:
        raise InterviewError("Enter a valid candidate email address.")
    if scenario_version.status != "published":
        raise InterviewError("Choose a published challenge.")
    if not 5 <= time_limit_minutes <= MAX_TIME_LIMIT_MINUTES:
        raise InterviewError(f"The time limit must be between 5 and {MAX_TIME_LIMIT_MINUTES} minutes.")
    if not timedelta(minutes=10) <= expires_in <= MAX_INVITE_LIFETIME:
        raise InterviewError("The invite must stay valid between 10 minutes and 30 days.")
    candidate = users_service.get_by_email(session=session, email=email)
    token = new_token()
    interview = Interview(
        interviewer_id=interviewer.id,
        candidate_id=candidate.id if candidate else None,
        candidate_email=email,
        scenario_version_id=scenario_version.id,
        time_limit_minutes=time_limit_minutes,
        invite_token_hash=token_digest(token),
        invite_expires_at=utcnow() + expires_in,
    )
    session.add(interview)
    session.flush()
    return interview, token


def find_invite(*, session: Session, token: str) -> Interview:
    """The interview behind a usable invite; InviteError when unknown, used or expired."""
    interview = session.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    if interview is None:
        raise InviteError("This invite link is not valid. Check that you copied the whole link.", 404)
    _refuse_unusable(interview)
    return interview


def _refuse_unusable(interview: Interview) -> None:
    """InviteError (410) when the invite was withdrawn, already used or has expired."""
    if interview.revoked_at is not None:
        raise InviteError("This interview was withdrawn by the interviewer.", 410)
    if interview.invite_used_at is not None:
        raise InviteError("This invite link has already been used. Sign in with the account you created.", 410)
    if as_utc(interview.invite_expires_at) <= utcnow():
        raise InviteError("This invite link has expired. Ask your interviewer for a new one.", 410)


def own_pending_invite(*, session: Session, interview_id: int, user: User) -> Interview:
    """The signed-in candidate's interview whose invite is still open to accept.

    The interview names the account when its email already had one, so that account may accept it
    without the link. Someone else's interview is 404 (ids reveal nothing); a withdrawn, used or
    expired invite is 410, as for the link.
    """
    interview = session.get(Interview, interview_id)
    if interview is None or interview.candidate_id != user.id or interview.candidate_email != user.email:
        raise InviteError(f"Interview {interview_id} not found.", 404)
    _refuse_unusable(interview)
    return interview


def accept_own_invite(*, session: Session, interview: Interview) -> None:
    """Mark the candidate's pending invite used (flushed, not committed); the clock starts on the first visit."""
    _claim(session=session, interview=interview)


def find_redeemed(*, session: Session, token: str) -> Interview:
    """The interview behind a token, used or not (after redeeming it in this transaction)."""
    interview = session.scalar(select(Interview).where(Interview.invite_token_hash == token_digest(token)))
    if interview is None:
        raise InviteError("This invite link is not valid. Check that you copied the whole link.", 404)
    return interview


def invite_needs_sign_in(*, session: Session, interview: Interview) -> bool:
    """True when the invited email already has an account with a password (sign in to accept)."""
    existing = users_service.get_by_email(session=session, email=interview.candidate_email)
    return existing is not None and existing.password_hash is not None


def redeem_invite(*, session: Session, token: str, password: str | None, signed_in: User | None) -> User:
    """Accept an invite: set up the account (or use the signed-in one) and mark the invite used."""
    interview = find_invite(session=session, token=token)
    existing = users_service.get_by_email(session=session, email=interview.candidate_email)
    if signed_in is not None:
        if signed_in.email != interview.candidate_email:
            raise InviteError(f"This invite is for {interview.candidate_email}. Sign out and open the link again.", 403)
    elif existing is not None and existing.password_hash is not None:
        raise InviteError("An account with this email already exists. Sign in, then open the invite link again.", 409)
    elif existing is not None and not existing.is_active:
        raise InviteError("This account has been deactivated. Ask an administrator to reactivate it.", 403)
    else:
        try:
            users_service.validate_password(password or "", email=interview.candidate_email)
        except users_service.UserError as exc:
            raise InviteError(str(exc), 422) from exc
    _claim(session=session, interview=interview)
    if signed_in is not None:
        user = signed_in
    elif existing is not None:
        existing.password_hash = hash_password(password or "")
        user = existing
    else:
        user = users_service.create_user(
            session=session, email=interview.candidate_email, password=password, role=Role.candidate.value
        )
    interview.candidate_id = user.id
    session.flush()
    return user


def _claim(*, session: Session, interview: Interview) -> None:
    """Mark the invite used before touching any account.

    The conditional update lets only one of two simultaneous redemptions change the row (PostgreSQL
    blocks the second on the row lock, SQLite on the write lock; it then sees the invite used), so
    the loser never reaches account creation.
    """
    claimed = session.execute(
        update(Interview)
        .where(Interview.id == interview.id, Interview.invite_used_at.is_(None))
        .values(invite_used_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if getattr(claimed, "rowcount", 0) != 1:
        raise InviteError("This invite link has already been used. Sign in with the account you created.", 410)
    session.refresh(interview)
