"""Finding scenario-job tasks that were lost: queued ones nobody runs and running ones whose worker died."""

from __future__ import annotations

import logging

from app.attempts.grading_job import write_coaching
from app.core.db import new_session
from app.core.settings import get_settings
from app.dispatch.registry import Enqueue
from app.scenarios import job_phases, task_claims
from app.scenarios.job_kinds import task_job

log = logging.getLogger(__name__)


def sweep_stale(*, enqueue: Enqueue) -> list[int]:
    """Send tasks whose worker stopped beating back to the queue; count crashed ones towards their job."""
    settings = get_settings()
    with new_session() as session:
        requeued, crashed_jobs = task_claims.requeue_stale(
            session=session, stale_after_seconds=settings.stale_after_seconds, max_tries=settings.max_tries)
        recoach: list[int] = []
        for job_id in crashed_jobs:
            recoach += job_phases.task_finished(session=session, job_id=job_id,
                                                label="a run whose worker kept stopping")
            session.commit()
    for attempt_id in recoach:  # after the commit, as run_job_task does
        write_coaching(attempt_id)
    background = _background(requeued)
    for task_id in requeued:
        log.warning("job task %s: worker stopped beating; dispatched again", task_id)
        enqueue(task_job(task_id, background=background.get(task_id, True)))
    return requeued


def recover_on_start(*, enqueue: Enqueue) -> list[int]:
    """Dispatch every queued task and every running one whose heartbeat went stale."""
    sweep_stale(enqueue=lambda _job: None)  # they become queued and are enqueued just below
    with new_session() as session:
        ids = task_claims.queued_ids(session=session)
    background = _background(ids)
    for task_id in ids:
        enqueue(task_job(task_id, background=background.get(task_id, True)))
    if ids:
        log.info("recovery: %d queued job task(s) dispatched", len(ids))
    return ids


def _background(task_ids: list[int]) -> dict[int, bool]:
    """Which of the tasks are background work (app.scenarios.jobs.runs_in_background)."""
    from sqlalchemy import select

    from app.scenarios.job_models import JobTask, ScenarioJob
    from app.scenarios.jobs import runs_in_background

    if not task_ids:
        return {}
    with new_session() as session:
        rows = session.execute(select(JobTask.id, ScenarioJob.kind, JobTask.name)
                               .join(ScenarioJob, ScenarioJob.id == JobTask.job_id)
                               .where(JobTask.id.in_(task_ids))).all()
    return {task_id: runs_in_background(kind, name) for task_id, kind, name in rows}
