"""Submissions through the API, graded by the local pool that the app's lifespan starts.

A burst of real submissions of a tiny scenario goes through the API, the pool and the bubblewrap
grader, with duplicate deliveries and a recovery pass thrown in: none lost, none graded twice.

BURST is 8, four times the pool's two threads: when the duplicates and the recovery pass arrive, the
first attempts have been taken by the threads (their duplicates are queued again behind the burst and
must be refused by the claim) and the rest are still waiting (their duplicates must be dropped by the
queue), the two cases a larger burst only repeats; half are fixes, half the broken starter.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.attempts import grading, recovery
from app.attempts import grading_job as jobs
from app.attempts.grading import GradeOutcome
from app.attempts.job_kinds import grade_job
from app.attempts.models import Attempt
from app.auth.tokens import issue_token
from app.core.db import new_session
from app.dispatch import dispatcher as dispatcher_module
from app.main import create_app
from app.users.service import create_user

from .tiny_scenario import SLUG, publish_tiny, tiny_package, warm_reference

MARK = "# burst-attempt {n}\n"
FINISHED = ("passed", "failed", "error")
BURST = 8  # an even number: pairs of a submitted fix and a run of the starter


def _candidates(count: int) -> list[dict[str, str]]:
    headers = []
    with new_session() as session:
        for _ in range(count):
            user = create_user(session=session, email=f"b-{uuid.uuid4().hex[:10]}@example.com", password=None,
                               role="candidate")
            headers.append({"Authorization": f"Bearer {issue_token(session=session, user=user)}"})
        session.commit()
    return headers


def _marker(files: dict[str, str]) -> int:
    return int(files["model.py"].split("\n", 1)[0].rsplit(" ", 1)[1])


def _wait_finished(ids: Iterable[int], timeout: float) -> list[Attempt]:
    ids = list(ids)
    deadline = time.monotonic() + timeout
    while True:
        with new_session() as session:
            rows = list(session.scalars(select(Attempt).where(Attempt.id.in_(ids))).all())
        if all(r.status in FINISHED for r in rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.25)


def _statuses_once_one_is_taken(ids: Iterable[int], timeout: float = 120) -> Counter[str]:
    ids = list(ids)
    deadline = time.monotonic() + timeout
    while True:
        with new_session() as session:
            statuses = Counter(session.scalars(select(Attempt.status).where(Attempt.id.in_(ids))).all())
        if statuses["queued"] < len(ids) or time.monotonic() > deadline:
            return statuses
        time.sleep(0.05)


def _submit_all(
    client: TestClient, headers: list[dict[str, str]], model: str, kind: str, first: int = 0
) -> dict[int, int]:
    ids = {}
    for n, header in enumerate(headers, start=first):
        body = {"scenario": SLUG, "kind": kind, "files": {"model.py": MARK.format(n=n) + model}}
        response = client.post("/api/attempts", json=body, headers=header)
        assert response.status_code == 202, response.text
        ids[n] = response.json()["id"]
    return ids


@pytest.mark.bwrap
def test_burst_of_real_submissions_all_finish_and_none_is_graded_twice(
    app_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with new_session() as session:
        version = publish_tiny(session=session)
        session.commit()
        solution = version.content["solution_files"]["model.py"]
    starter_model = tiny_package().starter_files["model.py"]
    warm_reference()
    graded: Counter[int] = Counter()
    lock = threading.Lock()
    real_grade = grading.grade

    def counting_grade(**kwargs) -> GradeOutcome:
        with lock:
            graded[_marker(kwargs["files"])] += 1
        return real_grade(**kwargs)

    monkeypatch.setattr(jobs, "grade", counting_grade)
    headers = _candidates(BURST)
    with TestClient(create_app()) as client:  # the lifespan starts the local pool
        pool = dispatcher_module.active()
        assert pool is not None and pool.concurrency == (os.cpu_count() or 1)
        # Even-numbered candidates submit the fix, odd-numbered ones run the broken starter.
        ids = {}
        for n in range(0, BURST, 2):
            ids.update(_submit_all(client, [headers[n]], solution, "submit", first=n))
            ids.update(_submit_all(client, [headers[n + 1]], starter_model, "run", first=n + 1))
        # Duplicate deliveries (a redelivered message, a restart's recovery) must not grade twice. They
        # meet both kinds of attempt: some already taken by the pool's threads, the rest still queued.
        statuses = _statuses_once_one_is_taken(ids.values())
        assert "queued" in statuses and set(statuses) - {"queued"}, statuses
        for attempt_id in ids.values():
            pool.enqueue(grade_job(attempt_id))
        recovery.recover_on_start(enqueue=pool.enqueue)
        rows = {r.id: r for r in _wait_finished(ids.values(), timeout=900)}
        views = [client.get(f"/api/attempts/{ids[n]}", headers=headers[n]).json() for n in range(2)]

    assert len(rows) == BURST
    expected = {n: "passed" if n % 2 == 0 else "failed" for n in range(BURST)}
    assert {n: rows[ids[n]].status for n in range(BURST)} == expected
    assert all(r.tries == 1 and r.worker_id.startswith("local:") for r in rows.values())
    assert graded == Counter(dict.fromkeys(range(BURST), 1))
    assert all(v["tests"] and v["training"]["final_val_loss"] is not None for v in views)
    hidden_ids = {t["id"] for t in rows[ids[0]].result["tests"] if not t["public"]}
    bug_ids = {b["id"] for b in rows[ids[0]].result["bugs"]}
    assert hidden_ids and bug_ids
    for secret in hidden_ids | bug_ids:  # the candidate's view of a real result names neither
        assert secret not in json.dumps(views[0])
    assert any(t["hidden"] for t in views[0]["tests"])  # a submit runs hidden tests...
    assert not any(t["hidden"] for t in views[1]["tests"])  # ...a run only the public ones
