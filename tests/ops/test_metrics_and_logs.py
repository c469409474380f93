"""Metrics by route template and grading stage, request ids in JSON logs that follow an attempt into
its grading, and the sweeper that sends queued attempts whose dispatch failed."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.dispatch_models import AttemptDispatch
from app.attempts.grading import GradeOutcome
from app.attempts.grading_job import grade_attempt
from app.core import logs
from app.core.db import new_session
from app.core.settings import get_settings
from app.grading.result import GradeError
from app.sandbox.progress import Progress


def _admin_token(client: TestClient, account: Account) -> dict[str, str]:
    response = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_metrics_count_requests_by_route_template_for_admins_only(
    web_app: FastAPI, make_account: Callable[..., Account], app_db: None
) -> None:
    client = TestClient(web_app)
    headers = _admin_token(client, make_account("admin"))
    for attempt_id in (101, 102, 103):
        client.get(f"/api/attempts/{attempt_id}", headers=headers)
    candidate = _admin_token(client, make_account("candidate"))
    assert client.get("/metrics", headers=candidate).status_code == 403
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200
    samples = _samples(response.text)
    route = (("method", "GET"), ("route", "/api/attempts/{attempt_id}"), ("status", "404"))
    assert samples[("dojo_http_requests_total", route)] >= 3
    assert not any("/api/attempts/101" in str(labels) for _, labels in samples)  # templates, not paths
    assert ("dojo_queue_depth", ()) in samples
    assert ("dojo_attempts", (("status", "passed"),)) in samples


class StagedGrader:
    """Reports two stages like the real grader, then returns an error outcome of a given kind."""

    def __call__(self, **kwargs: object) -> GradeOutcome:
        progress = kwargs["on_progress"]
        logging.getLogger("test.grader").info("grading inside the worker")
        progress(Progress("sandbox"))  # type: ignore[operator]
        progress(Progress("checking"))  # type: ignore[operator]
        return GradeOutcome(status="error", result=None, error=GradeError(kind="timeout", message="slow"),
                            score=None)


def test_grading_stages_and_error_kinds_are_measured(committed_attempt: Callable[..., int]) -> None:
    from app.ops.metrics import web_registry

    def value(name: str, **labels: str) -> float:
        return web_registry().get_sample_value(name, labels) or 0.0

    before = (value("dojo_grading_seconds_count", stage="sandbox"), value("dojo_grading_errors_total", kind="timeout"))
    assert grade_attempt(committed_attempt(), grader=StagedGrader()) == "graded"
    assert value("dojo_grading_seconds_count", stage="sandbox") == before[0] + 1
    assert value("dojo_grading_seconds_count", stage="checking") >= 1
    assert value("dojo_grading_seconds_count", stage="total") >= 1
    assert value("dojo_grading_errors_total", kind="timeout") == before[1] + 1


def test_responses_carry_a_request_id_and_a_sane_offered_one_is_kept(web_client: TestClient) -> None:
    made = web_client.get("/healthz").headers["X-Request-ID"]
    assert len(made) == 16
    assert web_client.get("/healthz", headers={"X-Request-ID": "lb-7f3a9c21"}).headers["X-Request-ID"] == "lb-7f3a9c21"
    forged = web_client.get("/healthz", headers={"X-Request-ID": "<script>\nINFO fake"}).headers["X-Request-ID"]
    assert "<" not in forged and "\n" not in forged


def test_json_log_lines_carry_the_request_id() -> None:
    stream = io.StringIO()
    logs.configure(get_settings().model_copy(update={"log_format": "json"}))
    handler = logging.getLogger().handlers[0]
    handler.setStream(stream)  # type: ignore[attr-defined]
    try:
        with logs.request_context("req-12345678"):
            logging.getLogger("dojo.test").info("hello %s", "world")
    finally:
        logging.getLogger().handlers.clear()
    line = json.loads(stream.getvalue().strip().splitlines()[-1])
    assert line["message"] == "hello world"
    assert line["request_id"] == "req-12345678"
    assert line["level"] == "INFO" and line["logger"] == "dojo.test"


def test_a_submission_records_its_request_id_with_the_dispatch(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: object
) -> None:
    from app.dispatch import dispatcher
    from app.dispatch.registry import Job

    class Recorder:
        ids: list[int] = []

        def enqueue(self, job: Job) -> None:
            self.ids.append(job.id)

        def stop(self, timeout: float = 10.0) -> None:
            return None

    client = TestClient(web_app)
    headers = _admin_token(client, make_account("candidate"))
    previous, dispatcher._active = dispatcher._active, Recorder()  # type: ignore[assignment]
    try:
        response = client.post("/api/attempts", headers={**headers, "X-Request-ID": "submit-0badc0de"},
                               json={"scenario": "warm-up", "kind": "run"})
    finally:
        dispatcher._active = previous
    assert response.status_code == 202, response.text
    row = db.get(AttemptDispatch, response.json()["id"])
    assert row is not None and row.request_id == "submit-0badc0de" and row.sent_at is not None


def test_the_grading_logs_under_the_request_id_of_the_submission(
    committed_attempt: Callable[..., int], caplog: pytest.LogCaptureFixture
) -> None:
    attempt_id = committed_attempt()
    with new_session() as session:
        session.add(AttemptDispatch(attempt_id=attempt_id, request_id="submit-feedface"))
        session.commit()
    caplog.handler.addFilter(logs.RequestIdFilter())
    with caplog.at_level(logging.INFO):
        assert grade_attempt(attempt_id, grader=StagedGrader()) == "graded"
    inside = [r for r in caplog.records if r.name == "test.grader"]
    assert inside and inside[0].request_id == "submit-feedface"  # type: ignore[attr-defined]
    assert logs.current_request_id() is None  # nothing leaks to the next job of this thread
