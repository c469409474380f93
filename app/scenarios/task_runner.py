"""The job function for scenario-job tasks (validation runs, rejudge gradings), on any grading worker
(the job kind registered in app/scenarios/job_kinds.py).

Like grade_attempt: claim the task row, heartbeat while the sandbox runs, store the outcome only while
the claim holds, and count it towards the job (the last task of a phase closes it).
"""

from __future__ import annotations

import logging

from app.attempts import job_kinds as attempt_jobs
from app.attempts.grading_job import write_coaching
from app.attempts.models import Attempt
from app.core.db import new_session
from app.core.settings import get_settings
from app.dispatch.claiming import new_claim_token
from app.dispatch.heartbeat import heartbeat
from app.engine.package import ScenarioPackage
from app.scenarios import job_phases, jobs, task_claims, validation
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from app.scenarios.task_outcomes import ReferenceReady, TaskFailed, TaskOutcome, Verdict

log = logging.getLogger(__name__)


def run_job_task(task_id: int, *, worker_prefix: str = "worker") -> str:
    """Claim, run and store one task; returns what happened (done, skipped, lost)."""
    settings = get_settings()
    with new_session() as session:
        claim = task_claims.claim(session=session, task_id=task_id, token=new_claim_token(worker_prefix),
                                  stale_after_seconds=settings.stale_after_seconds)
        if claim is None:
            return "skipped"
        task = session.get(JobTask, task_id)
        assert task is not None
        job = session.get(ScenarioJob, task.job_id)
        assert job is not None
        job_id, kind, content, name, attempt_id = job.id, job.kind, job.package, task.name, task.attempt_id
        version_id = job.scenario_version_id
        session.rollback()
        task_claims.mark_job_running(session=session, job_id=job_id)

    package: ScenarioPackage | None = None
    with heartbeat(lambda session: task_claims.beat(session=session, claim=claim), settings.heartbeat_seconds,
                   f"task-heartbeat-{task_id}"):
        try:
            package = ScenarioPackage.from_dict(content)
            outcome = _execute(kind=kind, package=package, name=name, attempt_id=attempt_id, version_id=version_id)
        except Exception as exc:  # recorded on the task; validation reports it as a run that failed
            log.exception("job task %s (%s) failed", task_id, name)
            outcome = TaskFailed("sandbox", f"the run failed: {exc.__class__.__name__}")

    with new_session() as session:
        if not task_claims.finish(session=session, claim=claim, outcome=outcome):
            session.rollback()
            log.warning("job task %s: claim lost to another worker; outcome discarded", task_id)
            return "lost"
        released = (validation.reference_run_finished(session=session, job_id=job_id, outcome=outcome)
                    if kind == validation.KIND and name == jobs.REFERENCE_RUN else [])
        recoach = job_phases.task_finished(session=session, job_id=job_id, label=_label(kind, package, name))
        session.commit()
    for attempt_id in released:  # after the commit: their grading reads the reference just stored
        attempt_jobs.dispatch(attempt_id)
    for rejudged in recoach:  # after the commit: a coaching model may take seconds, holding no lock
        write_coaching(rejudged)
    return "done"


def _execute(*, kind: str, package: ScenarioPackage, name: str, attempt_id: int | None,
             version_id: int) -> TaskOutcome:
    from app.sandbox import get_runner

    if kind == "validate":
        from app.engine.harness_run import run_harness
        from app.scenarios.validation import task_files

        return run_harness(package=package, files=task_files(package, name), runner=get_runner())
    if attempt_id is None:  # the rejudge's first task: make the version's reference current
        from app.scenarios.reference import ensure_version_reference

        report = ensure_version_reference(version_id=version_id, package=package, runner=get_runner())
        return ReferenceReady(report.reference is not None)
    return _regrade(attempt_id=attempt_id, package=package, version_id=version_id)


def _regrade(*, attempt_id: int, package: ScenarioPackage, version_id: int) -> TaskOutcome:
    from app.attempts.grading import grade

    with new_session() as session:
        attempt = session.get(Attempt, attempt_id)
        version = session.get(ScenarioVersion, version_id)
        if attempt is None or version is None:
            return TaskFailed("gone", "the attempt no longer exists")
        files, kind, hints, stored = dict(attempt.files), attempt.kind, dict(attempt.hints_used), version.reference
    outcome = grade(package=package, files=files, kind=kind, hints_used=hints, version_id=version_id,
                    reference=stored)
    return Verdict(status=outcome.status, score=outcome.score, error=outcome.error, result=outcome.result)


def _label(kind: str, package: ScenarioPackage | None, name: str) -> str:
    if kind == "validate" and package is not None:
        from app.scenarios.validation import task_label

        return task_label(package, name)
    return "the reference" if name.startswith("reference") else name.replace(":", " ")
