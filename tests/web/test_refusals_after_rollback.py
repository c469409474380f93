"""Refusals stay refusals: every form route that takes ids, sent someone else's ids and ids that do not exist.

The app here reads through its real per-request session (closed at the end of each request, as in
production), not the tests' shared rolled-back one: a refusal raised after `session.rollback()` used
to render its error page with an expired user that the closed session could no longer load, a 500
(or, from htmx, a dropped connection) instead of the 4xx.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from interviews.factories import add_attempt, started_interview
from sqlalchemy.orm import sessionmaker

from app.coaching.models import CoachingTip
from app.core import db as core_db
from app.core.migrate import upgrade_to_head
from app.main import create_app
from app.scenarios.service import slug_of, sync_builtin_scenarios
from app.users.service import create_user
from web.support import PASSWORD, csrf_from, sign_in, unique_email

MISSING_ID = "999999999"
PARAM = re.compile(r"{(\w+)}")


@dataclass(frozen=True)
class World:
    app: FastAPI
    emails: dict[str, str]  # role -> the walker's email
    theirs: dict[str, str]  # path parameter -> a value that belongs to someone else
    missing: dict[str, str]  # path parameter -> a value that names nothing


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    engine = core_db.make_engine(f"sqlite:///{tmp_path / 'refusals.sqlite3'}")
    upgrade_to_head(engine)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    with factory() as db:
        emails = {role: unique_email(role) for role in ("candidate", "interviewer", "admin")}
        for role, email in emails.items():
            create_user(session=db, email=email, password=PASSWORD, role=role)
        other_candidate = create_user(session=db, email=unique_email("other"), password=PASSWORD, role="candidate")
        other_interviewer = create_user(session=db, email=unique_email("other-iv"), password=PASSWORD,
                                        role="interviewer")
        version = sync_builtin_scenarios(session=db)[0]
        db.commit()
        interview = started_interview(db=db, interviewer=other_interviewer, candidate=other_candidate,
                                      version=version)
        attempt = add_attempt(db=db, interview=None, user=other_candidate, version=version)
        tip = CoachingTip(attempt_id=attempt.id, source="rules", framing="f", pro_tip="p", steps=["s"])
        db.add(tip)
        db.commit()
        theirs = {"tip_id": str(tip.id), "attempt_id": str(attempt.id), "interview_id": str(interview.id),
                  "user_id": str(other_candidate.id), "version_id": str(version.id),
                  "slug": slug_of(session=db, version=version), "number": str(version.version),
                  "bug_id": "no-such-bug", "token": "not-a-real-invite-token"}
    missing = {name: MISSING_ID for name in ("tip_id", "attempt_id", "interview_id", "user_id", "version_id",
                                              "number")}
    missing |= {"slug": "no-such-challenge", "bug_id": "no-such-bug", "token": "not-a-real-invite-token"}
    monkeypatch.setattr(core_db, "_session_factory", lambda: factory)
    yield World(app=create_app(), emails=emails, theirs=theirs, missing=missing)
    engine.dispose()


def form_routes_with_ids(app: FastAPI) -> list[str]:
    """Every page route (not /api) that takes a POST and has path parameters, from the app itself."""
    found = set()
    for route in iter_route_contexts(app.routes):
        path = str(route.path)
        if "POST" in (route.methods or ()) and PARAM.search(path) and not path.startswith("/api/"):
            found.add(path)
    return sorted(found)


def fill(template: str, values: dict[str, str]) -> str:
    return PARAM.sub(lambda match: values[match.group(1)], template)


def test_the_walk_covers_the_routes_the_issue_names(world: World) -> None:
    routes = form_routes_with_ids(world.app)
    assert "/tips/{tip_id}/rating" in routes
    assert "/admin/scenarios/{slug}/versions/{number}/bugs/{bug_id}/remove" in routes
    unknown = {name for path in routes for name in PARAM.findall(path)} - world.missing.keys()
    assert not unknown, f"path parameters the walk has no value for: {unknown}"


@pytest.mark.parametrize("role", ["candidate", "interviewer", "admin"])
def test_no_form_route_answers_someone_elses_or_missing_ids_with_a_5xx(world: World, role: str) -> None:
    client = TestClient(world.app, raise_server_exceptions=True)
    sign_in(client, world.emails[role])
    token = csrf_from(client.get("/candidate").text)
    failures = []
    for template in form_routes_with_ids(world.app):
        for values in (world.theirs, world.missing):
            path = fill(template, values)
            for htmx in (False, True):
                headers = {"X-CSRF-Token": token, **({"HX-Request": "true"} if htmx else {})}
                # helpful=true gets the rating form past its own check, to the ownership check behind it.
                try:
                    response = client.post(path, data={"helpful": "true"}, headers=headers, follow_redirects=False)
                except Exception as exc:  # escaped the app: a real server drops the connection
                    failures.append(f"{path} htmx={htmx}: no response ({exc.__class__.__name__}: {exc})")
                    continue
                if response.status_code >= 500:
                    failures.append(f"{path} htmx={htmx}: {response.status_code} {response.text[:160]!r}")
    assert not failures, f"as {role}:\n" + "\n".join(failures)


def test_rating_someone_elses_tip_from_the_form_renders_the_404_page_with_the_signed_in_nav(world: World) -> None:
    client = TestClient(world.app)
    sign_in(client, world.emails["candidate"])
    token = csrf_from(client.get("/candidate").text)
    for tip_id in (world.theirs["tip_id"], MISSING_ID):
        response = client.post(f"/tips/{tip_id}/rating", data={"helpful": "true", "csrf_token": token})
        assert response.status_code == 404, response.text[:300]
        assert f"Tip {tip_id} not found." in response.text
        assert world.emails["candidate"] in response.text  # the layout still shows who is signed in
