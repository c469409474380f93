"""The attempt domain's job kind, by name: grading an attempt (a run, a submit or a scratch experiment).

Its handlers are registered with the dispatch plumbing in app/attempts/job_registration.py; this
module only names the jobs, so that whoever queues or recovers a grading need not import the grader.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.logs import current_request_id
from app.dispatch import dispatcher
from app.dispatch.registry import Job

GRADING = "attempt"
GRADE_TASK_NAME = "dojo.grade_attempt"  # the Celery task; its message carries the attempt id


def grade_job(attempt_id: int) -> Job:
    return Job(GRADING, attempt_id)


def dispatch_after_commit(session: Session, attempt_id: int) -> None:
    """Dispatch the attempt once the session's transaction commits; a rollback drops it.

    The dispatch record is written in the same transaction, with the request id, so a send that
    fails later (or never happens, the process dying) is found and retried by the sweeper.
    """
    from app.attempts.dispatch_models import AttemptDispatch
    from app.core.db import utcnow

    # Counted as sent now: a send that fails marks it unsent at once, one that never happens (the
    # process died) makes it due after REDISPATCH_AFTER_SECONDS.
    session.add(AttemptDispatch(attempt_id=attempt_id, sent_at=utcnow(), sends=1, request_id=current_request_id()))
    dispatcher.enqueue_after_commit(session, grade_job(attempt_id))


def dispatch(attempt_id: int) -> None:
    """Hand a committed attempt to the dispatcher (app.dispatch.dispatcher.enqueue)."""
    dispatcher.enqueue(grade_job(attempt_id))
