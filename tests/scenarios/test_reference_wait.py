"""Serve first, prove in the background: `dojo serve` answers while the built-ins' references run, a
submission that comes before its reference waits in the queue (never fails), and the mutation matrix
runs behind candidates' gradings."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import Celery
from dispatch.conftest import app_db  # noqa: F401
from dispatch.processes import dojo_command, dojo_env, kill_group, start_dojo, wait_for
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

import app.models  # noqa: F401  (every table, for the worker's database built here)
from app.attempts.job_kinds import GRADE_TASK_NAME as TASK_NAME
from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.auth.tokens import issue_token
from app.core.db import make_engine, new_session
from app.core.paths import ROOT_DIR
from app.core.settings import get_settings
from app.dispatch.celery_app import BROKER_PRIORITY
from app.dispatch.registry import Priority
from app.main import create_app
from app.scenarios import validation
from app.scenarios.job_kinds import JOB_TASK_NAME, task_job
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.jobs import ACTIVE
from app.scenarios.models import ScenarioVersion
from app.users.service import create_user
from app.workspace.results import progress_of
from scenarios.jobs_support import add_tiny_version

CELERY_REDIS_URL = os.environ.get("DOJO_TEST_DISPATCH_REDIS_URL", "redis://127.0.0.1:6379/13")


def _published_tiny() -> int:
    """A published version of a new tiny scenario with no reference yet."""
    with new_session() as session:
        version = add_tiny_version(session, status="published")
        session.commit()
        return version.id


def _candidate_headers() -> dict[str, str]:
    with new_session() as session:
        user = create_user(session=session, email=f"w-{uuid.uuid4().hex[:8]}@example.com", password=None,
                           role="candidate")
        token = issue_token(session=session, user=user)
        session.commit()
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.bwrap
def test_serve_answers_at_once_and_a_submission_waits_for_the_reference_then_is_graded(
    app_db: None, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    version_id = _published_tiny()
    with new_session() as session:
        content = session.get(ScenarioVersion, version_id).content
    slug, solution = content["slug"], dict(content["solution_files"])
    headers = _candidate_headers()
    # The built-ins of this start are just the tiny scenario (the real eight take minutes to validate).
    monkeypatch.setattr("app.scenarios.service.sync_builtin_scenarios",
                        lambda *, session: [session.get(ScenarioVersion, version_id)])
    monkeypatch.setattr(get_settings(), "warm_references", True)
    monkeypatch.setattr(get_settings(), "worker_concurrency", 2)
    monkeypatch.setattr(get_settings(), "warm_sandboxes", False)

    # The reference run (the solution's) really runs, but only once the test has looked at the server
    # while it is being prepared: no race decides what the test sees.
    from app.scenarios import task_runner as job_tasks

    release = threading.Event()
    real_execute = job_tasks._execute

    def held_reference_run(**kwargs: Any) -> dict[str, Any]:
        if kwargs["name"] == "solution":
            release.wait(timeout=600)
        return real_execute(**kwargs)

    monkeypatch.setattr(job_tasks, "_execute", held_reference_run)
    try:
        with TestClient(create_app()) as client:  # the start-up returns without waiting for any run
            assert client.get("/healthz").status_code == 200
            ready = client.get("/readyz")
            assert ready.status_code == 503
            assert ready.json()["references"] == {
                "status": "preparing", "waiting_for": [{"scenario": slug, "version": 1}]}
            assert ready.json()["database"] == "ok"

            attempt = client.post("/api/attempts", headers=headers,
                                  json={"scenario": slug, "kind": "submit", "files": solution}).json()
            url = f"/api/attempts/{attempt['id']}"
            waiting = wait_for(lambda: (v := client.get(url, headers=headers).json())
                               and (v.get("progress") or {}).get("stage") == "reference" and v,
                               timeout=300, what="the submission to wait for the reference run")
            assert waiting["status"] == "queued"
            assert waiting["progress"]["text"] == "preparing the reference run"
            with new_session() as session:
                shown = progress_of(session=session, attempt=session.get(Attempt, attempt["id"])).text
            assert shown.startswith("Preparing the reference run")

            release.set()
            view = wait_for(lambda: (v := client.get(url, headers=headers).json())
                            and v["status"] not in ("queued", "running") and v, timeout=300, every=0.5,
                            what="the verdict")
            assert view["status"] == "passed", view["error"]
            wait_for(lambda: client.get("/readyz").status_code == 200, timeout=30, what="ready")
            assert client.get("/readyz").json()["references"] == {"status": "ok", "waiting_for": []}

            # The matrix completes the reference afterwards; an attempt graded before it is graded
            # again once it is stored, so its bug verdicts come from the matrix.
            def finished_job(kind: str) -> ScenarioJob | None:
                with new_session() as session:
                    job = session.scalar(select(ScenarioJob).where(
                        ScenarioJob.scenario_version_id == version_id, ScenarioJob.kind == kind))
                    return job if job is not None and job.status in ("done", "failed") else None

            validated = wait_for(lambda: finished_job("validate"), timeout=600, every=0.5, what="the matrix")
            assert validated.summary["valid"] is True, validated.summary
            with new_session() as session:
                graded_before_matrix = session.get(Attempt, attempt["id"]).result["provisional"]
            if graded_before_matrix:
                wait_for(lambda: finished_job("rejudge"), timeout=300, every=0.5, what="the regrading")
            with new_session() as session:
                final = session.get(Attempt, attempt["id"])
                assert final.status == "passed" and final.result["provisional"] is False
                assert final.result["bugs"] and all(b["fixed"] for b in final.result["bugs"])
                assert session.get(ScenarioVersion, version_id).reference["complete"] is True
    finally:
        release.set()


@pytest.mark.bwrap
def test_a_queued_grading_goes_before_queued_matrix_runs_on_the_local_pool(
    app_db: None, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    from app.dispatch import dispatcher
    from app.dispatch.local_pool import LocalPool
    from app.scenarios.task_runner import run_job_task
    from app.startup import register_jobs

    version_id = _published_tiny()
    with new_session() as session:
        job = validation.start_validation(session=session, version=session.get(ScenarioVersion, version_id),
                                          user_id=None)
        session.commit()  # no dispatcher is running: the tasks stay in the table
        tasks = {t.name: t.id for t in session.scalars(select(JobTask).where(JobTask.job_id == job.id))}
    assert run_job_task(tasks.pop("solution")) == "done"  # the reference, stored before the matrix
    matrix = sorted(tasks.values())
    assert len(matrix) == 4

    register_jobs()  # as `dojo serve` does before it starts the pool
    pool = LocalPool(concurrency=1, warm=False)
    pool.start()
    monkeypatch.setattr(dispatcher, "_active", pool)
    try:
        for task_id in matrix:  # the thread starts the first one at once; three wait in the queue
            pool.enqueue(task_job(task_id))
        with new_session() as session:  # a candidate's submission of the solution, queued now
            user = create_user(session=session, email=f"o-{uuid.uuid4().hex[:8]}@example.com", password=None,
                               role="candidate")
            files = dict(session.get(ScenarioVersion, version_id).content["solution_files"])
            queued = Attempt(user_id=user.id, scenario_version_id=version_id, kind="submit", files=files)
            session.add(queued)
            session.commit()
            attempt_id = queued.id
        pool.enqueue(grade_job(attempt_id))
        def all_done() -> bool:  # the grading, the matrix and the regrading it queues: nothing left behind
            with new_session() as session:
                open_jobs = session.scalar(select(ScenarioJob.id).where(
                    ScenarioJob.scenario_version_id == version_id, ScenarioJob.status.in_(ACTIVE)).limit(1))
                return open_jobs is None and session.get(Attempt, attempt_id).finished_at is not None

        wait_for(lambda: all_done() or None, timeout=600, every=0.5, what="the pool to finish")
    finally:
        pool.stop()
    with new_session() as session:
        attempt = session.get(Attempt, attempt_id)
        finished = session.scalars(select(JobTask.finished_at).where(JobTask.id.in_(matrix))).all()
    assert attempt.status == "passed"
    # Graded before the matrix, then again once it was stored: its bug verdicts are the matrix's.
    assert attempt.result["provisional"] is False and all(b["fixed"] for b in attempt.result["bugs"])
    assert all(at is not None for at in finished)
    # At most the run already in progress when the submission came finished before its grading started.
    assert sum(at < attempt.started_at for at in finished) <= 1, (attempt.started_at, finished)



@pytest.mark.redis
@pytest.mark.bwrap
def test_a_queued_grading_goes_before_queued_matrix_runs_on_a_celery_worker(tmp_path: Path) -> None:
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir()
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, BROKER_URL=CELERY_REDIS_URL, DOJO_QUEUE=queue,
                   WARM_SANDBOXES="0")
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120, capture_output=True)
    engine = make_engine(url)
    with Session(engine) as session:
        version = add_tiny_version(session, status="published")
        job_id = validation.start_validation(session=session, version=version, user_id=None).id
        tasks = {t.name: t.id for t in session.scalars(select(JobTask).where(JobTask.job_id == job_id))}
        user = create_user(session=session, email="c@example.com", password=None, role="candidate")
        attempt = Attempt(user_id=user.id, scenario_version_id=version.id, kind="submit",
                          files=dict(version.content["solution_files"]))
        session.add(attempt)
        session.commit()
        attempt_id = attempt.id

    # Everything is queued before the worker starts, as the web process sends it: the matrix on the
    # background queue (sent first), the grading then the reference run on the main one, each with its
    # priority's Redis step (app.dispatch.celery_app.send). The grading comes before its reference: it
    # waits, and the worker that stores the reference sends it again.
    sender = Celery("test-sender", broker=CELERY_REDIS_URL)
    matrix = sorted(task_id for name, task_id in tasks.items() if name != "solution")
    for task_id in matrix:
        sender.send_task(JOB_TASK_NAME, args=[task_id], queue=f"{queue}-background",
                         priority=BROKER_PRIORITY[Priority.BACKGROUND])
    sender.send_task(TASK_NAME, args=[attempt_id], queue=queue, priority=BROKER_PRIORITY[Priority.FIRST])
    sender.send_task(JOB_TASK_NAME, args=[tasks["solution"]], queue=queue, priority=BROKER_PRIORITY[Priority.NEXT])
    log = tmp_path / "worker.log"
    worker = start_dojo(["worker", "--concurrency", "1"], env=env, log=log)
    try:
        def matrix_done() -> bool | None:
            with Session(engine) as session:
                job = session.get(ScenarioJob, job_id)
                return job is not None and job.status in ("done", "failed") or None

        wait_for(matrix_done, timeout=600, what="the validation job to finish")
        with Session(engine) as session:
            graded = session.get(Attempt, attempt_id)
            finished = session.scalars(select(JobTask.finished_at).where(JobTask.id.in_(matrix))).all()
        assert graded.status == "passed", log.read_text()[-3000:]
        assert f"attempt {attempt_id}: waits in the queue for its version's reference run" in log.read_text()
        assert graded.tries == 1  # waiting is not a try
        assert all(at is not None and at > graded.started_at for at in finished), (graded.started_at, finished)
    finally:
        kill_group(worker, sig=signal.SIGTERM)
        sender.close()
        engine.dispose()
        broker = redis.Redis.from_url(CELERY_REDIS_URL)
        broker.delete(*broker.keys(f"{queue}*"))
        broker.close()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_web_processes_starting_together_queue_one_validation_per_version(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from app.core.migrate import upgrade_to_head

    if backend == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'dojo.sqlite3'}")
        upgrade_to_head(engine)
    else:
        engine = request.getfixturevalue("postgres_engine")
    with Session(engine) as session:
        version_id = add_tiny_version(session, status="published").id
        session.commit()

    together = threading.Barrier(4)
    queued: list[int] = []

    def start_up() -> None:  # what each process's on_start does, all at the same moment
        with Session(engine, expire_on_commit=False) as session:
            versions = [session.get(ScenarioVersion, version_id)]
            together.wait(timeout=30)
            queued.append(validation.validate_missing_references(session=session, versions=versions))
            session.commit()

    threads = [threading.Thread(target=start_up) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    with Session(engine) as session:
        jobs = session.scalars(select(ScenarioJob).where(ScenarioJob.scenario_version_id == version_id)).all()
        assert sorted(queued) == [0, 0, 0, 1]
        assert [(job.kind, job.status) for job in jobs] == [("validate", "queued")]
        session.query(ScenarioJob).filter_by(scenario_version_id=version_id).delete()
        session.commit()
    if backend == "sqlite":
        engine.dispose()
