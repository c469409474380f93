"""Choosing the dispatcher; a broker that is down never stops the web app or loses an attempt."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import update

from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.core.db import new_session
from app.core.settings import get_settings
from app.dispatch import dispatcher
from app.dispatch.celery_app import get_celery
from app.dispatch.local_pool import LocalPool


def test_unreachable_broker_leaves_attempts_queued_and_app_running(
    committed_attempt, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_settings(), "broker_url", "redis://127.0.0.1:1/0")
    get_celery.cache_clear()
    attempt_id = committed_attempt()
    try:
        started = dispatcher.start()  # start-up recovery tries to send the queued attempt
        assert isinstance(started, dispatcher.CeleryDispatcher)
        dispatcher.enqueue(grade_job(attempt_id))  # what a request does after its commit
        with new_session() as session:
            assert session.get(Attempt, attempt_id).status == "queued"
    finally:
        dispatcher.stop()
        get_celery.cache_clear()
        with new_session() as session:  # not for a later test's pool to grade
            session.execute(update(Attempt).where(Attempt.id == attempt_id).values(status="error"))
            session.commit()


def test_without_broker_the_local_pool_runs_with_one_worker_per_core(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # app_db: the pool's sweepers query the job tables as soon as it starts
    monkeypatch.setattr(get_settings(), "broker_url", "")
    monkeypatch.setattr(get_settings(), "worker_concurrency", 0)
    monkeypatch.setattr("app.attempts.recovery.recover_on_start", lambda *, enqueue: [])
    try:
        pool = dispatcher.start()
        assert isinstance(pool, LocalPool) and pool.concurrency == (os.cpu_count() or 1)
    finally:
        dispatcher.stop()
    assert dispatcher.active() is None


@pytest.mark.bwrap
def test_a_warm_pool_starts_with_every_threads_standby_ready(app_db: None) -> None:
    from app.sandbox.procfs import process_statuses

    pool = LocalPool(concurrency=2, job=lambda _attempt_id: None, warm=True)
    pool.start()
    try:
        assert pool.wait_until_warm(timeout=180)
    finally:
        pool.stop()
    # Stopping the pool ends its standbys: no process of ours is left in a sandbox pid namespace.
    mine = [pid for pid, fields in process_statuses()
            if len(fields.get("NSpid", "").split()) >= 2 and _descends_from(pid, os.getpid())]
    assert mine == []


def _descends_from(pid: int, ancestor: int) -> bool:
    from pathlib import Path

    while pid > 1:
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError):
            return False
        if pid == ancestor:
            return True
    return False
