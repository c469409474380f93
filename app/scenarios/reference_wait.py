"""Waiting for references without blocking anyone: the server is ready once every built-in has its
reference, and a grading that arrives before its version's reference waits in the queue.

`dojo serve` serves at once; each built-in version without a reference gets a validation job whose
first run (the solution) is the reference, the mutation matrix coming after it in the background.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from app.attempts.models import Attempt, AttemptStatus
from app.core.db import new_session
from app.scenarios import jobs, reference, validation
from app.scenarios.job_models import JobTask
from app.scenarios.models import Scenario, ScenarioVersion

# What a queued attempt's progress says while it waits (the API's attempt object shows it as is).
WAITING_FOR_REFERENCE = {"stage": "reference", "text": "preparing the reference run"}


@dataclass(frozen=True)
class PendingReference:
    """A built-in scenario version whose reference is not stored yet."""

    scenario: str
    version: int


_awaited: tuple[int, ...] = ()
_all_stored = True  # until a start names the versions it awaits


def await_references(version_ids: list[int]) -> None:
    """The built-in versions this process reports as not ready until each has its reference."""
    global _awaited, _all_stored
    _awaited, _all_stored = tuple(version_ids), not version_ids


def pending_references() -> list[PendingReference]:
    """The awaited versions still without a reference (once none is left, never asked again)."""
    global _all_stored
    if _all_stored:
        return []
    with new_session() as session:
        rows = session.execute(
            select(Scenario.slug, ScenarioVersion.version, ScenarioVersion.content_hash, ScenarioVersion.reference)
            .join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
            .where(ScenarioVersion.id.in_(_awaited)).order_by(Scenario.slug)
        ).all()
    pending = [PendingReference(slug, number) for slug, number, content_hash, stored in rows
               if not reference.has_reference(stored, content_hash)]
    _all_stored = not pending
    return pending


def waits_for_reference(attempt_id: int) -> bool:
    """True when the queued attempt must wait for its version's reference run; it then stays queued
    with the stage WAITING_FOR_REFERENCE until the run's end dispatches it again
    (validation.reference_run_finished).

    Only a reference that a validation is preparing is waited for. Without one (a version nobody
    validates now) or when its run ended without measurements (a broken solution), the grading goes
    on and computes the reference itself or reports the failure (app.attempts.grading.grade).
    """
    with new_session() as session:
        row = session.execute(
            select(Attempt.status, Attempt.kind, ScenarioVersion.id, ScenarioVersion.content_hash,
                   ScenarioVersion.reference)
            .join(ScenarioVersion, ScenarioVersion.id == Attempt.scenario_version_id).where(Attempt.id == attempt_id)
        ).one_or_none()
        if row is None or row.status != AttemptStatus.queued.value or row.kind == "scratch":
            return False
        if reference.has_reference(row.reference, row.content_hash):
            return False
        job = jobs.active_job(session=session, version_id=row.id, kind=validation.KIND)
        if job is None or session.scalar(select(JobTask.status).where(
                JobTask.job_id == job.id, JobTask.phase == 0, JobTask.name == jobs.REFERENCE_RUN)) == "done":
            return False
        waiting = session.execute(
            update(Attempt).where(Attempt.id == attempt_id, Attempt.status == AttemptStatus.queued.value)
            .values(progress=dict(WAITING_FOR_REFERENCE)).execution_options(synchronize_session=False)
        )
        session.commit()
        return bool(getattr(waiting, "rowcount", 0))
