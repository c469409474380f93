"""Celery on the real Redis: the web's sender, and a SIGKILL of the worker holding an attempt mid-grading.

Uses a Redis database of its own (flushed before and after) and a queue name unique to the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
import redis
from celery import Celery
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.core.db import make_engine
from app.core.paths import ROOT_DIR
from app.core.settings import get_settings
from app.dispatch.celery_app import TASK_NAME, get_celery
from app.dispatch.dispatcher import CeleryDispatcher
from app.users.service import create_user

from .processes import dojo_command, dojo_env, kill_group, parent_pid, start_dojo, wait_for
from .tiny_scenario import copy_reference, publish_tiny, warm_reference

DISPATCH_REDIS_URL = os.environ.get("DOJO_TEST_DISPATCH_REDIS_URL", "redis://127.0.0.1:6379/13")


def _holder_pid(worker_id: str | None) -> int | None:
    """The pool process pid recorded in a Celery claim token (celery:host:pid:nonce)."""
    if not worker_id or not worker_id.startswith("celery:"):
        return None
    return int(worker_id.split(":")[2])


def _queued_attempt_for_workers(tmp_path: Path) -> tuple[redis.Redis, str, dict[str, str], Engine, int]:
    """A fresh data dir with the tiny scenario's reference, one queued attempt, and the workers' env."""
    broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
    broker.flushdb()
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir()
    warm_reference(Path(os.environ["DOJO_DATA_DIR"]))
    copy_reference(Path(os.environ["DOJO_DATA_DIR"]), data)
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, BROKER_URL=DISPATCH_REDIS_URL, DOJO_QUEUE=queue,
                   HEARTBEAT_SECONDS="0.5", STALE_AFTER_SECONDS="3", MAX_TRIES="2")
    subprocess.run([*dojo_command(), "migrate"], cwd=ROOT_DIR, env=env, check=True, timeout=120,
                   capture_output=True)
    engine = make_engine(url)
    with Session(engine) as session:
        version = publish_tiny(session=session)
        user = create_user(session=session, email="celery@example.com", password=None, role="candidate")
        attempt = Attempt(user_id=user.id, scenario_version_id=version.id, kind="submit", status="queued",
                          files=dict(version.content["solution_files"]))
        session.add(attempt)
        session.commit()
        return broker, queue, env, engine, attempt.id


@pytest.mark.redis
@pytest.mark.bwrap
def test_attempt_is_graded_by_other_worker_after_sigkill(app_db: None, tmp_path: Path) -> None:
    broker, queue, env, engine, attempt_id = _queued_attempt_for_workers(tmp_path)

    def row() -> Attempt:
        with Session(engine) as session:
            return session.scalars(select(Attempt).where(Attempt.id == attempt_id)).one()

    logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
    workers = [start_dojo(["worker", "--concurrency", "1"], env=env, log=log) for log in logs]
    sender = Celery("test-sender", broker=DISPATCH_REDIS_URL)
    try:
        wait_for(lambda: all("ready." in log.read_text() for log in logs if log.exists()) and len(logs) == 2
                 and all(log.exists() for log in logs), timeout=60, what="both workers to be ready")
        sender.send_task(TASK_NAME, args=[attempt_id], queue=queue)
        first = wait_for(lambda: row() if row().status == "running" else None, timeout=60, what="grading to start")
        holder = next(w for w in workers if w.pid == parent_pid(_holder_pid(first.worker_id) or 0))
        other = next(w for w in workers if w is not holder)
        kill_group(holder)  # the machine running the grading is gone: main process and pool together

        done = wait_for(lambda: row() if row().status in ("passed", "failed", "error") else None,
                        timeout=180, what="the other worker to grade the attempt")
        assert done.status == "passed", (done.error, logs[workers.index(other)].read_text()[-3000:])
        assert done.tries == 2
        assert parent_pid(_holder_pid(done.worker_id) or 0) == other.pid
        assert other.poll() is None
    finally:
        for worker in workers:
            if worker.poll() is None:
                kill_group(worker, sig=signal.SIGTERM)
        sender.close()
        engine.dispose()
        broker.flushdb()
        broker.close()


@pytest.mark.redis
def test_celery_dispatcher_sends_grading_job_to_configured_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
    broker.flushdb()
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(get_settings(), "broker_url", DISPATCH_REDIS_URL)
    monkeypatch.setenv("DOJO_QUEUE", queue)
    get_celery.cache_clear()
    try:
        CeleryDispatcher().enqueue(4242)
        messages = [json.loads(raw) for raw in broker.lrange(queue, 0, -1)]
        assert len(messages) == 1
        assert messages[0]["headers"]["task"] == TASK_NAME
        assert messages[0]["headers"]["argsrepr"] == "[4242]"
    finally:
        get_celery().close()
        get_celery.cache_clear()
        broker.flushdb()
        broker.close()


@pytest.mark.redis
@pytest.mark.bwrap
def test_attempt_that_kills_its_worker_twice_ends_as_crash_error(app_db: None, tmp_path: Path) -> None:
    broker, queue, env, engine, attempt_id = _queued_attempt_for_workers(tmp_path)

    def row() -> Attempt:
        with Session(engine) as session:
            return session.scalars(select(Attempt).where(Attempt.id == attempt_id)).one()

    logs = [tmp_path / f"worker-{n}.log" for n in range(3)]
    workers = [start_dojo(["worker", "--concurrency", "1"], env=env, log=log) for log in logs]
    sender = Celery("test-sender", broker=DISPATCH_REDIS_URL)
    try:
        wait_for(lambda: all(log.exists() and "ready." in log.read_text() for log in logs), timeout=90,
                 what="three workers to be ready")
        sender.send_task(TASK_NAME, args=[attempt_id], queue=queue)
        for try_number in (1, 2):  # each worker that picks the attempt up dies while grading it
            running = wait_for(lambda n=try_number: (r := row()).status == "running" and r.tries == n and r,
                               timeout=120, what=f"try {try_number} to start")
            holder = next(w for w in workers if w.pid == parent_pid(_holder_pid(running.worker_id) or 0))
            kill_group(holder)

        done = wait_for(lambda: row() if row().status in ("passed", "failed", "error") else None,
                        timeout=120, what="the attempt to be closed instead of retried a third time")
        assert done.status == "error" and done.error is not None and done.error["kind"] == "crash"
        assert done.tries == 2
        assert sum(w.poll() is None for w in workers) == 1  # the survivor closed it and is still serving
    finally:
        for worker in workers:
            if worker.poll() is None:
                kill_group(worker, sig=signal.SIGTERM)
        sender.close()
        engine.dispose()
        broker.flushdb()
        broker.close()
