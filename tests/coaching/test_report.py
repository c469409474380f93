"""The printable coaching report, per challenge (the candidate's practice) and per interview."""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from web.support import Account, sign_in

from app.auth.tokens import issue_token
from app.coaching.models import AI_NOTICE
from app.core.db import utcnow
from app.core.security import new_token, token_digest
from app.interviews.models import Interview, InterviewReviewer

from . import factories
from .conftest import graded
from .notes_corpus import SAMPLE


def _client(web_app: FastAPI, account: Account) -> TestClient:
    client = TestClient(web_app)
    sign_in(client, account.email)
    return client


def _practice(db: Session, account: Account) -> None:
    version = factories.builtin_version(db, "leaky-mask")
    start = utcnow() - timedelta(minutes=30)
    factories.attempt(db, owner=account.user, version=version, kind="run", created_at=start,
                      result=graded("leaky-mask", "starter").result)
    factories.attempt(db, owner=account.user, version=version, created_at=start + timedelta(minutes=5),
                      result=graded("leaky-mask", "starter").result, notes={"find": "Poked around."})
    factories.attempt(db, owner=account.user, version=version, created_at=start + timedelta(minutes=20),
                      result=graded("leaky-mask", "mutant:labels-not-shifted").result,
                      notes={**SAMPLE, "verify": "I caught the look-ahead in the causal mask by perturbing later "
                                                 "tokens, then ran it on a tiny dataset."})
    db.commit()


def test_challenge_report_has_strengths_checks_skips_and_practice(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    me = make_account("candidate")
    _practice(db, me)
    page = _client(web_app, me).get("/coaching/challenges/leaky-mask/report")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for heading in ("Strengths", "What was verified", "What was skipped", "What to practise next"):
        assert f">{heading}</h2>" in text
    assert "3 of 4 planted bugs pass their checks on your last submit." in text
    assert "Your notes say you dealt with the causal mask, and the checks agree." in text
    assert "Your notes claim the label shift was dealt with while the checks still failed on it" in text
    assert 'Perturbing later tokens (you wrote "perturbing")' in text
    assert "1 of 2 submit(s) came without a run or scratch experiment" in text
    assert "The scratch console was never used." in text
    assert "The loss and its targets:" in text  # what to practise: the component still failing
    assert AI_NOTICE in text and "css/coaching.css" in text and "data-print" in text
    package_fix = "data[i + 1 : i + 1 + block_size]"
    assert package_fix not in text


def test_challenge_report_is_empty_for_a_new_candidate_and_404_for_an_unknown_challenge(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    factories.builtin_version(db, "leaky-mask")
    db.commit()
    client = _client(web_app, make_account("candidate"))
    assert "No attempts yet" in client.get("/coaching/challenges/leaky-mask/report").text
    assert client.get("/coaching/challenges/no-such-thing/report").status_code == 404


def test_interview_report_is_for_its_candidate_interviewer_and_admins(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    candidate, interviewer = make_account("candidate"), make_account("interviewer")
    other_interviewer, admin = make_account("interviewer"), make_account("admin")
    version = factories.builtin_version(db, "leaky-mask")
    interview = Interview(interviewer_id=interviewer.user.id, candidate_id=candidate.user.id,
                          candidate_email=candidate.email, scenario_version_id=version.id,
                          invite_token_hash=token_digest(new_token()), invite_expires_at=utcnow(),
                          invite_used_at=utcnow())
    db.add(interview)
    db.flush()
    factories.attempt(db, owner=candidate.user, version=version, interview_id=interview.id, notes=SAMPLE,
                      result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    db.commit()
    path = f"/coaching/interviews/{interview.id}/report"
    for account in (candidate, interviewer, admin):
        page = _client(web_app, account).get(path)
        assert page.status_code == 200 and "1 submit(s)" in page.text
    assert _client(web_app, other_interviewer).get(path).status_code == 404
    assert _client(web_app, make_account("candidate")).get(path).status_code == 404


def test_interview_report_follows_the_interview_access_rule_after_a_demotion(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    """A demoted interviewer loses the report of the interviews they created, as every interview page
    refuses them, whether they come with their session cookie, a bearer token or an htmx request; a
    reviewer it was shared with reads it while an interviewer."""
    candidate, interviewer = make_account("candidate"), make_account("interviewer")
    reviewer = make_account("interviewer")
    version = factories.builtin_version(db, "leaky-mask")
    interview = Interview(interviewer_id=interviewer.user.id, candidate_id=candidate.user.id,
                          candidate_email=candidate.email, scenario_version_id=version.id,
                          invite_token_hash=token_digest(new_token()), invite_expires_at=utcnow(),
                          invite_used_at=utcnow())
    db.add(interview)
    db.flush()
    db.add(InterviewReviewer(interview_id=interview.id, user_id=reviewer.user.id))
    factories.attempt(db, owner=candidate.user, version=version, interview_id=interview.id, notes=SAMPLE,
                      result=graded("leaky-mask", "mutant:labels-not-shifted").result)
    token = issue_token(session=db, user=interviewer.user)
    db.commit()
    report_path = f"/coaching/interviews/{interview.id}/report"
    review_path = f"/interviewer/interviews/{interview.id}"
    cookie = _client(web_app, interviewer)
    bearer = TestClient(web_app, headers={"Authorization": f"Bearer {token}"})
    htmx = {"HX-Request": "true"}
    ways = {"cookie": (cookie, {}), "bearer": (bearer, {}), "htmx": (cookie, htmx)}
    for way, (client, headers) in ways.items():
        assert client.get(report_path, headers=headers).status_code == 200, way
    assert _client(web_app, reviewer).get(report_path).status_code == 200

    interviewer.user.role = "candidate"  # demoted by an admin; the session and the token stay valid
    reviewer.user.role = "candidate"
    db.commit()
    for way, (client, headers) in ways.items():
        assert client.get(review_path, headers=headers).status_code == 404, way  # the rule every page uses
        refused = client.get(report_path, headers=headers)
        assert refused.status_code == 404, (way, refused.status_code)
        assert "1 submit(s)" not in refused.text
    assert _client(web_app, reviewer).get(report_path).status_code == 404
    assert _client(web_app, candidate).get(report_path).status_code == 200  # its candidate still reads it


def test_the_report_names_each_submit_by_its_number_in_the_practice_not_its_id(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account]
) -> None:
    someone_else, me = make_account("candidate"), make_account("candidate")
    version = factories.builtin_version(db, "leaky-mask")
    # Another user's attempts first, so database ids and per-challenge numbers differ.
    for _ in range(3):
        factories.attempt(db, owner=someone_else.user, version=version, result=graded("leaky-mask", "starter").result)
    _practice(db, me)  # a Run, then two Submits: attempts 1, 2 and 3 of this practice
    page = _client(web_app, me).get("/coaching/challenges/leaky-mask/report")
    rows = html.unescape(page.text).split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "<td>Submit 2</td>" in rows and "<td>Submit 3</td>" in rows, rows
    assert "#" not in rows and "(version" not in rows  # one version: no version named
