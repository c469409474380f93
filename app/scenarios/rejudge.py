"""Rejudge: grade every finished attempt of a version again, keep what it had before, show what changed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.attempts.models import FINISHED_STATUSES, Attempt
from app.coaching.models import CoachingTip
from app.dispatch.claiming import changed_rows
from app.scenarios import jobs
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from app.scenarios.schemas import RejudgeJobSummary
from app.scenarios.task_outcomes import Verdict

KIND = "rejudge"
REFERENCE_TASK = "reference"
# The first task of a rejudge of only the attempts graded before the version's matrix existed.
PROVISIONAL_REFERENCE_TASK = "reference:provisional"
GRADED_KINDS = ("run", "submit")


class RejudgeBusy(Exception):
    """A rejudge of this version is already running."""


def start_rejudge(*, session: Session, version: ScenarioVersion, user_id: int | None,
                  only_provisional: bool = False) -> ScenarioJob:
    """Queue a rejudge: first the version's reference is made current, then each attempt is graded
    (only_provisional: only those graded before the version's bug x test matrix existed)."""
    if jobs.active_job(session=session, version_id=version.id, kind=KIND) is not None:
        raise RejudgeBusy(f"version {version.version} is already being rejudged")
    first = PROVISIONAL_REFERENCE_TASK if only_provisional else REFERENCE_TASK
    return jobs.create_job(session=session, kind=KIND, version=version, user_id=user_id, tasks=[(first, None, None)])


def _provisional() -> Any:
    """Attempts whose result was graded before the matrix (GradeResult.provisional)."""
    return Attempt.result["provisional"].as_boolean().is_(True)


def regrade_provisional(*, session: Session, version_id: int) -> ScenarioJob | None:
    """Once the version's matrix is stored: rejudge the attempts graded before it (None: there are none,
    or a rejudge is running, which grades them all anyway)."""
    version = session.get(ScenarioVersion, version_id)
    waiting = session.scalar(select(Attempt.id).where(Attempt.scenario_version_id == version_id,
                                                      _provisional()).limit(1))
    if version is None or waiting is None or jobs.active_job(session=session, version_id=version_id, kind=KIND):
        return None
    return start_rejudge(session=session, version=version, user_id=None, only_provisional=True)


def snapshot(attempt: Attempt) -> Verdict | None:
    """The attempt's verdict before rejudging (read back from its row)."""
    return Verdict.from_json({"status": attempt.status, "score": attempt.score, "error": attempt.error,
                              "result": attempt.result})


def close_phase(*, session: Session, job: ScenarioJob) -> None:
    """After the reference: one task per finished attempt. After those: store the new verdicts."""
    if job.phase == 0:
        query = select(Attempt).where(
            Attempt.scenario_version_id == job.scenario_version_id,
            Attempt.status.in_([s.value for s in FINISHED_STATUSES]),
            Attempt.kind.in_(GRADED_KINDS),  # scratch runs are the candidate's experiments, never graded
        ).order_by(Attempt.id)
        first = session.scalar(select(JobTask.name).where(JobTask.job_id == job.id, JobTask.phase == 0).limit(1))
        if first == PROVISIONAL_REFERENCE_TASK:
            query = query.where(_provisional())
        attempts = session.scalars(query).all()
        if attempts:
            job.status = "running"
            jobs.add_tasks(session=session, job=job, phase=1,
                           tasks=[(f"attempt:{a.id}", a.id, snapshot(a)) for a in attempts])
            return
    tasks = session.scalars(select(JobTask).where(JobTask.job_id == job.id, JobTask.phase == 1)).all()
    changed: list[int] = []
    for task in tasks:
        new = Verdict.from_json(task.outcome)
        if new is None:  # the grading itself crashed: keep the old verdict
            continue
        changed_rows(session, update(Attempt).where(
            Attempt.id == task.attempt_id, Attempt.status.in_([s.value for s in FINISHED_STATUSES])
        ).values(**new.to_json()))
        if task.attempt_id is not None and changes(Verdict.from_json(task.previous), new):
            changed.append(task.attempt_id)
    # The old verdict's tips go with it, in the same transaction: until the coach writes new ones (after
    # the commit, see attempts_to_recoach), an attempt shows no tips rather than tips that contradict it.
    if changed:
        session.execute(delete(CoachingTip).where(CoachingTip.attempt_id.in_(changed)))
    jobs.finish_job(job, RejudgeJobSummary(attempts=len(tasks), changed=len(changed), changed_attempts=changed))


def attempts_to_recoach(job: ScenarioJob) -> list[int]:
    """A finished rejudge's attempts whose verdict changed: their coaching tips spoke of the old one."""
    if job.kind != KIND or job.status != "done" or not job.summary:
        return []
    return [int(attempt_id) for attempt_id in job.summary.get("changed_attempts", [])]


def _fixed(verdict: Verdict | None) -> dict[str, bool]:
    result = verdict.result if verdict is not None else None
    return {} if result is None else {b.id: b.fixed for b in result.bugs}


def _passed(verdict: Verdict | None) -> dict[str, bool]:
    result = verdict.result if verdict is not None else None
    return {} if result is None else {t.id: t.passed for t in result.tests}


def changes(old: Verdict | None, new: Verdict | None) -> list[str]:
    """Human-readable differences between two verdicts of one attempt (empty when nothing changed;
    None is a verdict that is missing)."""
    out = []
    old_status, new_status = (old.status if old else None), (new.status if new else None)
    if old_status != new_status:
        out.append(f"status {old_status} → {new_status}")
    old_score, new_score = (old.score if old else None), (new.score if new else None)
    if old_score != new_score:
        out.append(f"score {_num(old_score)} → {_num(new_score)}")
    before, after = _fixed(old), _fixed(new)
    for bug in sorted(set(before) | set(after)):
        if before.get(bug) != after.get(bug):
            out.append(f"bug {bug}: {_word(before.get(bug), 'fixed')} → {_word(after.get(bug), 'fixed')}")
    before, after = _passed(old), _passed(new)
    for test in sorted(set(before) | set(after)):
        if before.get(test) != after.get(test):
            out.append(f"test {test}: {_word(before.get(test), 'passed')} → {_word(after.get(test), 'passed')}")
    return out


def _num(value: float | None) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def _word(value: bool | None, yes: str) -> str:
    return "absent" if value is None else (yes if value else f"not {yes}")
