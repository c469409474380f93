"""Validation as a background job: one task per sandboxed run, the matrix built when the last one ends."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.engine.package import ScenarioPackage
from app.engine.validator import (
    ValidationReport,
    add_masking,
    masking_pairs,
    pair_files,
    planned_runs,
    report_from_outcomes,
)
from app.sandbox.job import HarnessOutcome
from app.scenarios import jobs, reference
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion

KIND = "validate"


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


def outcome_to_json(outcome: HarnessOutcome) -> dict[str, Any]:
    """What a task row stores: the measurements or the error, never the run's raw output."""
    return {"result": outcome.result, "error_kind": outcome.error_kind, "error_message": outcome.error_message,
            "wall_seconds": round(outcome.wall_seconds, 3)}


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
    jobs.finish_job(job, {"valid": report.valid, "problems": len(report.problems), "stored": stored})


def store_if_current(*, session: Session, job: ScenarioJob, report: ValidationReport) -> bool:
    """Keep the report on the version unless the draft changed while it was being validated."""
    version = session.get(ScenarioVersion, job.scenario_version_id)
    if version is None or version.content_hash != report.content_hash:
        return False
    reference.store_report(session=session, version_id=version.id, report=report)
    return True


def validate_missing_references(*, session: Session, versions: list[ScenarioVersion]) -> int:
    """Queue a validation for each version without a current stored reference (none already running)."""
    pending = dict(reference.missing_references(session=session, versions=versions))
    queued = 0
    for version in versions:
        if version.id in pending and jobs.active_job(session=session, version_id=version.id, kind=KIND) is None:
            start_validation(session=session, version=version, user_id=None)
            queued += 1
    return queued
