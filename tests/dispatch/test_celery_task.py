"""The Celery task body, run in-process: time limits end as timeout errors, duplicates are skipped."""

from __future__ import annotations

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from app import worker as celery_worker
from app.attempts import grading_job
from app.attempts.job_kinds import GRADE_TASK_NAME
from app.attempts.models import Attempt
from app.core.db import new_session


def test_task_hitting_soft_time_limit_ends_attempt_as_timeout(
    committed_attempt, monkeypatch: pytest.MonkeyPatch
) -> None:
    def too_slow(**_kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(grading_job, "grade", too_slow)
    attempt_id = committed_attempt()
    assert celery_worker.tasks[GRADE_TASK_NAME](attempt_id) == "graded"
    with new_session() as session:
        row = session.get(Attempt, attempt_id)
    assert row.status == "error" and row.error["kind"] == "timeout"
    assert row.worker_id.startswith("celery:")
    assert celery_worker.tasks[GRADE_TASK_NAME](attempt_id) == "skipped"  # a redelivered message
