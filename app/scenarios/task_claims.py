"""Atomic state changes on JobTask rows (validation and rejudge runs), like app/attempts/claims.py.

Each change is one conditional UPDATE, so two workers racing for a task can never both run it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.dispatch.claiming import changed_rows
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.task_outcomes import TaskFailed, TaskOutcome, to_json

QUEUED, RUNNING, DONE = "queued", "running", "done"
CRASH_MESSAGE = "the worker running this task stopped {tries} times"


@dataclass(frozen=True)
class TaskClaim:
    """A successful claim: the task is ours while our token is in worker_id."""

    task_id: int
    token: str
    tries: int


def _stale(stale_after_seconds: float) -> Any:
    return utcnow() - timedelta(seconds=stale_after_seconds)


def claim(*, session: Session, task_id: int, token: str, stale_after_seconds: float) -> TaskClaim | None:
    """Take the task, or None when it is done or held by a live worker."""
    now = utcnow()
    claimable = or_(JobTask.status == QUEUED,
                    and_(JobTask.status == RUNNING, JobTask.heartbeat_at < _stale(stale_after_seconds)))
    taken = changed_rows(session, update(JobTask).where(JobTask.id == task_id, claimable).values(
        status=RUNNING, worker_id=token, heartbeat_at=now, tries=JobTask.tries + 1))
    session.commit()
    if not taken:
        return None
    tries = session.scalar(select(JobTask.tries).where(JobTask.id == task_id)) or 0
    return TaskClaim(task_id=task_id, token=token, tries=tries)


def beat(*, session: Session, claim: TaskClaim) -> bool:
    """Refresh the heartbeat; False when another worker took the task over."""
    done = changed_rows(session, update(JobTask).where(
        JobTask.id == claim.task_id, JobTask.worker_id == claim.token, JobTask.status == RUNNING
    ).values(heartbeat_at=utcnow()))
    session.commit()
    return bool(done)


def finish(*, session: Session, claim: TaskClaim, outcome: TaskOutcome) -> bool:
    """Store the outcome if we still hold the claim (not committed: the caller advances the job first)."""
    return bool(changed_rows(session, update(JobTask).where(
        JobTask.id == claim.task_id, JobTask.worker_id == claim.token, JobTask.status == RUNNING
    ).values(status=DONE, outcome=to_json(outcome), finished_at=utcnow(), heartbeat_at=utcnow())))


def requeue_stale(*, session: Session, stale_after_seconds: float, max_tries: int) -> tuple[list[int], list[int]]:
    """Running tasks whose worker stopped beating: (ids queued again, job ids of tasks closed as crashed)."""
    stale = _stale(stale_after_seconds)
    rows = session.execute(select(JobTask.id, JobTask.job_id).where(
        JobTask.status == RUNNING, JobTask.heartbeat_at < stale).order_by(JobTask.id)).all()
    session.commit()
    requeued, crashed_jobs = [], []
    for task_id, job_id in rows:
        condition = (JobTask.id == task_id, JobTask.status == RUNNING, JobTask.heartbeat_at < stale)
        outcome = to_json(TaskFailed("crash", CRASH_MESSAGE.format(tries=max_tries)))
        crashed = changed_rows(session, update(JobTask).where(*condition, JobTask.tries >= max_tries).values(
            status=DONE, outcome=outcome, finished_at=utcnow(), worker_id=None))
        back = 0 if crashed else changed_rows(
            session, update(JobTask).where(*condition).values(status=QUEUED, worker_id=None))
        session.commit()
        if back:
            requeued.append(task_id)
        if crashed:
            crashed_jobs.append(job_id)
    return requeued, crashed_jobs


def queued_ids(*, session: Session) -> list[int]:
    """Queued tasks, oldest first."""
    return list(session.scalars(select(JobTask.id).where(JobTask.status == QUEUED).order_by(JobTask.id)).all())


def mark_job_running(*, session: Session, job_id: int) -> None:
    """The job's first claimed task moves it from queued to running."""
    changed_rows(session, update(ScenarioJob).where(ScenarioJob.id == job_id, ScenarioJob.status == "queued")
                 .values(status="running"))
    session.commit()
