"""Enforcing an interview's clock on the candidate's work (the deadline itself is state.deadline).

The clock starts on the candidate's first visit (or first attempt). A run or submit within
DEADLINE_GRACE after the deadline is still taken (a click in the last second); after that, and once
the candidate ended the interview or the interviewer revoked it, runs, submits and edits are refused
and the last draft is what stays.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from app.core.db import as_utc, utcnow
from app.interviews.errors import InterviewClosed
from app.interviews.models import Interview
from app.interviews.state import deadline

DEADLINE_GRACE = timedelta(seconds=30)
KEPT = "Your last saved draft and your attempts are kept for the interviewer; nothing more can be run or submitted."

__all__ = ["DEADLINE_GRACE", "TimeIsUp", "deadline", "refuse_after_deadline", "start"]


class TimeIsUp(InterviewClosed):
    """The interview is over for the candidate; the message says why and what is kept."""


def start(interview: Interview) -> None:
    """Start the clock on the candidate's first visit or first attempt (no-op afterwards)."""
    if interview.started_at is None:
        interview.started_at = utcnow()


def refuse_after_deadline(interview: Interview, now: datetime | None = None) -> None:
    """Raise TimeIsUp when the interview was revoked, ended by the candidate, or ran out of time."""
    if interview.revoked_at is not None:
        raise TimeIsUp(f"This interview was revoked by the interviewer. {KEPT}")
    if interview.submitted_at is not None:
        raise TimeIsUp(f"You ended this interview at {as_utc(interview.submitted_at).strftime('%H:%M UTC')}. {KEPT}")
    ends = deadline(interview)
    if ends is not None and (now or utcnow()) > ends + DEADLINE_GRACE:
        raise TimeIsUp(f"Time is up: this interview ended at {ends.strftime('%H:%M UTC')}. {KEPT}")
