"""Scenario jobs: created with their tasks, each task dispatched once the transaction commits.

A job's tasks run on any grading worker (local pool thread or Celery worker). The worker that finishes
the last task of a phase closes it (app/scenarios/job_phases.py): validation turns the runs into the
bug x test matrix (and may add masking-pair runs as a second phase); rejudge applies the new results.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.dispatch import dispatcher
from app.scenarios.job_kinds import task_job
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from app.scenarios.schemas import JobProgress, JobSummary, RejudgeJobSummary, ValidationJobSummary
from app.scenarios.task_outcomes import Verdict

ACTIVE = ("queued", "running", "closing")
TaskSpec = tuple[str, int | None, Verdict | None]  # name, attempt id, the attempt's verdict before
# A validation's run of the solution: its measurements are the version's reference, which gradings
# of the version wait for, so it runs before the rest of the validation (the mutation matrix).
REFERENCE_RUN = "solution"


def runs_in_background(kind: str, name: str) -> bool:
    """Whether a task is background work, queued behind every grading: all but a reference run."""
    return not (kind == "validate" and name == REFERENCE_RUN)


def create_job(*, session: Session, kind: str, version: ScenarioVersion, user_id: int | None,
               tasks: list[TaskSpec]) -> ScenarioJob:
    """A queued job with its first phase of tasks; they are dispatched when the caller commits."""
    job = ScenarioJob(kind=kind, scenario_version_id=version.id, package=dict(version.content),
                      created_by_id=user_id, total=0)
    session.add(job)
    session.flush()
    add_tasks(session=session, job=job, phase=0, tasks=tasks)
    return job


def add_tasks(*, session: Session, job: ScenarioJob, phase: int, tasks: list[TaskSpec]) -> None:
    """Add a phase's tasks to the job and dispatch each once the transaction commits."""
    rows = [JobTask(job_id=job.id, name=name, phase=phase, attempt_id=attempt_id,
                    previous=None if previous is None else previous.to_json())
            for name, attempt_id, previous in tasks]
    session.add_all(rows)
    job.phase = phase
    job.total = (job.total or 0) + len(rows)
    session.flush()
    for row in rows:
        dispatcher.enqueue_after_commit(session, task_job(row.id, background=runs_in_background(job.kind, row.name)))


def active_job(*, session: Session, version_id: int, kind: str) -> ScenarioJob | None:
    """The version's unfinished job of this kind, if any."""
    return session.scalar(select(ScenarioJob).where(
        ScenarioJob.scenario_version_id == version_id, ScenarioJob.kind == kind, ScenarioJob.status.in_(ACTIVE)
    ).order_by(ScenarioJob.id.desc()).limit(1))


def latest_job(*, session: Session, version_id: int, kind: str) -> ScenarioJob | None:
    """The version's newest job of this kind."""
    return session.scalar(select(ScenarioJob).where(
        ScenarioJob.scenario_version_id == version_id, ScenarioJob.kind == kind
    ).order_by(ScenarioJob.id.desc()).limit(1))


def finish_job(job: ScenarioJob, summary: JobSummary) -> None:
    """Mark the job done with its summary."""
    job.status, job.summary, job.finished_at = "done", summary.model_dump(mode="json"), utcnow()


def progress(job: ScenarioJob) -> JobProgress:
    """The job as pages and the API show it."""
    return JobProgress(id=job.id, kind=job.kind, status=job.status, done=job.done, total=job.total,
                       current=job.current, summary=_summary(job), error=job.error,
                       finished=job.status in ("done", "failed"))


def _summary(job: ScenarioJob) -> JobSummary | None:
    """The stored summary read back by the job's kind (None before the job finished)."""
    if not job.summary:
        return None
    shape = RejudgeJobSummary if job.kind == "rejudge" else ValidationJobSummary
    return shape.model_validate(job.summary)
