"""Counting a scenario job's finished tasks and closing each phase, by exactly one worker.

The worker that finishes the last task of a phase wins a conditional UPDATE and hands the phase to
its kind: validation (app/scenarios/validation.py) or rejudge (app/scenarios/rejudge.py). Apart from
app/scenarios/jobs.py, which both of those use to create jobs and add tasks.
"""

from __future__ import annotations

import logging

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.dispatch.claiming import changed_rows
from app.scenarios import rejudge, validation
from app.scenarios.job_models import JobTask, ScenarioJob

log = logging.getLogger(__name__)


def task_finished(*, session: Session, job_id: int, label: str) -> list[int]:
    """Count a finished task (in the finishing worker's transaction); close the phase when it was the last.

    Returns the attempts whose coaching the caller rewrites once this transaction is committed (those
    whose verdict a rejudge that just finished changed).
    """
    session.execute(update(ScenarioJob).where(ScenarioJob.id == job_id).values(
        done=ScenarioJob.done + 1, current=label[:200]).execution_options(synchronize_session=False))
    return close_if_complete(session=session, job_id=job_id)


def close_if_complete(*, session: Session, job_id: int) -> list[int]:
    """When no task of the job's phase is open, let one caller (the UPDATE decides) close the phase.

    Returns what task_finished does.
    """
    job = session.get(ScenarioJob, job_id)
    if job is None:
        return []
    session.refresh(job)
    still_open = session.scalar(select(func.count(JobTask.id)).where(
        JobTask.job_id == job_id, JobTask.phase == job.phase, JobTask.status != "done"))
    if still_open:
        return []
    won = changed_rows(session, update(ScenarioJob).where(
        ScenarioJob.id == job_id, ScenarioJob.phase == job.phase, ScenarioJob.status.in_(("queued", "running"))
    ).values(status="closing"))
    if won != 1:
        return []
    session.refresh(job)
    closer = validation.close_phase if job.kind == "validate" else rejudge.close_phase
    try:
        closer(session=session, job=job)
    except Exception as exc:  # a broken package or result must end the job visibly, not leave it closing
        log.exception("scenario job %s: closing phase %s failed", job_id, job.phase)
        job.status, job.error = "failed", f"{exc.__class__.__name__}: {exc}"[:2000]
        job.finished_at = utcnow()
    return rejudge.attempts_to_recoach(job)
