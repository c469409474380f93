"""The workspace inside an interview: its own draft, a clock that starts on the first visit, a deadline enforced."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, unique_email

from app.attempts.models import Attempt
from app.core.db import utcnow
from app.core.security import new_token, token_digest
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.users.service import create_user

from .helpers import HTMX, page_csrf, signed_in


def _interview(
    db: Session, candidate: Account, *, minutes: int = 30, started_ago: timedelta | None = None
) -> Interview:
    interviewer = create_user(session=db, email=unique_email("interviewer"), password=None, role="interviewer")
    db.flush()
    interview = Interview(
        interviewer_id=interviewer.id, candidate_id=candidate.user.id, candidate_email=candidate.email,
        scenario_version_id=get_published(session=db, slug="leaky-mask").id, time_limit_minutes=minutes,
        invite_token_hash=token_digest(new_token()), invite_expires_at=utcnow() + timedelta(days=1),
        invite_used_at=utcnow(), started_at=(utcnow() - started_ago) if started_ago is not None else None,
    )
    db.add(interview)
    db.commit()
    return interview


def test_start_in_the_lobby_starts_the_clock_and_the_draft_is_separate_from_practice(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    interview = _interview(db, me)
    client = signed_in(web_app, me)
    # Before Start, the workspace is the lobby's: the clock waits.
    lobby = client.get(f"/interviews/{interview.id}/workspace")
    assert lobby.url.path.endswith(f"/invite/interviews/{interview.id}/lobby") and "Start the interview" in lobby.text
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is None
    client.post(f"/invite/interviews/{interview.id}/start", data={"csrf_token": csrf_from(lobby.text)})
    page, token = page_csrf(client, f"/interviews/{interview.id}/workspace")
    assert "Time left in this interview" in page and 'class="badge badge-interview"' in page
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is not None
    query = f"?interview={interview.id}"
    client.post(f"/challenges/leaky-mask/draft/form{query}", data={"csrf_token": token, "file:model.py": "# in"})
    assert "# in" in client.get(f"/interviews/{interview.id}/workspace").text
    assert "# in" not in client.get("/challenges/leaky-mask").text  # practice keeps its own draft
    client.post(f"/challenges/leaky-mask/attempts{query}", data={"csrf_token": token, "kind": "run"}, headers=HTMX)
    attempt = db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).one()
    assert attempt.interview_id == interview.id and attempt.files["model.py"] == "# in"


def test_after_the_deadline_runs_submits_and_edits_are_refused_and_the_draft_is_kept(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    interview = _interview(db, me, minutes=30, started_ago=timedelta(minutes=10))
    client = signed_in(web_app, me)
    query = f"?interview={interview.id}"
    _, token = page_csrf(client, f"/interviews/{interview.id}/workspace")
    client.post(f"/challenges/leaky-mask/draft/form{query}", data={"csrf_token": token, "file:model.py": "# last"})
    db.get(Interview, interview.id).started_at = utcnow() - timedelta(minutes=31)
    db.commit()
    late = client.post(f"/challenges/leaky-mask/attempts{query}", data={"csrf_token": token, "kind": "submit",
                                                                          "file:model.py": "# too late"}, headers=HTMX)
    assert "Time is up: this interview ended at" in late.text and late.headers["HX-Retarget"] == "#workspace-notice"
    save = client.post(f"/challenges/leaky-mask/draft{query}", json={"files": {"model.py": "# too late"}},
                       headers={"X-CSRF-Token": token})
    assert save.status_code == 409 and "Time is up" in save.json()["detail"]
    page = client.get(f"/interviews/{interview.id}/workspace").text
    assert "Time is up: this interview ended at" in page and "The editor is read-only now." in page
    assert "# last" in page and "# too late" not in page
    assert 'id="submit-button"' in page and "disabled" in page.split('id="submit-button"')[1].split(">")[0]
    assert db.scalars(select(Attempt).where(Attempt.user_id == me.user.id)).all() == []


def test_a_click_within_the_grace_after_the_deadline_still_counts(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    interview = _interview(db, me, minutes=30, started_ago=timedelta(minutes=30, seconds=10))
    client = signed_in(web_app, me)
    _, token = page_csrf(client, f"/interviews/{interview.id}/workspace")
    response = client.post(f"/challenges/leaky-mask/attempts?interview={interview.id}",
                           data={"csrf_token": token, "kind": "submit"}, headers=HTMX)
    assert 'id="results-body"' in response.text


def test_the_api_enforces_the_deadline_too(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    interview = _interview(db, me, minutes=30, started_ago=timedelta(hours=2))
    client = TestClient(web_app)
    token = client.post("/api/auth/token", json={"email": me.email, "password": me.password}).json()["access_token"]
    response = client.post("/api/attempts", json={"scenario": "leaky-mask", "interview": interview.id},
                           headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 409 and "Time is up" in response.json()["detail"]


def test_someone_elses_interview_workspace_is_not_found(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    owner, other = make_account("candidate"), make_account("candidate")
    interview = _interview(db, owner)
    client = signed_in(web_app, other)
    assert client.get(f"/interviews/{interview.id}/workspace").status_code == 404
    assert client.get(f"/challenges/leaky-mask?interview={interview.id}").status_code == 404
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is None


def test_ending_the_interview_early_makes_the_workspace_read_only(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    interview = _interview(db, me, minutes=30, started_ago=timedelta(minutes=5))
    client = signed_in(web_app, me)
    page, token = page_csrf(client, f"/interviews/{interview.id}/workspace")
    assert ">End interview</button>" in page
    ended = client.post(f"/interviews/{interview.id}/finish", data={"csrf_token": token}, follow_redirects=False)
    assert ended.status_code == 303
    page = client.get(f"/interviews/{interview.id}/workspace").text
    assert "You ended this interview at" in page and ">End interview</button>" not in page
    late = client.post(f"/challenges/leaky-mask/attempts?interview={interview.id}",
                       data={"csrf_token": token, "kind": "run"}, follow_redirects=False)
    assert late.status_code == 409 and "You ended this interview" in late.text
