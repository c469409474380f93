"""An interview's clock: it starts on the candidate's first visit and ends after the time limit.

A run or submit within DEADLINE_GRACE after the deadline is still taken (a click in the last
second); after that, runs, submits and edits are refused and the last draft is what stays.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from app.auth.tokens import as_utc
from app.core.db import utcnow
from app.core.errors import DojoError
from app.interviews.models import Interview

DEADLINE_GRACE = timedelta(seconds=30)


class TimeIsUp(DojoError):
    """The interview's time ran out; the message says what is kept."""

    status_code = 409


def deadline(interview: Interview) -> datetime | None:
    """When the interview's time runs out, or None before the candidate started."""
    if interview.started_at is None:
        return None
    return as_utc(interview.started_at) + timedelta(minutes=interview.time_limit_minutes)


def start(interview: Interview) -> None:
    """Start the clock on the candidate's first visit or first attempt (no-op afterwards)."""
    if interview.started_at is None:
        interview.started_at = utcnow()


def refuse_after_deadline(interview: Interview, now: datetime | None = None) -> None:
    """Raise TimeIsUp once the deadline and its grace have passed."""
    ends = deadline(interview)
    if ends is not None and (now or utcnow()) > ends + DEADLINE_GRACE:
        raise TimeIsUp(f"Time is up: this interview ended at {ends.strftime('%H:%M UTC')}. Your last saved "
                       "draft and your attempts are kept for the interviewer; nothing more can be run or submitted.")
