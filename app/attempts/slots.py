"""One grading slot per user: an attempt's place in line, and the user's next attempt once one is done.

Gradings of one user run one at a time, on the local pool and on Celery workers alike: the local pool
does not start a second job of a user whose job runs (app.dispatch.local_pool.WorkQueue), and the
claim refuses an attempt whose user has another one being graded under a live heartbeat, whatever
process asks (app.attempts.claims.claim). A refused attempt stays queued; when the user's grading
ends, release_next dispatches the user's oldest queued attempt, so nothing waits for a sweep.

Gradings of an interview on the clock go before practice gradings (Priority.ON_THE_CLOCK).
"""

from __future__ import annotations

import logging

from sqlalchemy import select

from app.attempts import claims
from app.attempts.models import Attempt
from app.core.db import new_session
from app.dispatch.registry import Placement, Priority
from app.interviews import clock
from app.interviews.models import Interview

log = logging.getLogger(__name__)


def owner_key(user_id: int) -> str:
    """The owner a user's gradings share in the dispatch queues."""
    return f"user:{user_id}"


def place(attempt_id: int) -> Placement:
    """The attempt's place in line: its user's slot, first when its interview's clock runs."""
    with new_session() as session:
        row = session.execute(select(Attempt.user_id, Attempt.interview_id).where(Attempt.id == attempt_id)).first()
        if row is None:
            return Placement(Priority.FIRST)
        user_id, interview_id = row
        interview = session.get(Interview, interview_id) if interview_id is not None else None
        on_the_clock = interview is not None and on_clock(interview)
        session.rollback()
    return Placement(Priority.ON_THE_CLOCK if on_the_clock else Priority.FIRST, owner=owner_key(user_id))


def on_clock(interview: Interview) -> bool:
    """True while the candidate's time runs: started, not ended, not revoked, the deadline (and its
    grace for a last-second submit) not passed."""
    if interview.started_at is None:
        return False
    try:
        clock.refuse_after_deadline(interview)
    except clock.TimeIsUp:
        return False
    return True


def release_next(user_id: int) -> int | None:
    """Dispatch the user's oldest queued attempt (one whose claim may have been refused while the
    user's last grading ran); its id, or None. A failure is logged: the sweepers still find it."""
    from app.attempts.job_kinds import dispatch

    try:
        with new_session() as session:
            attempt_id = claims.next_queued_of_user(session=session, user_id=user_id)
            session.rollback()
        if attempt_id is not None:
            dispatch(attempt_id)
        return attempt_id
    except Exception:
        log.exception("user %s: could not dispatch their next queued attempt", user_id)
        return None
