"""Validation through a real `dojo worker` on Redis: the tasks run in the worker, the matrix lands in the row."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
import redis
from celery import Celery
from dispatch.processes import dojo_command, dojo_env, kill_group, start_dojo, wait_for
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.db import make_engine
from app.core.paths import ROOT_DIR
from app.scenarios import validation
from app.scenarios.job_kinds import JOB_TASK_NAME
from app.scenarios.job_models import JobTask, ScenarioJob
from app.scenarios.models import ScenarioVersion
from scenarios.jobs_support import add_tiny_version

REDIS_URL = os.environ.get("DOJO_TEST_DISPATCH_REDIS_URL", "redis://127.0.0.1:6379/13")


@pytest.mark.redis
@pytest.mark.bwrap
def test_validation_tasks_run_on_a_celery_worker(tmp_path: Path) -> None:
    broker = redis.Redis.from_url(REDIS_URL)
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir()
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, BROKER_URL=REDIS_URL, DOJO_QUEUE=queue)
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120, capture_output=True)
    engine = make_engine(url)
    with Session(engine) as session:
        version = add_tiny_version(session)
        job_id = validation.start_validation(session=session, version=version, user_id=None).id
        session.commit()
        task_ids = session.scalars(select(JobTask.id).where(JobTask.job_id == job_id)).all()
        version_id = version.id

    log = tmp_path / "worker.log"
    worker = start_dojo(["worker", "--concurrency", "2"], env=env, log=log)
    sender = Celery("test-sender", broker=REDIS_URL)
    try:
        wait_for(lambda: log.exists() and "ready." in log.read_text(), timeout=90, what="the worker to be ready")
        for task_id in task_ids:  # what the web process's dispatcher sends after its commit
            sender.send_task(JOB_TASK_NAME, args=[task_id], queue=queue)

        def finished() -> ScenarioJob | None:
            with Session(engine) as session:
                job = session.get(ScenarioJob, job_id)
                return job if job is not None and job.status in ("done", "failed") else None

        job = wait_for(finished, timeout=300, what="the validation job to finish")
        assert job.status == "done" and job.summary["valid"] is True, (job.error, log.read_text()[-3000:])
        assert job.done == job.total == len(task_ids)
        with Session(engine) as session:
            row = session.get(ScenarioVersion, version_id)
            assert row.validation["valid"] is True and row.reference is not None
            workers = {t.worker_id.split(":")[0] for t in session.scalars(select(JobTask).where(
                JobTask.job_id == job_id))}
        assert workers == {"celery"}
    finally:
        kill_group(worker, sig=signal.SIGTERM)
        sender.close()
        engine.dispose()
        broker.delete(queue)
        broker.close()
