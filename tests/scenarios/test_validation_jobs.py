"""Validation as a background job: tasks on the local pool, live progress, the matrix stored on the version."""

from __future__ import annotations

import pytest
from dispatch.conftest import app_db  # noqa: F401

from app.core.db import new_session
from app.dispatch.local_pool import LocalPool
from app.scenarios import validation
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from app.startup import register_jobs
from scenarios.jobs_support import run_queued_tasks, tiny_draft, wait_job


def _start(version_id: int) -> int:
    with new_session() as session:
        version = session.get(ScenarioVersion, version_id)
        job = validation.start_validation(session=session, version=version, user_id=None)
        session.commit()
        return job.id


@pytest.mark.bwrap
def test_validation_runs_on_the_local_pool_and_stores_the_matrix(app_db: None, monkeypatch) -> None:  # noqa: F811
    from app.dispatch import dispatcher

    register_jobs()  # as `dojo serve` does before it starts the pool
    version_id = tiny_draft()
    pool = LocalPool(concurrency=2)
    pool.start()
    monkeypatch.setattr(dispatcher, "_active", pool)
    try:
        job_id = _start(version_id)
        job = wait_job(job_id)
    finally:
        pool.stop()
    assert job.status == "done", job.error
    assert (job.done, job.total) == (5, 5)  # solution twice, starter, two mutants
    assert job.summary == {"valid": True, "problems": 0, "stored": True}
    with new_session() as session:
        version = session.get(ScenarioVersion, version_id)
        assert version.validation["valid"] is True
        assert all(bug["detected_by"] for bug in version.validation["bugs"])
        assert version.reference is not None and version.reference["reference"]["probes"]
        labels = sorted(t.name for t in session.query(JobTask).filter_by(job_id=job_id))
    assert labels == ["bug:pos-not-added", "bug:softmax-before-loss", "solution", "solution-again", "starter"]


@pytest.mark.bwrap
def test_an_undetectable_bug_makes_the_version_invalid_and_is_named(app_db: None) -> None:  # noqa: F811
    def plant_a_harmless_bug(data: dict) -> None:
        # A "bug" that changes only a comment: no test can ever see it.
        edit = {"file": "model.py", "old": "# re-assemble all heads side by side", "new": "# heads back together"}
        data["bugs"].append({**data["bugs"][0], "id": "comment-only", "title": "A comment changed", "edits": [edit]})

    version_id = tiny_draft(mutate=plant_a_harmless_bug)
    job_id = _start(version_id)
    run_queued_tasks(job_id)
    job = wait_job(job_id, timeout=5)
    assert job.status == "done" and job.summary["valid"] is False
    with new_session() as session:
        report = session.get(ScenarioVersion, version_id).validation
    assert report["valid"] is False
    assert any("bug comment-only: no hidden test detects it" in p for p in report["problems"])
    assert next(b for b in report["bugs"] if b["id"] == "comment-only")["detected_by"] == []


def test_a_second_validation_while_one_runs_is_refused(app_db: None) -> None:  # noqa: F811
    version_id = tiny_draft()
    job_id = _start(version_id)
    try:
        with new_session() as session, pytest.raises(validation.ValidationBusy):
            validation.start_validation(session=session, version=session.get(ScenarioVersion, version_id),
                                        user_id=None)
    finally:  # never leave queued tasks behind for pools that later tests start
        with new_session() as session:
            session.query(ScenarioJob).filter_by(id=job_id).delete()
            session.commit()


def test_start_up_queues_one_validation_per_version_without_a_current_reference(app_db: None) -> None:  # noqa: F811
    version_id = tiny_draft()
    try:
        with new_session() as session:
            version = session.get(ScenarioVersion, version_id)
            assert validation.validate_missing_references(session=session, versions=[version]) == 1
            session.commit()
            # A second start while it is queued (or another web process) adds nothing.
            assert validation.validate_missing_references(session=session, versions=[version]) == 0
            jobs = session.query(ScenarioJob).filter_by(scenario_version_id=version_id).all()
            assert [(j.kind, j.status, j.total) for j in jobs] == [("validate", "queued", 5)]
    finally:  # never leave queued tasks behind for pools that later tests start
        with new_session() as session:
            session.query(ScenarioJob).filter_by(scenario_version_id=version_id).delete()
            session.commit()
