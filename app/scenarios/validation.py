"""Validation as a background job: one task per sandboxed run, the matrix built when the last one ends."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from app.attempts.models import Attempt, AttemptStatus
from app.engine.package import ScenarioPackage
from app.engine.validator import (
    ValidationReport,
    add_masking,
    masking_pairs,
    pair_files,
    planned_runs,
    reference_only_report,
    report_from_outcomes,
)
from app.sandbox.job import HarnessOutcome
from app.scenarios import jobs, reference, task_outcomes
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from app.scenarios.schemas import ValidationJobSummary
from app.scenarios.task_outcomes import TaskOutcome

log = logging.getLogger(__name__)

KIND = "validate"
_QUEUEING_LOCK = 0x646F6A6F  # any constant: the advisory lock that serialises queueing validations


class ValidationBusy(Exception):
    """A validation of this version is already running."""


def start_validation(*, session: Session, version: ScenarioVersion, user_id: int | None) -> ScenarioJob:
    """Queue a validation of the version as it is now (dispatched when the caller commits)."""
    if jobs.active_job(session=session, version_id=version.id, kind=KIND) is not None:
        raise ValidationBusy(f"version {version.version} is already being validated")
    package = ScenarioPackage.from_dict(version.content)
    tasks: list[jobs.TaskSpec] = [(name, None, None) for name in planned_runs(package)]
    return jobs.create_job(session=session, kind=KIND, version=version, user_id=user_id, tasks=tasks)


def task_files(package: ScenarioPackage, name: str) -> dict[str, str]:
    """The files a task measures: a planned run or a pair of bugs (pair:<a>+<b>)."""
    if name.startswith("pair:"):
        first, second = name.removeprefix("pair:").split("+", 1)
        return pair_files(package, first, second)
    return planned_runs(package)[name]


def task_label(package: ScenarioPackage, name: str) -> str:
    """What the progress line says about a finished task ("mutant 2 of 4: mask-leak")."""
    if name.startswith("bug:"):
        ids = [bug.id for bug in package.bugs]
        bug_id = name.removeprefix("bug:")
        return f"mutant {ids.index(bug_id) + 1} of {len(ids)}: {bug_id}"
    if name.startswith("pair:"):
        return "masking check: " + name.removeprefix("pair:").replace("+", " with ")
    return {"solution": "the solution", "solution-again": "the solution again (determinism)",
            "starter": "the starter"}.get(name, name)


def outcome_from_json(data: dict[str, Any] | None) -> HarnessOutcome:
    data = data or {}
    return HarnessOutcome(result=data.get("result"), error_kind=data.get("error_kind"),
                          error_message=data.get("error_message"), wall_seconds=data.get("wall_seconds") or 0.0)


def close_phase(*, session: Session, job: ScenarioJob) -> None:
    """Build the report; after the first phase, masking pairs may still need runs of their own."""
    package = ScenarioPackage.from_dict(job.package)
    tasks = session.scalars(select(JobTask).where(JobTask.job_id == job.id)).all()
    report = report_from_outcomes(package, {t.name: outcome_from_json(t.outcome) for t in tasks if t.phase == 0})
    if job.phase == 0:
        pairs = masking_pairs(package, report)
        if pairs:
            job.status = "running"
            jobs.add_tasks(session=session, job=job, phase=1, tasks=[(f"pair:{a}+{b}", None, None) for a, b in pairs])
            return
    else:
        pair_outcomes: dict[tuple[str, str], HarnessOutcome] = {}
        for task in tasks:
            if task.phase == 1:
                first, second = task.name.removeprefix("pair:").split("+", 1)
                pair_outcomes[(first, second)] = outcome_from_json(task.outcome)
        add_masking(package, report, pair_outcomes)
    stored = store_if_current(session=session, job=job, report=report)
    jobs.finish_job(job, ValidationJobSummary(valid=report.valid, problems=len(report.problems), stored=stored))
    if stored and report.reference is not None:
        from app.scenarios import rejudge

        # Attempts graded against the solution's measurements alone get their bug verdicts now.
        rejudge.regrade_provisional(session=session, version_id=job.scenario_version_id)


def reference_run_finished(*, session: Session, job_id: int, outcome: TaskOutcome) -> list[int]:
    """The validation's run of the solution finished (in the finishing worker's transaction).

    Its measurements become the version's reference at once, before the mutation matrix (unless a
    current one is stored), and the version's queued attempts are returned: the caller dispatches
    them after its commit, so those that waited for the reference are graded now.
    """
    job = session.get(ScenarioJob, job_id)
    version = session.get(ScenarioVersion, job.scenario_version_id) if job is not None else None
    if job is None or version is None:
        return []
    package = ScenarioPackage.from_dict(job.package)
    if version.content_hash == package.content_hash \
            and not reference.has_reference(version.reference, version.content_hash):
        report = reference_only_report(package, outcome_from_json(task_outcomes.to_json(outcome)))
        if report.reference is not None:
            reference.store_reference_only(session=session, version_id=version.id, report=report)
    return list(session.scalars(select(Attempt.id).where(
        Attempt.scenario_version_id == version.id, Attempt.status == AttemptStatus.queued.value
    ).order_by(Attempt.id)).all())


def store_if_current(*, session: Session, job: ScenarioJob, report: ValidationReport) -> bool:
    """Keep the report on the version unless the draft changed while it was being validated."""
    version = session.get(ScenarioVersion, job.scenario_version_id)
    if version is None or version.content_hash != report.content_hash:
        return False
    reference.store_report(session=session, version_id=version.id, report=report)
    return True


def validate_missing_references(*, session: Session, versions: list[ScenarioVersion]) -> int:
    """Queue a validation for each version without a current stored reference (none already running).

    Each validation runs the solution first (the reference, which gradings wait for), then the
    mutation matrix in the background. Several processes starting together queue each one once.
    """
    _one_process_at_a_time(session)
    pending = set(reference.missing_references(session=session, versions=versions))
    queued = 0
    for version in versions:
        if version.id not in pending or jobs.active_job(session=session, version_id=version.id, kind=KIND) is not None:
            continue
        if not _store_shipped(session=session, version=version):
            start_validation(session=session, version=version, user_id=None)
            queued += 1
    return queued


def _store_shipped(*, session: Session, version: ScenarioVersion) -> bool:
    """Store the report the app ships for this built-in's content and the running engine, if it has one:
    nothing to compute (an admin's version, or a built-in changed since its report, is validated)."""
    from app.grading.reference import load_shipped

    shipped = load_shipped(ScenarioPackage.from_dict(version.content))
    if shipped is None:
        return False
    reference.store_report(session=session, version_id=version.id, report=shipped)
    log.info("scenario %s: the shipped validation report is current; stored", version.content.get("slug"))
    return True


def _one_process_at_a_time(session: Session) -> None:
    """Hold a database-wide lock until the session commits: the next process starting sees our jobs."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _QUEUEING_LOCK})
    else:  # SQLite: a transaction that starts with a write holds the database's write lock
        session.execute(update(ScenarioJob).where(ScenarioJob.id == -1).values(status=ScenarioJob.status)
                        .execution_options(synchronize_session=False))
