"""Where an interview stands (invited, started, submitted, expired, revoked) and how much time it used.

The workspace starts the clock (started_at) on the candidate's first visit; the candidate ends it with
"End interview" (finish_interview), or the time limit does. A revoked interview stays revoked whatever
else happened, so the interviewer's decision to stop it is what the page shows.
"""

from __future__ import annotations

import enum
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.interviews.errors import InterviewClosed
from app.interviews.models import Interview


class State(enum.StrEnum):
    invited = "invited"
    started = "started"
    submitted = "submitted"
    expired = "expired"
    revoked = "revoked"


def deadline(interview: Interview) -> datetime | None:
    """When the candidate's time runs out, or None before they started."""
    if interview.started_at is None:
        return None
    return as_utc(interview.started_at) + timedelta(minutes=interview.time_limit_minutes)


def interview_state(interview: Interview, now: datetime | None = None) -> State:
    """The state the pages, the API and the export show."""
    now = now or utcnow()
    if interview.revoked_at is not None:
        return State.revoked
    if interview.submitted_at is not None:
        return State.submitted
    ends = deadline(interview)
    if ends is not None:
        # Time is up: what the candidate left is their submission.
        return State.submitted if now >= ends else State.started
    if interview.invite_used_at is None and as_utc(interview.invite_expires_at) <= now:
        return State.expired
    return State.invited


def ended_at(interview: Interview) -> datetime | None:
    """When the candidate's work ended: their "End interview", the deadline, or the revocation."""
    ends = deadline(interview)
    moments = [as_utc(m) for m in (interview.submitted_at, interview.revoked_at) if m is not None]
    if ends is not None:
        moments.append(ends)
    return min(moments) if moments else None


def time_used(interview: Interview, now: datetime | None = None) -> timedelta | None:
    """Time from the start to the end (or to now while it runs), at most the limit; None before the start."""
    if interview.started_at is None:
        return None
    start = as_utc(interview.started_at)
    end = ended_at(interview)
    until = min(end, now or utcnow()) if end is not None else (now or utcnow())
    limit = timedelta(minutes=interview.time_limit_minutes)
    return max(timedelta(0), min(until - start, limit))


def finish_interview(session: Session, interview: Interview) -> Interview:
    """End the interview now ("End interview" in the workspace); a second call changes nothing.

    Raises InterviewClosed for a revoked interview. Flushed, not committed.
    """
    if interview.revoked_at is not None:
        raise InterviewClosed("This interview was revoked by the interviewer.")
    if interview.submitted_at is None:
        now = utcnow()
        ends = deadline(interview)
        interview.submitted_at = min(now, ends) if ends is not None else now
        if interview.started_at is None:
            interview.started_at = interview.submitted_at
        session.flush()
    return interview
