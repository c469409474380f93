"""Celery on the real Redis: the web's sender, and a SIGKILL of the worker holding an attempt mid-grading.

Uses a Redis database of its own and a queue name unique to the test, whose keys it deletes afterwards
(never the whole database: tests in other pytest-xdist workers use it at the same time).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery import Celery
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from app.attempts.job_kinds import GRADE_TASK_NAME as TASK_NAME
from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.core.db import make_engine
from app.core.paths import ROOT_DIR
from app.core.settings import get_settings
from app.dispatch.celery_app import get_celery
from app.dispatch.dispatcher import CeleryDispatcher
from app.users.service import create_user

from .processes import dojo_command, dojo_env, kill_group, parent_pid, start_dojo, wait_for
from .tiny_scenario import publish_tiny, warm_reference

DISPATCH_REDIS_URL = os.environ.get("DOJO_TEST_DISPATCH_REDIS_URL", "redis://127.0.0.1:6379/13")


def _holder_pid(worker_id: str | None) -> int | None:
    """The pool process pid recorded in a Celery claim token (celery:host:pid:nonce)."""
    if not worker_id or not worker_id.startswith("celery:"):
        return None
    return int(worker_id.split(":")[2])


def _delete_queue_keys(broker: redis.Redis, queue: str) -> None:
    """The queue's lists (priorities included) and kombu's bindings for it."""
    keys = list(broker.scan_iter(match=f"*{queue}*"))
    if keys:
        broker.delete(*keys)


@dataclass
class WorkerRig:
    """Real `dojo worker` processes on a queue of their own, and the attempt they are sent."""

    workers: list[subprocess.Popen[bytes]]
    logs: list[Path]
    engine: Engine
    attempt_id: int

    def row(self) -> Attempt:
        with Session(self.engine) as session:
            return session.scalars(select(Attempt).where(Attempt.id == self.attempt_id)).one()

    def holder(self) -> subprocess.Popen[bytes]:
        """The worker whose pool process holds the attempt's claim."""
        return next(w for w in self.workers if w.pid == parent_pid(_holder_pid(self.row().worker_id) or 0))


@contextmanager
def worker_rig(tmp_path: Path, count: int, **env_overrides: str) -> Iterator[WorkerRig]:
    """A fresh data dir with the tiny scenario's reference, one queued attempt sent to `count` workers."""
    broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    data = tmp_path / "data"
    data.mkdir()
    warm_reference()
    url = f"sqlite:///{data / 'dojo.sqlite3'}"
    env = dojo_env(DOJO_DATA_DIR=str(data), DATABASE_URL=url, BROKER_URL=DISPATCH_REDIS_URL, DOJO_QUEUE=queue,
                   HEARTBEAT_SECONDS="0.5", STALE_AFTER_SECONDS="3", MAX_TRIES="2", **env_overrides)
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
        attempt_id = attempt.id
    logs = [tmp_path / f"worker-{n}.log" for n in range(count)]
    workers = [start_dojo(["worker", "--concurrency", "1"], env=env, log=log) for log in logs]
    sender = Celery("test-sender", broker=DISPATCH_REDIS_URL)
    try:
        wait_for(lambda: all(log.exists() and "ready." in log.read_text() for log in logs), timeout=90,
                 what=f"{count} workers to be ready")
        sender.send_task(TASK_NAME, args=[attempt_id], queue=queue)
        yield WorkerRig(workers=workers, logs=logs, engine=engine, attempt_id=attempt_id)
    finally:
        for worker in workers:
            if worker.poll() is None:
                kill_group(worker, sig=signal.SIGTERM)
        sender.close()
        engine.dispose()
        _delete_queue_keys(broker, queue)
        broker.close()


@pytest.mark.redis
@pytest.mark.bwrap
def test_attempt_is_graded_by_other_worker_after_sigkill(app_db: None, tmp_path: Path) -> None:
    with worker_rig(tmp_path, count=2) as rig:
        wait_for(lambda: rig.row().status == "running", timeout=60, what="grading to start")
        holder = rig.holder()
        other = next(w for w in rig.workers if w is not holder)
        kill_group(holder)  # the machine running the grading is gone: main process and pool together

        done = wait_for(lambda: (r := rig.row()).status in ("passed", "failed", "error") and r,
                        timeout=180, what="the other worker to grade the attempt")
        assert done.status == "passed", (done.error, rig.logs[rig.workers.index(other)].read_text()[-3000:])
        assert done.tries == 2
        assert parent_pid(_holder_pid(done.worker_id) or 0) == other.pid
        assert other.poll() is None


@pytest.mark.redis
def test_celery_dispatcher_sends_grading_job_to_configured_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    broker = redis.Redis.from_url(DISPATCH_REDIS_URL)
    queue = f"dojo-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(get_settings(), "broker_url", DISPATCH_REDIS_URL)
    monkeypatch.setenv("DOJO_QUEUE", queue)
    get_celery.cache_clear()
    try:
        CeleryDispatcher().enqueue(grade_job(4242))
        # No such attempt: a practice grading's priority, the queue's list of priority step 3.
        messages = [json.loads(raw) for raw in broker.lrange(f"{queue}\x06\x163", 0, -1)]
        assert len(messages) == 1
        assert messages[0]["headers"]["task"] == TASK_NAME
        assert messages[0]["headers"]["argsrepr"] == "[4242]"
    finally:
        get_celery().close()
        get_celery.cache_clear()
        _delete_queue_keys(broker, queue)
        broker.close()


@pytest.mark.redis
@pytest.mark.bwrap
def test_attempt_that_kills_its_worker_twice_ends_as_crash_error(app_db: None, tmp_path: Path) -> None:
    with worker_rig(tmp_path, count=3) as rig:
        for try_number in (1, 2):  # each worker that picks the attempt up dies while grading it
            wait_for(lambda n=try_number: (r := rig.row()).status == "running" and r.tries == n,
                     timeout=120, what=f"try {try_number} to start")
            kill_group(rig.holder())

        done = wait_for(lambda: (r := rig.row()).status in ("passed", "failed", "error") and r,
                        timeout=120, what="the attempt to be closed instead of retried a third time")
        assert done.status == "error" and done.error is not None and done.error["kind"] == "crash"
        assert done.tries == 2
        assert sum(w.poll() is None for w in rig.workers) == 1  # the survivor closed it and is still serving


@pytest.mark.redis
@pytest.mark.bwrap
def test_celery_worker_grades_in_the_standby_sandbox_it_kept_warm(app_db: None, tmp_path: Path) -> None:
    with worker_rig(tmp_path, count=1, WARM_SANDBOXES="1") as rig:
        done = wait_for(lambda: (r := rig.row()).status in ("passed", "failed", "error") and r,
                        timeout=180, what="the attempt to be graded")
        log = rig.logs[0].read_text()
        assert done.status == "passed", (done.error, log[-3000:])
        assert "job ran in a warm standby sandbox" in log
        assert "could not start a standby sandbox" not in log
