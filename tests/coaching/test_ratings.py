"""Candidates rate the tips of their own attempts (API and form); admins see ratings per rule."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import Account, csrf_from, sign_in

from app.auth.tokens import issue_token
from app.coaching.models import AI_NOTICE, TipRating
from app.coaching.service import coach_attempt, tips_of
from app.core.db import utcnow
from app.core.security import new_token, token_digest
from app.interviews.models import Interview

from . import factories
from .conftest import graded
from .notes_corpus import SAMPLE


def _coached(db: Session, owner_id: int, interview_id: int | None = None) -> int:
    version = factories.builtin_version(db, "leaky-mask")
    owner = db.get(type(factories.user(db)), owner_id)
    row = factories.attempt(db, owner=owner, version=version, notes=SAMPLE, interview_id=interview_id,
                            result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    coach_attempt(session=db, attempt_id=row.id)
    db.commit()
    return row.id


def _bearer(db: Session, account: Account) -> dict[str, str]:
    token = issue_token(session=db, user=account.user)
    db.commit()
    return {"Authorization": f"Bearer {token}"}


def test_candidate_rates_own_tip_and_sees_it_in_the_attempt(
    web_client: TestClient, db: Session, make_account: Callable[..., Account]
) -> None:
    me = make_account("candidate")
    attempt_id = _coached(db, me.user.id)
    headers = _bearer(db, me)
    tips = web_client.get(f"/api/attempts/{attempt_id}", headers=headers).json()["tips"]
    assert {"id", "note", "component", "framing", "pro_tip", "steps", "notice", "source"} <= set(tips[0])
    first = tips[0]["id"]
    response = web_client.post(f"/api/tips/{first}/rating", json={"helpful": False}, headers=headers)
    assert response.status_code == 200 and response.json() == {"id": first, "helpful": False}
    again = web_client.post(f"/api/tips/{first}/rating", json={"helpful": True}, headers=headers)
    assert again.json() == {"id": first, "helpful": True}
    rows = db.scalars(select(TipRating).where(TipRating.tip_id == first)).all()
    assert len(rows) == 1 and rows[0].helpful and rows[0].rules[0] == "note.claim-contradicted"
    assert web_client.get(f"/api/attempts/{attempt_id}", headers=headers).json()["tips"][0]["rating"] is True


def test_only_the_attempts_candidate_may_rate(
    web_client: TestClient, db: Session, make_account: Callable[..., Account]
) -> None:
    owner, stranger, interviewer = make_account("candidate"), make_account("candidate"), make_account("interviewer")
    version = factories.builtin_version(db, "leaky-mask")
    interview = Interview(interviewer_id=interviewer.user.id, candidate_id=owner.user.id,
                          candidate_email=owner.email, scenario_version_id=version.id,
                          invite_token_hash=token_digest(new_token()), invite_expires_at=utcnow(),
                          invite_used_at=utcnow())
    db.add(interview)
    db.flush()
    tip_id = tips_of(session=db, attempt_id=_coached(db, owner.user.id, interview.id))[0]["id"]
    body = {"helpful": True}
    assert web_client.post(f"/api/tips/{tip_id}/rating", json=body, headers=_bearer(db, stranger)).status_code == 404
    assert web_client.post(f"/api/tips/{tip_id}/rating", json=body,
                           headers=_bearer(db, interviewer)).status_code == 403
    assert web_client.post("/api/tips/999999/rating", json=body, headers=_bearer(db, owner)).status_code == 404
    for bad in ({}, {"helpful": "yes"}, {"helpful": True, "extra": 1}):
        assert web_client.post(f"/api/tips/{tip_id}/rating", json=bad, headers=_bearer(db, owner)).status_code == 422
    assert db.scalars(select(TipRating).where(TipRating.tip_id == tip_id)).all() == []


def test_rating_form_works_without_javascript_and_as_an_htmx_fragment(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    me = make_account("candidate")
    tip_id = tips_of(session=db, attempt_id=_coached(db, me.user.id))[0]["id"]
    client = TestClient(web_app)
    sign_in(client, me.email)
    token = csrf_from(client.get("/candidate").text)
    plain = client.post(f"/tips/{tip_id}/rating", data={"helpful": "true", "next": "/candidate", "csrf_token": token},
                        follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"] == f"/candidate#tip-{tip_id}"
    fragment = client.post(f"/tips/{tip_id}/rating", data={"helpful": "false", "next": "/candidate"},
                           headers={"HX-Request": "true", "X-CSRF-Token": token})
    assert fragment.status_code == 200 and fragment.text.lstrip().startswith(f'<article class="tip" id="tip-{tip_id}"')
    assert "Pro tip:" in fragment.text and "AI-generated suggestions, not part of the candidate" in fragment.text
    assert re.search(r'value="false" class="button button-small is-chosen"\s+aria-pressed="true"', fragment.text)
    assert client.post(f"/tips/{tip_id}/rating", data={"helpful": "true"}).status_code == 403  # no CSRF token
    assert client.post(f"/tips/{tip_id}/rating", data={"helpful": "maybe", "csrf_token": token}).status_code == 422


def test_admin_sees_ratings_aggregated_per_rule(
    web_app: FastAPI, web_client: TestClient, db: Session, make_account: Callable[..., Account]
) -> None:
    me, admin = make_account("candidate"), make_account("admin")
    tips = tips_of(session=db, attempt_id=_coached(db, me.user.id))
    headers = _bearer(db, me)
    web_client.post(f"/api/tips/{tips[0]['id']}/rating", json={"helpful": False}, headers=headers)
    web_client.post(f"/api/tips/{tips[1]['id']}/rating", json={"helpful": True}, headers=headers)
    client = TestClient(web_app)
    sign_in(client, admin.email)
    page = client.get("/admin/coaching")
    assert page.status_code == 200
    rows = {m.group(1): re.findall(r"<td>([^<]*)</td>", m.group(2))
            for m in re.finditer(r'<td class="mono">([\w.-]+)</td>(.*?)</tr>', page.text, re.S)}
    assert rows["note.claim-contradicted"][2:] == ["0", "1", "0% of 1"]
    assert rows["note.vague"][2:] == ["1", "1", "50% of 2"]
    assert rows["note.method.tiny-run"][2:] == ["1", "0", "100% of 1"]
    assert list(rows)[0] == "note.claim-contradicted"  # the least helpful first
    candidate = TestClient(web_app)
    sign_in(candidate, me.email)
    assert candidate.get("/admin/coaching").status_code == 403


def test_workspace_results_show_each_tip_with_its_note_rating_buttons_and_the_report_link(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    me = make_account("candidate")
    attempt_id = _coached(db, me.user.id)
    client = TestClient(web_app)
    sign_in(client, me.email)
    panel = client.get(f"/challenges/leaky-mask/attempts/{attempt_id}/panel", headers={"HX-Request": "true"})
    text = html.unescape(panel.text)
    assert text.count('<article class="tip"') == len(tips_of(session=db, attempt_id=attempt_id))
    assert "About your answer to “How did you find the bugs?”" in text
    assert text.count("Pro tip:") == text.count('<article class="tip"')
    assert text.count(AI_NOTICE) == text.count('<article class="tip"')
    assert f'name="next" value="/challenges/leaky-mask?attempt={attempt_id}"' in text
    assert '/coaching/challenges/leaky-mask/report">Your coaching report for this challenge</a>' in text


def test_a_rating_outlives_its_tip_when_the_attempt_is_coached_again(
    web_client: TestClient, db: Session, make_account: Callable[..., Account]
) -> None:
    me = make_account("candidate")
    attempt_id = _coached(db, me.user.id)
    tip_id = tips_of(session=db, attempt_id=attempt_id)[0]["id"]
    web_client.post(f"/api/tips/{tip_id}/rating", json={"helpful": False}, headers=_bearer(db, me))
    coach_attempt(session=db, attempt_id=attempt_id)  # a rejudge writes new tips
    db.commit()
    rating = db.scalars(select(TipRating).where(TipRating.user_id == me.user.id)).one()
    assert rating.tip_id is None and rating.rules[0] == "note.claim-contradicted" and rating.helpful is False
    assert all(t["rating"] is None for t in tips_of(session=db, attempt_id=attempt_id))
