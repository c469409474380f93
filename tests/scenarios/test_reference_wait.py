"""`dojo serve` serves only once the built-ins' references are stored: no first verdict waits for one."""

from __future__ import annotations

import uuid

import pytest
from dispatch.conftest import app_db  # noqa: F401
from dispatch.processes import wait_for
from dispatch.tiny_scenario import tiny_package
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.auth.tokens import issue_token
from app.core.db import new_session, utcnow
from app.core.settings import get_settings
from app.engine.package import ScenarioPackage
from app.main import create_app
from app.scenarios import validation
from app.scenarios.job_models import ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion
from app.scenarios.reference_wait import wait_for_validations
from app.users.service import create_user


def _published_tiny() -> int:
    """A published version of a new tiny scenario with no reference yet."""
    data = tiny_package().to_dict()
    data["slug"] = f"tiny-ref-{uuid.uuid4().hex[:8]}"
    package = ScenarioPackage.from_dict(data)
    with new_session() as session:
        scenario = Scenario(slug=package.slug, title=package.title)
        session.add(scenario)
        session.flush()
        version = ScenarioVersion(scenario_id=scenario.id, version=1, title=package.title, difficulty="easy",
                                  summary="", content=package.to_dict(), content_hash=package.content_hash,
                                  status="published", published_at=utcnow())
        session.add(version)
        session.commit()
        return version.id


def test_waiting_ends_when_the_validation_job_is_finished(app_db: None) -> None:  # noqa: F811
    version_id = _published_tiny()
    with new_session() as session:
        job = validation.start_validation(session=session, version=session.get(ScenarioVersion, version_id),
                                          user_id=None)
        session.commit()
        job_id = job.id
    try:
        assert wait_for_validations(version_ids=[version_id], timeout=0.3) is False
        with new_session() as session:
            session.execute(update(ScenarioJob).where(ScenarioJob.id == job_id).values(status="done"))
            session.commit()
        assert wait_for_validations(version_ids=[version_id], timeout=0.3) is True
    finally:  # never leave queued tasks behind for pools that later tests start
        with new_session() as session:
            session.query(ScenarioJob).filter_by(id=job_id).delete()
            session.commit()


@pytest.mark.bwrap
def test_serve_answers_only_once_references_are_stored_and_the_first_grading_computes_none(
    app_db: None, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    version_id = _published_tiny()
    with new_session() as session:
        version = session.get(ScenarioVersion, version_id)
        slug = version.content["slug"]
        solution = dict(version.content["solution_files"])
        user = create_user(session=session, email=f"w-{uuid.uuid4().hex[:8]}@example.com", password=None,
                           role="candidate")
        headers = {"Authorization": f"Bearer {issue_token(session=session, user=user)}"}
        session.commit()
    # The built-ins of this start are just the tiny scenario (the real eight take minutes to validate).
    monkeypatch.setattr("app.scenarios.service.sync_builtin_scenarios",
                        lambda *, session: [session.get(ScenarioVersion, version_id)])
    monkeypatch.setattr(get_settings(), "warm_references", True)

    with TestClient(create_app()) as client:  # the lifespan's start-up returns only when they are stored
        with new_session() as session:
            assert session.get(ScenarioVersion, version_id).reference is not None

        def no_validation(**_kwargs: object) -> None:
            raise AssertionError("a grading computed a reference")

        monkeypatch.setattr("app.grading.reference.validate_package", no_validation)
        attempt = client.post("/api/attempts", headers=headers,
                              json={"scenario": slug, "kind": "submit", "files": solution}).json()
        view = wait_for(lambda: (v := client.get(f"/api/attempts/{attempt['id']}", headers=headers).json())
                        and v["status"] in ("passed", "failed", "error") and v, timeout=300, every=0.5,
                        what="the first verdict")
    assert view["status"] == "passed", view["error"]
