"""The job function called directly: claim, heartbeat, store, idempotence, grader failures."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.attempts.grading import GradeOutcome
from app.attempts.grading_job import grade_attempt
from app.attempts.models import Attempt
from app.core.db import new_session, utcnow
from app.core.settings import get_settings
from app.grading.result import GradeResult, TestResult


class CountingGrader:
    """Records every call; returns a fixed outcome (optionally after running a side effect)."""

    def __init__(self, outcome: GradeOutcome | None = None, side_effect=None) -> None:
        self.calls: list[dict] = []
        self.outcome = outcome or GradeOutcome(status="passed", result=GradeResult(status="passed"),
                                               error=None, score=1.0)
        self.side_effect = side_effect

    def __call__(self, **kwargs) -> GradeOutcome:
        self.calls.append(kwargs)
        if self.side_effect:
            self.side_effect()
        return self.outcome


def _row(attempt_id: int) -> Attempt:
    with new_session() as session:
        return session.get(Attempt, attempt_id)


def test_grade_attempt_stores_outcome_and_never_grades_twice(committed_attempt) -> None:
    attempt_id = committed_attempt(files={"model.py": "print('hi')\n"})
    grader = CountingGrader()
    assert grade_attempt(attempt_id, grader=grader) == "graded"
    assert grade_attempt(attempt_id, grader=grader) == "skipped"
    assert len(grader.calls) == 1
    assert grader.calls[0]["files"] == {"model.py": "print('hi')\n"}
    assert grader.calls[0]["package"].slug == "warm-up"
    row = _row(attempt_id)
    assert (row.status, row.score, row.tries) == ("passed", 1.0, 1)
    assert row.result == GradeResult(status="passed").to_dict()
    assert row.finished_at is not None and row.worker_id.startswith("worker:")


def test_grade_attempt_records_grader_failure_as_sandbox_error(committed_attempt) -> None:
    attempt_id = committed_attempt()

    def broken(**_kwargs):
        raise RuntimeError("/secret/path exploded")

    assert grade_attempt(attempt_id, grader=broken) == "graded"
    row = _row(attempt_id)
    assert row.status == "error" and row.error["kind"] == "sandbox"
    assert "/secret/path" not in row.error["message"]


def test_grade_attempt_discards_result_when_claim_was_taken_over(committed_attempt) -> None:
    attempt_id = committed_attempt()

    def steal() -> None:
        with new_session() as session:
            session.execute(update(Attempt).where(Attempt.id == attempt_id).values(worker_id="worker:thief"))
            session.commit()

    assert grade_attempt(attempt_id, grader=CountingGrader(side_effect=steal)) == "lost"
    row = _row(attempt_id)
    assert row.status == "running" and row.worker_id == "worker:thief" and row.result is None
    with new_session() as session:  # close it, so no pool started by a later test picks it up as stale
        session.execute(update(Attempt).where(Attempt.id == attempt_id).values(status="error"))
        session.commit()


def test_grade_attempt_heartbeats_while_grading(committed_attempt, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_settings(), "heartbeat_seconds", 0.1)
    attempt_id = committed_attempt()
    seen = []

    def slow() -> None:
        seen.append(_row(attempt_id).heartbeat_at)
        time.sleep(0.6)
        seen.append(_row(attempt_id).heartbeat_at)

    grade_attempt(attempt_id, grader=CountingGrader(side_effect=slow))
    assert seen[1] > seen[0]


def test_grade_attempt_gives_up_as_crash_after_max_tries(committed_attempt) -> None:
    long_ago = utcnow() - timedelta(seconds=get_settings().stale_after_seconds * 10)
    attempt_id = committed_attempt(status="running", tries=get_settings().max_tries, heartbeat_at=long_ago,
                                   worker_id="worker:dead")
    grader = CountingGrader()
    assert grade_attempt(attempt_id, grader=grader) == "skipped"
    assert grader.calls == []
    row = _row(attempt_id)
    assert row.status == "error" and row.error["kind"] == "crash"


def test_grade_attempt_writes_coaching_tips_for_the_stored_result(committed_attempt) -> None:
    from app.coaching.service import tips_of

    attempt_id = committed_attempt()
    failing = GradeResult(status="failed", tests=[
        TestResult(id="loss.scale", component="loss", passed=False, message="loss too high", public=True)])
    grader = CountingGrader(GradeOutcome(status="failed", result=failing, error=None, score=0.0))
    assert grade_attempt(attempt_id, grader=grader) == "graded"
    with new_session() as session:
        tips = tips_of(session=session, attempt_id=attempt_id)
    assert tips and any(tip["component"] == "loss" for tip in tips)
