"""GET /api/rubric: an API client can read the criteria a review must name (ids, titles, levels)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.interviews import reviews
from app.interviews.rubric import DEFAULT_RUBRIC
from app.scenarios.models import ScenarioVersion
from interviews.conftest import ApiUser
from interviews.factories import started_interview

CUSTOM = [{"title": "Debugging under time pressure", "levels": ["Stalled.", "Slow.", "Steady.", "Fast and sure."]},
          {"id": "communication", "title": "Communication",
           "levels": ["Silent.", "Terse.", "Clear.", "Clear and concise."]}]


def test_reviewers_read_the_default_criteria_with_their_levels(
    web_client: TestClient, api_user: Callable[[str], ApiUser],
) -> None:
    response = web_client.get("/api/rubric", headers=api_user("interviewer").headers)
    assert response.status_code == 200, response.text
    criteria = response.json()["criteria"]
    assert [c["id"] for c in criteria] == [c["id"] for c in DEFAULT_RUBRIC]
    first = criteria[0]
    assert first["title"] == DEFAULT_RUBRIC[0]["title"]
    assert first["levels"] == [{"level": n, "description": text}
                               for n, text in enumerate(DEFAULT_RUBRIC[0]["levels"], start=1)]


def test_only_reviewers_may_read_it(web_client: TestClient, api_user: Callable[[str], ApiUser]) -> None:
    assert web_client.get("/api/rubric").status_code == 401
    assert web_client.get("/api/rubric", headers=api_user("candidate").headers).status_code == 404
    assert web_client.get("/api/rubric", headers=api_user("admin").headers).status_code == 200


def test_an_edited_rubric_is_what_the_api_lists_and_its_ids_are_what_a_review_names(
    web_client: TestClient, db: Session, api_user: Callable[[str], ApiUser], published_version: ScenarioVersion,
) -> None:
    admin, owner, candidate = api_user("admin"), api_user("interviewer"), api_user("candidate")
    reviews.save_rubric(session=db, criteria=CUSTOM, by=admin.user)
    db.commit()
    try:
        listed = web_client.get("/api/rubric", headers=owner.headers).json()["criteria"]
        assert [(c["id"], c["title"]) for c in listed] == [
            ("debugging_under_time_pressure", "Debugging under time pressure"), ("communication", "Communication")]
        interview = started_interview(db=db, interviewer=owner.user, candidate=candidate.user,
                                      version=published_version)
        db.commit()
        scores = {c["id"]: c["levels"][-1]["level"] for c in listed}
        saved = web_client.post(f"/api/interviews/{interview.id}/reviews", headers=owner.headers,
                                json={"rubric": scores, "decision": "hire"})
        assert saved.status_code == 201, saved.text
        assert saved.json()["rubric"] == {"debugging_under_time_pressure": 4, "communication": 4}
    finally:  # other tests score the default criteria
        reviews.save_rubric(session=db, criteria=DEFAULT_RUBRIC, by=admin.user)
        db.commit()


def test_the_openapi_schema_describes_the_criteria(web_client: TestClient) -> None:
    schema = web_client.get("/openapi.json").json()
    operation = schema["paths"]["/api/rubric"]["get"]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    rubric = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    criterion_ref = rubric["properties"]["criteria"]["items"]["$ref"]
    criterion = schema["components"]["schemas"][criterion_ref.rsplit("/", 1)[1]]
    assert set(criterion["properties"]) == {"id", "title", "levels"}
