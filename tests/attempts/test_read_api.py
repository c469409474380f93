"""GET /api/attempts/{id}: who may read an attempt and what each role sees."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching.models import AI_NOTICE, CoachingTip
from app.core.db import utcnow
from app.core.security import new_token, token_digest
from app.interviews.models import Interview
from app.scenarios.service import get_published

GRADED_REPORT = {
    "status": "failed",
    "error": None,
    "score": 0.5,
    "tests": [
        {"id": "loss-shape", "component": "loss", "passed": True, "message": "Loss is a scalar.", "public": True},
        {"id": "pos-order-sensitive", "component": "positional", "passed": False,
         "message": "Add the position embedding to the token embedding.", "public": False},
    ],
    "training": {"steps": [0, 200], "train_loss": [None, 3.0], "val_loss": [4.1, 3.1],
                 "baseline_val_loss": [4.1, 2.5], "final_val_loss": 3.1, "baseline_final_val_loss": 2.5,
                 "sample": "to be or", "baseline_sample": "to be or not to be", "baseline_leak_probe_loss": 3.6},
    "bugs": [{"id": "pos-not-added", "component": "positional", "title": "Position embeddings never added",
              "fixed": False}],
    "regressions": [],
}


def _graded_attempt(db: Session, *, user_id: int, interview_id: int | None = None) -> Attempt:
    version = get_published(session=db, slug="warm-up")
    attempt = Attempt(
        user_id=user_id, scenario_version_id=version.id, interview_id=interview_id, kind="submit",
        status="failed", files={"model.py": "x"}, notes={}, result=GRADED_REPORT, score=0.5,
        finished_at=utcnow(),
    )
    db.add(attempt)
    db.flush()
    db.add(CoachingTip(attempt_id=attempt.id, source="rules", component="positional",
                       framing="Frame your answer around position.", pro_tip="Check order.", steps=["a", "b", "c"]))
    db.commit()
    return attempt


def _interview(db: Session, *, interviewer_id: int, candidate_id: int) -> Interview:
    version = get_published(session=db, slug="warm-up")
    interview = Interview(
        interviewer_id=interviewer_id, candidate_id=candidate_id, candidate_email="c@example.com",
        scenario_version_id=version.id, invite_token_hash=token_digest(new_token()),
        invite_expires_at=utcnow() + timedelta(days=1), invite_used_at=utcnow(),  # accepted
    )
    db.add(interview)
    db.flush()
    return interview


def test_candidate_reads_own_attempt_without_bug_ids_or_hidden_test_details(
    client, make_user, builtin_slugs, db: Session
) -> None:
    candidate = make_user()
    attempt = _graded_attempt(db, user_id=candidate.user.id)
    response = client.get(f"/api/attempts/{attempt.id}", headers=candidate.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "failed" and body["scenario"] == "warm-up" and body["kind"] == "submit"
    assert "bugs" not in body and "score" not in body
    text = json.dumps(body)
    for secret in ("pos-not-added", "pos-order-sensitive", "Add the position embedding"):
        assert secret not in text
    hidden = [t for t in body["tests"] if t["hidden"]]
    assert hidden == [{"id": "hidden-1", "component": "positional", "passed": False, "status": "failed",
                       "reason": None, "message": "Hidden check failed.", "hidden": True}]
    assert {"id": "loss-shape", "component": "loss", "passed": True, "status": "passed", "reason": None,
            "message": "Loss is a scalar.", "hidden": False} in body["tests"]
    assert body["training"]["final_val_loss"] == 3.1 and body["training"]["baseline_final_val_loss"] == 2.5
    assert body["training"]["baseline_sample"] == "to be or not to be"  # the known-good run's sample is shown
    assert "baseline_leak_probe_loss" not in body["training"]
    assert body["tips"][0]["notice"] == AI_NOTICE


def test_candidate_gets_404_for_someone_elses_attempt(client, make_user, builtin_slugs, db: Session) -> None:
    owner, other = make_user(), make_user()
    attempt = _graded_attempt(db, user_id=owner.user.id)
    assert client.get(f"/api/attempts/{attempt.id}", headers=other.headers).status_code == 404
    assert client.get("/api/attempts/999999", headers=other.headers).status_code == 404


def test_interviewer_reads_attempts_of_own_interview_with_bugs_and_score(
    client, make_user, builtin_slugs, db: Session
) -> None:
    candidate, interviewer, stranger = make_user(), make_user("interviewer"), make_user("interviewer")
    interview = _interview(db, interviewer_id=interviewer.user.id, candidate_id=candidate.user.id)
    attempt = _graded_attempt(db, user_id=candidate.user.id, interview_id=interview.id)
    body = client.get(f"/api/attempts/{attempt.id}", headers=interviewer.headers).json()
    assert body["bugs"] == [{**GRADED_REPORT["bugs"][0], "verifiable": True, "reason": None, "verdict": "not_fixed"}]
    assert body["score"] == 0.5
    assert body["training"]["baseline_sample"] == "to be or not to be"
    assert {t["id"] for t in body["tests"]} == {"loss-shape", "pos-order-sensitive"}
    assert client.get(f"/api/attempts/{attempt.id}", headers=stranger.headers).status_code == 404


def test_interviewer_cannot_read_practice_attempts_but_admin_can(
    client, make_user, builtin_slugs, db: Session
) -> None:
    candidate, interviewer, admin = make_user(), make_user("interviewer"), make_user("admin")
    attempt = _graded_attempt(db, user_id=candidate.user.id)
    assert client.get(f"/api/attempts/{attempt.id}", headers=interviewer.headers).status_code == 404
    body = client.get(f"/api/attempts/{attempt.id}", headers=admin.headers).json()
    assert body["bugs"][0]["id"] == "pos-not-added"


def test_submit_for_interview_pins_its_version_and_interviewer_sees_it(
    client, make_user, builtin_slugs, recorder, db: Session
) -> None:
    candidate, interviewer, intruder = make_user(), make_user("interviewer"), make_user()
    interview = _interview(db, interviewer_id=interviewer.user.id, candidate_id=candidate.user.id)
    db.commit()
    body = {"scenario": "warm-up", "kind": "submit", "interview": interview.id}
    assert client.post("/api/attempts", json=body, headers=intruder.headers).status_code == 404
    created = client.post("/api/attempts", json=body, headers=candidate.headers)
    assert created.status_code == 202
    seen = client.get(f"/api/attempts/{created.json()['id']}", headers=interviewer.headers).json()
    assert seen["status"] == "queued" and seen["interview"] == interview.id
