"""The Celery task body, run in-process: time limits end as timeout errors, duplicates are skipped."""

from __future__ import annotations

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from app.attempts.models import Attempt
from app.core.db import new_session
from app.dispatch import celery_worker


def test_task_hitting_soft_time_limit_ends_attempt_as_timeout(
    committed_attempt, monkeypatch: pytest.MonkeyPatch
) -> None:
    def too_slow(**_kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(celery_worker, "grade", too_slow)
    attempt_id = committed_attempt()
    assert celery_worker.grade_attempt_task(attempt_id) == "graded"
    with new_session() as session:
        row = session.get(Attempt, attempt_id)
    assert row.status == "error" and row.error["kind"] == "timeout"
    assert row.worker_id.startswith("celery:")
    assert celery_worker.grade_attempt_task(attempt_id) == "skipped"  # a redelivered message
