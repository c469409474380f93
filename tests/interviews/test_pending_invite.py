"""Invites before the clock: a pending invite's workspace asks to accept it, and nothing starts until then.

A candidate who already has an account is linked to the interview when it is created, before they
accept. Opening the workspace (or autosaving into it, running, taking a hint) must not show the task,
write a draft or start the clock until the invite is redeemed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, sign_in

from app.attempts.models import Attempt
from app.core.db import utcnow
from app.interviews import service
from app.interviews.models import Interview
from app.scenarios.models import ScenarioVersion
from app.workspace.models import Draft, HintReveal, WorkspaceEvent
from interviews.factories import package_of

HTMX = {"HX-Request": "true"}


@dataclass(frozen=True)
class Pending:
    """An interview invite not accepted yet, for a candidate who already had an account (signed in)."""

    interview: Interview
    client: TestClient
    version: ScenarioVersion


def _client(app: FastAPI, account: Account) -> TestClient:
    client = TestClient(app)
    sign_in(client, account.email)
    return client


@pytest.fixture
def pending(web_app: FastAPI, db: Session, make_account: Callable[..., Account],
            published_version: ScenarioVersion) -> Pending:
    candidate, interviewer = make_account("candidate"), make_account("interviewer")
    interview, _token = service.create_interview(
        session=db, interviewer=interviewer.user, candidate_email=candidate.email, scenario_version=published_version,
        time_limit_minutes=45, expires_in=timedelta(days=2))
    db.commit()
    assert interview.candidate_id == candidate.user.id and interview.invite_used_at is None
    return Pending(interview=interview, client=_client(web_app, candidate),
                   version=published_version)


def _assert_nothing_started(db: Session, interview: Interview) -> None:
    """No clock, no end, and no draft, attempt, hint or editor event in the interview."""
    db.expire_all()
    stored = db.get(Interview, interview.id)
    assert stored is not None and stored.started_at is None and stored.submitted_at is None
    written = {table.__name__: db.scalar(select(func.count()).select_from(table)
                                         .where(table.interview_id == interview.id))
               for table in (Draft, Attempt, HintReveal, WorkspaceEvent)}
    assert written == {"Draft": 0, "Attempt": 0, "HintReveal": 0, "WorkspaceEvent": 0}


def test_opening_a_pending_invites_workspace_asks_to_accept_it_and_starts_nothing(
    pending: Pending, db: Session,
) -> None:
    interview, client, published_version = pending.interview, pending.client, pending.version
    slug_path = f"/challenges/{package_of(published_version).slug}?interview={interview.id}"
    for path in (f"/interviews/{interview.id}/workspace", slug_path):
        opened = client.get(path, follow_redirects=False)
        assert opened.status_code == 303, opened.text[:300]
        assert opened.headers["location"].endswith(f"/invite/interviews/{interview.id}")
        page = client.get(opened.headers["location"])
        assert page.status_code == 200
        assert "Accept the invitation" in page.text and published_version.title in page.text
        assert "45 minutes" in page.text
        assert 'id="brief"' not in page.text and "model.py" not in page.text  # no task before accepting
    _assert_nothing_started(db, interview)


def test_a_pending_invites_workspace_takes_no_autosave_run_hint_or_event(pending: Pending, db: Session) -> None:
    interview, client, published_version = pending.interview, pending.client, pending.version
    token = csrf_from(client.get("/candidate").text)
    slug, query = package_of(published_version).slug, f"?interview={interview.id}"
    form = {"csrf_token": token, "file:model.py": "# written before accepting", "kind": "run", "offer": "x"}
    refusals = [
        client.post(f"/challenges/{slug}/draft{query}", json={"files": {"model.py": "# early"}},
                    headers={"X-CSRF-Token": token}),
        client.post(f"/challenges/{slug}/draft/form{query}", data=form, follow_redirects=False),
        client.post(f"/challenges/{slug}/attempts{query}", data=form, follow_redirects=False),
        client.post(f"/challenges/{slug}/attempts{query}", data=form, headers=HTMX, follow_redirects=False),
        client.post(f"/challenges/{slug}/hint{query}", data=form, follow_redirects=False),
        client.post(f"/challenges/{slug}/events{query}", json={"kind": "paste"}, headers={"X-CSRF-Token": token}),
        client.post(f"/interviews/{interview.id}/finish", data=form, follow_redirects=False),
    ]
    for response in refusals:
        assert response.status_code == 409, (response.request.url, response.status_code, response.text[:300])
        assert "Accept the invitation" in response.text
    _assert_nothing_started(db, interview)


def test_accepting_on_the_page_leads_to_the_lobby_and_start_there_starts_the_clock(
    pending: Pending, db: Session,
) -> None:
    interview, client = pending.interview, pending.client
    page = client.get(f"/invite/interviews/{interview.id}")
    accepted = client.post(f"/invite/interviews/{interview.id}", data={"csrf_token": csrf_from(page.text)},
                           follow_redirects=False)
    assert accepted.status_code == 303
    assert accepted.headers["location"].endswith(f"/invite/interviews/{interview.id}/lobby")
    db.expire_all()
    stored = db.get(Interview, interview.id)
    assert stored.invite_used_at is not None and stored.started_at is None  # accepting is not starting
    # The workspace, by either address, sends the candidate to the lobby until they press Start.
    slug_path = f"/challenges/{package_of(pending.version).slug}?interview={interview.id}"
    for path in (f"/interviews/{interview.id}/workspace", slug_path):
        opened = client.get(path, follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"].endswith("/lobby"), path
    lobby = client.get(accepted.headers["location"])
    assert lobby.status_code == 200 and "45 minutes" in lobby.text and pending.version.title in lobby.text
    assert "The clock has not started" in lobby.text and "Start the interview" in lobby.text
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is None  # reading the lobby starts nothing
    started = client.post(f"/invite/interviews/{interview.id}/start", data={"csrf_token": csrf_from(lobby.text)},
                          follow_redirects=False)
    assert started.status_code == 303 and started.headers["location"].endswith(f"/interviews/{interview.id}/workspace")
    db.expire_all()
    assert db.get(Interview, interview.id).started_at is not None
    workspace = client.get(started.headers["location"])
    assert workspace.status_code == 200 and 'id="brief"' in workspace.text
    again = client.get(f"/invite/interviews/{interview.id}/lobby", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"].endswith(f"/interviews/{interview.id}/workspace")


def test_the_accept_page_refuses_other_peoples_withdrawn_and_expired_invites(
    pending: Pending, web_app: FastAPI, db: Session, make_account: Callable[..., Account],
) -> None:
    interview, other = pending.interview, make_account("candidate")
    intruder = _client(web_app, other)
    token = csrf_from(intruder.get("/candidate").text)
    for response in (intruder.get(f"/invite/interviews/{interview.id}"),
                     intruder.post(f"/invite/interviews/{interview.id}", data={"csrf_token": token}),
                     intruder.get("/invite/interviews/999999999")):
        assert response.status_code == 404, response.text[:300]
    owner = pending.client
    token = csrf_from(owner.get("/candidate").text)
    interview.invite_expires_at = utcnow() - timedelta(minutes=1)
    db.commit()
    expired = owner.post(f"/invite/interviews/{interview.id}", data={"csrf_token": token})
    assert expired.status_code == 410 and "expired" in expired.text
    interview.invite_expires_at, interview.revoked_at = utcnow() + timedelta(days=1), utcnow()
    db.commit()
    withdrawn = owner.get(f"/invite/interviews/{interview.id}")
    assert withdrawn.status_code == 410 and "withdrawn" in withdrawn.text
    db.expire_all()
    assert db.get(Interview, interview.id).invite_used_at is None
