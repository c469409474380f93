"""The interviews API for every role: create, read, review, export as CSV, redeem an invite."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from web.support import unique_email

from app.interviews.models import Interview, Review
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import slug_of
from interviews.conftest import ApiUser
from interviews.factories import add_attempt, package_of, started_interview


def _create(client: TestClient, who: ApiUser, slug: str, email: str | None = None) -> dict[str, object]:
    response = client.post("/api/interviews", headers=who.headers,
                           json={"candidate_email": email or unique_email("cand"), "scenario": slug,
                                 "time_limit_minutes": 45})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def test_interviewer_creates_and_candidate_redeems_through_the_api(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    interviewer = api_user("interviewer")
    slug = slug_of(session=db, version=published_version)
    email = unique_email("newcomer")
    created = _create(web_client, interviewer, slug, email)
    assert str(created["invite_url"]).startswith("http://testserver/invite/")
    assert created["emailed"] is False  # no SMTP_URL: the link is for copying
    token = str(created["invite_url"]).rsplit("/", 1)[1]

    redeemed = web_client.post(f"/api/invites/{token}", json={"password": "a long new password"})
    assert redeemed.status_code == 200, redeemed.text
    body = redeemed.json()
    assert body["interview_id"] == created["id"]
    me = web_client.get("/api/auth/me", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert me.json()["email"] == email and me.json()["role"] == "candidate"
    assert web_client.post(f"/api/invites/{token}", json={"password": "a long new password"}).status_code == 410

    view = web_client.get(f"/api/interviews/{created['id']}", headers=interviewer.headers).json()
    assert view["state"] == "invited" and view["candidate_email"] == email
    assert view["scenario"] == slug and view["version"] == published_version.version
    assert view["attempts"] == [] and view["reviews"] == []
    assert {s["kind"] for s in view["signals"]} >= {"large_paste", "grader_introspection", "solution_only_text"}


def test_existing_account_redeems_with_its_bearer_token(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    interviewer, candidate = api_user("interviewer"), api_user("candidate")
    created = _create(web_client, interviewer, slug_of(session=db, version=published_version), candidate.user.email)
    token = str(created["invite_url"]).rsplit("/", 1)[1]
    other = api_user("candidate")
    assert web_client.post(f"/api/invites/{token}", headers=other.headers).status_code == 403  # someone else's
    redeemed = web_client.post(f"/api/invites/{token}", headers=candidate.headers)
    assert redeemed.status_code == 200, redeemed.text
    assert redeemed.json()["interview_id"] == created["id"]


def test_create_refuses_bad_input_and_candidates(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    interviewer, candidate = api_user("interviewer"), api_user("candidate")
    slug = slug_of(session=db, version=published_version)
    body = {"candidate_email": "x@example.com", "scenario": slug, "time_limit_minutes": 45}
    assert web_client.post("/api/interviews", headers=candidate.headers, json=body).status_code == 404
    unknown = web_client.post("/api/interviews", headers=interviewer.headers, json={**body, "scenario": "nope"})
    assert unknown.status_code == 404 and "Unknown scenario" in unknown.json()["detail"]
    bad = web_client.post("/api/interviews", headers=interviewer.headers, json={**body, "candidate_email": "nope"})
    assert bad.status_code == 422 and "valid candidate email" in bad.json()["detail"]
    short = web_client.post("/api/interviews", headers=interviewer.headers, json={**body, "time_limit_minutes": 1})
    assert short.status_code == 422


def test_read_shows_attempts_with_bug_verdicts_to_owner_sharer_and_admin_only(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    from app.interviews import access

    owner, candidate = api_user("interviewer"), api_user("candidate")
    interview = started_interview(db=db, interviewer=owner.user, candidate=candidate.user, version=published_version)
    first_bug = package_of(published_version).bugs[0].id
    add_attempt(db=db, interview=interview, user=candidate.user, version=published_version, kind="run")
    add_attempt(db=db, interview=interview, user=candidate.user, version=published_version, fixed={first_bug})
    url = f"/api/interviews/{interview.id}"

    view = web_client.get(url, headers=owner.headers).json()
    assert view["state"] == "started"
    assert [a["kind"] for a in view["attempts"]] == ["run", "submit"]
    assert {b["id"]: b["fixed"] for b in view["attempts"][1]["bugs"]}[first_bug] is True
    assert view["score"] == view["attempts"][1]["score"]

    stranger, colleague, admin = api_user("interviewer"), api_user("interviewer"), api_user("admin")
    assert web_client.get(url, headers=stranger.headers).status_code == 404
    assert web_client.get(url, headers=candidate.headers).status_code == 404  # even the interview's own candidate
    assert web_client.get(url, headers=admin.headers).status_code == 200
    assert web_client.get(url, headers=colleague.headers).status_code == 404
    access.share(session=db, interview=interview, email=colleague.user.email)
    db.commit()
    assert web_client.get(url, headers=colleague.headers).status_code == 200
    # The candidate's own attempts API never shows the interviewer's view of them either.
    attempt_id = view["attempts"][1]["id"]
    assert "bugs" not in web_client.get(f"/api/attempts/{attempt_id}", headers=candidate.headers).json()
    assert "bugs" in web_client.get(f"/api/attempts/{attempt_id}", headers=colleague.headers).json()


def test_reviews_are_one_per_reviewer_validated_and_hidden_from_candidates(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    from app.interviews import access

    owner, candidate, colleague = api_user("interviewer"), api_user("candidate"), api_user("interviewer")
    interview = started_interview(db=db, interviewer=owner.user, candidate=candidate.user, version=published_version)
    access.share(session=db, interview=interview, email=colleague.user.email)
    db.commit()
    url = f"/api/interviews/{interview.id}/reviews"
    review = {"rubric": {"finding_bugs": 3, "verification": 4}, "decision": "hire", "notes": "Tested each fix."}

    assert web_client.post(url, headers=candidate.headers, json=review).status_code == 404
    first = web_client.post(url, headers=owner.headers, json=review)
    assert first.status_code == 201, first.text
    assert first.json()["rubric"] == {"finding_bugs": 3, "verification": 4}
    again = web_client.post(url, headers=owner.headers, json={**review, "decision": "strong_hire"})
    assert again.status_code == 201 and again.json()["id"] == first.json()["id"]
    assert web_client.post(url, headers=colleague.headers, json={**review, "decision": "no_hire"}).status_code == 201

    for bad, message in [({"rubric": {"finding_bugs": 5}}, "from 1 to 4"), ({"rubric": {"charm": 2}}, "Unknown rubric"),
                         ({"decision": "maybe"}, "Choose a decision")]:
        refused = web_client.post(url, headers=owner.headers, json={**review, **bad})
        assert refused.status_code == 422 and message in refused.json()["detail"], refused.text

    reviews = web_client.get(f"/api/interviews/{interview.id}", headers=owner.headers).json()["reviews"]
    assert sorted(r["decision"] for r in reviews) == ["no_hire", "strong_hire"]
    assert db.scalar(select(func.count()).select_from(Review).where(Review.interview_id == interview.id)) == 2


def test_csv_lists_visible_interviews_and_defuses_formulas(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    owner, other = api_user("interviewer"), api_user("interviewer")
    slug = slug_of(session=db, version=published_version)
    mine = _create(web_client, owner, slug, "=HYPERLINK(x)@example.com")
    theirs = _create(web_client, other, slug)
    interview = db.get(Interview, mine["id"])
    assert interview is not None
    web_client.post(f"/api/interviews/{mine['id']}/reviews", headers=owner.headers, json={"decision": "hire"})

    response = web_client.get("/api/interviews.csv", headers=owner.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    ids = {int(r["interview"]) for r in rows}
    assert mine["id"] in ids and theirs["id"] not in ids
    row = next(r for r in rows if int(r["interview"]) == mine["id"])
    assert row["candidate"] == "'=hyperlink(x)@example.com"
    assert row["state"] == "invited" and row["scenario"] == slug
    assert row["decisions"].endswith(": Hire")
    admin_rows = list(csv.DictReader(io.StringIO(
        web_client.get("/api/interviews.csv", headers=api_user("admin").headers).text)))
    assert {mine["id"], theirs["id"]} <= {int(r["interview"]) for r in admin_rows}
    assert web_client.get("/api/interviews.csv", headers=api_user("candidate").headers).status_code == 404
