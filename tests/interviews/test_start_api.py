"""POST /api/interviews/{id}/start: the candidate's API client starts the clock, as the lobby's Start does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account

from app.core.db import as_utc, utcnow
from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from interviews.factories import package_of


def _bearer(client: TestClient, account: Account) -> dict[str, str]:
    token = client.post("/api/auth/token", json={"email": account.email, "password": account.password})
    assert token.status_code == 200, token.text
    return {"Authorization": f"Bearer {token.json()['access_token']}"}


def _accepted(db: Session, make_account: Callable[..., Account], version: ScenarioVersion) -> tuple[Interview, Account]:
    candidate, interviewer = make_account("candidate"), make_account("interviewer")
    interview, token = service.create_interview(
        session=db, interviewer=interviewer.user, candidate_email=candidate.email, scenario_version=version,
        time_limit_minutes=30, expires_in=timedelta(days=2))
    service.redeem_invite(session=db, token=token, password=None, signed_in=candidate.user)
    db.commit()
    assert interview.started_at is None
    return interview, candidate


def test_the_candidate_starts_the_clock_through_the_api_once(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _accepted(db, make_account, published_version)
    client = TestClient(web_app)
    headers = _bearer(client, candidate)
    first = client.post(f"/api/interviews/{interview.id}/start", headers=headers)
    assert first.status_code == 200, first.text
    body = first.json()
    started, ends = datetime.fromisoformat(body["started_at"]), datetime.fromisoformat(body["deadline"])
    assert ends - started == timedelta(minutes=30) and body["time_limit_minutes"] == 30
    assert abs((started - utcnow()).total_seconds()) < 60
    again = client.post(f"/api/interviews/{interview.id}/start", headers=headers)
    assert again.status_code == 200 and again.json()["started_at"] == body["started_at"]  # the first start stays
    db.expire_all()
    assert as_utc(db.get(Interview, interview.id).started_at) == started  # type: ignore[union-attr, arg-type]


def test_only_the_candidate_starts_and_never_a_closed_interview(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _accepted(db, make_account, published_version)
    client = TestClient(web_app)
    for other in (make_account("candidate"), make_account("interviewer")):
        refused = client.post(f"/api/interviews/{interview.id}/start", headers=_bearer(client, other))
        assert refused.status_code == 404, refused.text
    assert client.post(f"/api/interviews/{interview.id}/start").status_code == 401
    interview.revoked_at = utcnow()
    db.commit()
    closed = client.post(f"/api/interviews/{interview.id}/start", headers=_bearer(client, candidate))
    assert closed.status_code == 409 and "revoked" in closed.json()["detail"]
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is None  # type: ignore[union-attr]


def test_an_attempt_posted_before_start_starts_the_clock_too(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    interview, candidate = _accepted(db, make_account, published_version)
    client = TestClient(web_app)
    posted = client.post("/api/attempts", headers=_bearer(client, candidate), json={
        "scenario": package_of(published_version).slug, "kind": "run", "interview": interview.id, "files": {}})
    assert posted.status_code == 202, posted.text
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is not None  # type: ignore[union-attr]
