"""Plant the hostile corpus in a live server's database: an account, a scenario, an interview with
attempts, notes, files, a review and an open invite, all written as an attacker or careless author
would write them. Returns the ids the page list needs.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching import service as coaching_service
from app.core.db import make_engine, utcnow
from app.engine.builtin import find_builtin
from app.engine.package import ScenarioPackage
from app.interviews import service as interviews_service
from app.interviews.models import Review
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import User
from app.users.service import create_user

from . import corpus

SLUG = "hostile-text"


def _hostile_package() -> ScenarioPackage:
    data: dict[str, Any] = copy.deepcopy(find_builtin("warm-up").to_dict())
    data["slug"] = SLUG
    data["title"] = "Hostile <script>__xss('title')</script> title"
    data["summary"] = corpus.text("summary")
    data["brief"] = corpus.text("brief")
    for question in data.get("questions", []):
        question["text"] = question.get("text", "") + " " + corpus.payloads("question")[2]
    for bug in data.get("bugs", []):
        bug["title"] = corpus.payloads("bug-title")[3]
        bug["hints"] = [corpus.payloads("hint")[0]]
    # Shown in the editor as the starter: every payload as comment lines at the top of each file.
    for name, source in data["solution_files"].items():
        planted = "\n".join("# " + line for line in corpus.text(f"starter-{name}").splitlines())
        data["solution_files"][name] = planted + "\n" + source
    data.pop("content_hash", None)
    return ScenarioPackage.from_dict(data)


def _publish(session: Session) -> ScenarioVersion:
    package = _hostile_package()
    scenario = Scenario(slug=SLUG, title=package.title)
    session.add(scenario)
    session.flush()
    version = ScenarioVersion(
        scenario_id=scenario.id, version=1, title=package.title, difficulty="easy", summary=corpus.text("summary"),
        content=package.to_dict(), content_hash=package.content_hash, status="published", published_at=utcnow(),
    )
    session.add(version)
    # A draft next to it, for the authoring pages that only edit drafts.
    session.add(ScenarioVersion(
        scenario_id=scenario.id, version=2, title=package.title, difficulty="easy", summary=corpus.text("summary"),
        content=package.to_dict(), content_hash=package.content_hash, status="draft",
    ))
    session.flush()
    return version


def seed(database_url: str, *, interviewer_email: str) -> dict[str, Any]:
    """Write the corpus; returns {slug, version_id, version, interview_id, attempt_id, invite_token, ...}."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            version = _publish(session)
            candidate = create_user(session=session, email=corpus.email("email"), password="hostile-password",
                                    role="candidate", display_name=corpus.payloads("display-name")[0][:120])
            interviewer = session.scalar(select(User).where(User.email == interviewer_email))
            assert interviewer is not None
            interview, token = interviews_service.create_interview(
                session=session, interviewer=interviewer, candidate_email=candidate.email, scenario_version=version,
                time_limit_minutes=60, expires_in=timedelta(days=2))
            interviews_service.redeem_invite(session=session, token=token, password=None, signed_in=candidate)
            interview.started_at = utcnow()
            files = {name: corpus.text(f"file-{name}") for name in version.content["files"]}
            notes = {q["id"]: corpus.text(f"note-{q['id']}") for q in version.content.get("questions", [])}
            attempt = Attempt(
                user_id=candidate.id, scenario_version_id=version.id, interview_id=interview.id, kind="submit",
                status="error", files=files, notes=notes, tries=1, started_at=utcnow(), finished_at=utcnow(),
                error={"kind": "crash", "message": corpus.text("error-message")},
            )
            practice = Attempt(
                user_id=candidate.id, scenario_version_id=version.id, kind="run", status="error", files=files,
                notes=notes, tries=1, finished_at=utcnow(), error={"kind": "syntax", "message": corpus.text("syntax")},
            )
            session.add_all([attempt, practice])
            session.flush()
            for coached in (attempt, practice):  # tips that answer the hostile notes and questions
                coaching_service.coach_attempt(session=session, attempt_id=coached.id)
            session.add(Review(interview_id=interview.id, attempt_id=attempt.id, reviewer_id=interviewer.id,
                               notes=corpus.text("review-notes"), rubric_scores={}))
            open_invite, open_token = interviews_service.create_interview(
                session=session, interviewer=interviewer, candidate_email=corpus.email("invite-email"),
                scenario_version=version, time_limit_minutes=60, expires_in=timedelta(days=2))
            interviews_service.create_interview(
                session=session, interviewer=interviewer, candidate_email=corpus.formula_email(),
                scenario_version=version, time_limit_minutes=60, expires_in=timedelta(days=2))
            session.commit()
            return {
                "slug": SLUG, "version_id": version.id, "version": version.version, "draft_version": 2,
                "interview_id": interview.id,
                "attempt_id": attempt.id, "practice_id": practice.id, "invite_token": open_token,
                "open_interview_id": open_invite.id, "candidate_email": candidate.email,
                "candidate_password": "hostile-password",
            }
    finally:
        engine.dispose()
