"""Helpers for scenario-job tests: draft versions in the process-wide database, waiting for jobs."""

from __future__ import annotations

import time
import uuid

from dispatch.tiny_scenario import tiny_package
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import new_session, utcnow
from app.engine.package import ScenarioPackage
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion


def add_tiny_version(session: Session, *, status: str = "draft", slug: str | None = None,
                     mutate=None) -> ScenarioVersion:
    """Version 1 of a new scenario holding the tiny package (optionally changed), flushed."""
    data = tiny_package().to_dict()
    data["slug"] = slug or f"tiny-{uuid.uuid4().hex[:8]}"
    if mutate:
        mutate(data)
    package = ScenarioPackage.from_dict(data)
    scenario = Scenario(slug=package.slug, title=package.title)
    session.add(scenario)
    session.flush()
    version = ScenarioVersion(scenario_id=scenario.id, version=1, title=package.title, difficulty="easy",
                              summary="", content=package.to_dict(), content_hash=package.content_hash,
                              status=status, published_at=utcnow() if status == "published" else None)
    session.add(version)
    session.flush()
    return version


def tiny_draft(*, mutate=None) -> int:
    """A new scenario whose version 1 is a draft of the tiny package (optionally changed); returns its id."""
    with new_session() as session:
        version = add_tiny_version(session, mutate=mutate)
        session.commit()
        return version.id


def wait_job(job_id: int, timeout: float = 300.0) -> ScenarioJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with new_session() as session:
            job = session.get(ScenarioJob, job_id)
            if job is not None and job.status in ("done", "failed"):
                return job
        time.sleep(0.25)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s")


def run_queued_tasks(job_id: int) -> list[str]:
    """Run the job's queued tasks in this thread (as a worker would) until none is left."""
    from app.scenarios.task_runner import run_job_task

    seen = []
    while True:
        with new_session() as session:
            ids = session.scalars(select(JobTask.id).where(JobTask.job_id == job_id, JobTask.status == "queued")
                                  .order_by(JobTask.id)).all()
        if not ids:
            return seen
        for task_id in ids:
            seen.append(run_job_task(task_id))
