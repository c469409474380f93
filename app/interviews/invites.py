"""The invite's life after creation: email it, send a new link (voiding the old), revoke, extend, remind.

The token itself is never stored, so a new link replaces the hash and the old link stops working at
once. Reminders are claimed with a conditional update before sending, so two web processes never send
the same reminder twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.core.security import new_token, token_digest
from app.core.settings import get_settings
from app.interviews import clock, mail
from app.interviews import state as state_module
from app.interviews.errors import InterviewClosed, InterviewError
from app.interviews.models import Interview
from app.interviews.service import MAX_INVITE_LIFETIME, MAX_TIME_LIMIT_MINUTES
from app.scenarios.models import ScenarioVersion
from app.users.models import User

log = logging.getLogger(__name__)

RESENT_VALIDITY = timedelta(days=7)


@dataclass(frozen=True)
class Delivery:
    """What happened to an invite link: emailed, or to be copied (with why the email failed, if it did)."""

    invite_url: str
    emailed: bool
    error: str | None = None


def _title(session: Session, interview: Interview) -> str:
    version = session.get(ScenarioVersion, interview.scenario_version_id)
    return version.title if version else "a debugging challenge"


def deliver(*, session: Session, interview: Interview, invite_url: str) -> Delivery:
    """Email the invite when SMTP is configured; the link stays shown to copy when it is not (or fails)."""
    if not mail.enabled():
        return Delivery(invite_url=invite_url, emailed=False)
    expires = as_utc(interview.invite_expires_at).strftime("%Y-%m-%d %H:%M UTC")
    body = (
        f"You are invited to a {interview.time_limit_minutes}-minute ML debugging interview: "
        f"{_title(session, interview)}.\n\n"
        f"Open this link to set your password and start (it works once, until {expires}):\n{invite_url}\n\n"
        "The clock starts when you press Start on the page that follows, not when you set your password.\n"
    )
    try:
        mail.send(mail.compose(to=interview.candidate_email, subject="Your interview invitation", body=body))
    except mail.MailError as exc:
        return Delivery(invite_url=invite_url, emailed=False, error=str(exc))
    interview.invite_sent_at = utcnow()
    interview.reminder_sent_at = None
    session.flush()
    return Delivery(invite_url=invite_url, emailed=True)


def _refuse_if_closed(interview: Interview, action: str) -> None:
    current = state_module.interview_state(interview)
    if current in (state_module.State.revoked, state_module.State.submitted):
        raise InterviewClosed(f"This interview is {current.value}; it cannot be {action}.")


def reissue(*, session: Session, interview: Interview) -> str:
    """A new invite link (the old one stops working); returns the token to send or show once."""
    _refuse_if_closed(interview, "sent again")
    if interview.invite_used_at is not None:
        raise InterviewClosed("The candidate already accepted this invite; they sign in with their password.")
    token = new_token()
    interview.invite_token_hash = token_digest(token)
    interview.invite_expires_at = max(as_utc(interview.invite_expires_at), utcnow() + RESENT_VALIDITY)
    interview.reminder_sent_at = None
    session.flush()
    return token


def revoke(*, session: Session, interview: Interview) -> None:
    """Withdraw the interview: the invite and the workspace refuse from now on (flushed)."""
    if interview.revoked_at is not None:
        return
    if state_module.interview_state(interview) == state_module.State.submitted:
        raise InterviewClosed("This interview is already submitted; there is nothing left to revoke.")
    interview.revoked_at = utcnow()
    session.flush()


def extend(*, session: Session, interview: Interview, invite_days: int = 0, extra_minutes: int = 0) -> None:
    """Give the invite more days (before it is used) or the candidate more minutes (flushed)."""
    _refuse_if_closed(interview, "extended")
    if invite_days < 0 or extra_minutes < 0 or not (invite_days or extra_minutes):
        raise InterviewError("Extend by a positive number of days (invite) or minutes (time limit).")
    if invite_days:
        if interview.invite_used_at is not None:
            raise InterviewError("The invite was already accepted; extend the time limit instead.")
        start = max(as_utc(interview.invite_expires_at), utcnow())
        interview.invite_expires_at = min(start + timedelta(days=invite_days), utcnow() + MAX_INVITE_LIFETIME)
        interview.reminder_sent_at = None
    if extra_minutes:
        total = interview.time_limit_minutes + extra_minutes
        if total > MAX_TIME_LIMIT_MINUTES:
            raise InterviewError(f"The time limit can be at most {MAX_TIME_LIMIT_MINUTES} minutes in all.")
        interview.time_limit_minutes = total
    session.flush()


def accepted_interview(*, session: Session, interview_id: int, user: User) -> Interview:
    """The candidate's own accepted interview (404 for anyone else's or one not accepted yet)."""
    interview = session.get(Interview, interview_id)
    if interview is None or interview.candidate_id != user.id or interview.invite_used_at is None:
        raise InterviewError(f"Interview {interview_id} not found.", 404)
    return interview


def waits_in_lobby(interview: Interview, user: User) -> bool:
    """True when this candidate has accepted the interview but not pressed Start yet: the workspace
    sends them to the lobby, where they read the challenge and the time limit first."""
    return (interview.candidate_id == user.id and interview.invite_used_at is not None
            and interview.started_at is None and interview.revoked_at is None and interview.submitted_at is None)


def start_interview(*, session: Session, interview: Interview) -> datetime:
    """The candidate pressed Start (or their API client did): the clock starts now; starting again is a
    no-op that returns the first start. A revoked or ended interview refuses (flushed)."""
    _refuse_if_closed(interview, "started")
    clock.start(interview)
    session.flush()
    return as_utc(interview.started_at)  # type: ignore[arg-type]


def due_for_reminder(*, session: Session, now: datetime) -> list[Interview]:
    """Emailed invites, still unused and open, that expire within INVITE_REMINDER_HOURS and had no reminder."""
    window = timedelta(hours=get_settings().invite_reminder_hours)
    return list(session.scalars(select(Interview).where(
        Interview.invite_used_at.is_(None), Interview.revoked_at.is_(None), Interview.reminder_sent_at.is_(None),
        Interview.invite_sent_at.is_not(None), Interview.invite_expires_at > now,
        Interview.invite_expires_at <= now + window,
    ).order_by(Interview.id).limit(200)))


def send_due_reminders(*, session: Session, now: datetime | None = None) -> int:
    """Send each due reminder once; returns how many were sent. Commits per interview."""
    if not mail.enabled():
        return 0
    now = now or utcnow()
    sent = 0
    for interview in due_for_reminder(session=session, now=now):
        claimed = session.execute(
            update(Interview).where(Interview.id == interview.id, Interview.reminder_sent_at.is_(None))
            .values(reminder_sent_at=now).execution_options(synchronize_session=False))
        session.commit()
        if getattr(claimed, "rowcount", 0) != 1:
            continue  # another process took it
        expires = as_utc(interview.invite_expires_at).strftime("%Y-%m-%d %H:%M UTC")
        body = (f"A reminder: your invitation to the ML debugging interview {_title(session, interview)} "
                f"expires at {expires}.\n\nOpen the link in the invitation email to start. If you cannot find "
                "it, ask your interviewer to send a new one.\n")
        try:
            mail.send(mail.compose(to=interview.candidate_email, subject="Reminder: your interview invitation",
                                   body=body))
            sent += 1
        except mail.MailError:
            # Release the claim so a later sweep tries again.
            session.execute(update(Interview).where(Interview.id == interview.id).values(reminder_sent_at=None))
            session.commit()
    return sent
