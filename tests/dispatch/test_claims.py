"""Claiming, heartbeats, finishing and stale sweeps on the Attempt row (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from app.attempts import claims
from app.attempts.models import Attempt
from app.core.db import utcnow
from app.grading.result import GradeResult

from .factories import make_attempt

STALE = 60.0
LONG_AGO = timedelta(seconds=600)


def _claim(db: Session, attempt_id: int, token: str = "w:1", max_tries: int = 2) -> claims.Claim | None:
    return claims.claim(session=db, attempt_id=attempt_id, token=token, stale_after_seconds=STALE, max_tries=max_tries)


def _fresh(db: Session, attempt: Attempt) -> Attempt:
    db.expire_all()
    return db.get(Attempt, attempt.id)


def test_claim_takes_queued_attempt_once(db: Session) -> None:
    attempt = make_attempt(session=db)
    first = _claim(db, attempt.id, "w:1")
    assert first is not None and first.tries == 1
    assert _claim(db, attempt.id, "w:2") is None
    row = _fresh(db, attempt)
    assert (row.status, row.worker_id, row.tries) == ("running", "w:1", 1)
    assert row.started_at is not None and row.heartbeat_at is not None


def test_claim_refuses_finished_attempt(db: Session) -> None:
    for status in ("passed", "failed", "error"):
        attempt = make_attempt(session=db, status=status)
        assert _claim(db, attempt.id) is None
        assert _fresh(db, attempt).status == status


def test_claim_refuses_running_attempt_with_live_heartbeat(db: Session) -> None:
    attempt = make_attempt(session=db, status="running", tries=1, heartbeat_at=utcnow(), worker_id="w:alive")
    assert _claim(db, attempt.id, "w:2") is None
    assert _fresh(db, attempt).worker_id == "w:alive"


def test_claim_takes_over_running_attempt_whose_heartbeat_stopped(db: Session) -> None:
    attempt = make_attempt(session=db, status="running", tries=1, heartbeat_at=utcnow() - LONG_AGO, worker_id="w:dead")
    taken = _claim(db, attempt.id, "w:2")
    assert taken is not None and taken.tries == 2
    assert _fresh(db, attempt).worker_id == "w:2"


def test_claim_closes_attempt_that_killed_its_worker_max_tries_times_as_crash(db: Session) -> None:
    attempt = make_attempt(session=db, status="running", tries=2, heartbeat_at=utcnow() - LONG_AGO, worker_id="w:dead")
    assert _claim(db, attempt.id, "w:3", max_tries=2) is None
    row = _fresh(db, attempt)
    assert row.status == "error" and row.error["kind"] == "crash" and row.finished_at is not None


def test_finish_and_beat_only_work_for_the_claim_holder(db: Session) -> None:
    attempt = make_attempt(session=db)
    mine = _claim(db, attempt.id, "w:1")
    stolen = claims.Claim(attempt_id=attempt.id, token="w:other", tries=1)
    assert claims.beat(session=db, claim=stolen) is False
    assert claims.finish(session=db, claim=stolen, status="passed", result=None, error=None, score=1.0) is False
    assert _fresh(db, attempt).status == "running"
    assert claims.beat(session=db, claim=mine) is True
    failed = GradeResult(status="failed", score=0.25)
    assert claims.finish(session=db, claim=mine, status="failed", result=failed, error=None, score=0.25)
    row = _fresh(db, attempt)
    assert (row.status, row.score, row.result) == ("failed", 0.25, failed.to_dict())
    assert claims.finish(session=db, claim=mine, status="passed", result=None, error=None, score=1.0) is False


def test_requeue_stale_requeues_or_closes_and_leaves_live_ones(db: Session) -> None:
    old = utcnow() - LONG_AGO
    dead_once = make_attempt(session=db, status="running", tries=1, heartbeat_at=old, worker_id="w:a")
    dead_twice = make_attempt(session=db, status="running", tries=2, heartbeat_at=old, worker_id="w:b")
    alive = make_attempt(session=db, status="running", tries=1, heartbeat_at=utcnow(), worker_id="w:c")
    requeued = claims.requeue_stale(session=db, stale_after_seconds=STALE, max_tries=2)
    assert dead_once.id in requeued and dead_twice.id not in requeued and alive.id not in requeued
    assert _fresh(db, dead_once).status == "queued"
    assert _fresh(db, dead_twice).error["kind"] == "crash"
    assert _fresh(db, alive).status == "running"
    # A second sweeper finds nothing left to do for these rows.
    again = claims.requeue_stale(session=db, stale_after_seconds=STALE, max_tries=2)
    assert not {dead_once.id, dead_twice.id, alive.id} & set(again)
