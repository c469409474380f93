"""Attempts inside an interview: only once the candidate has accepted the invite."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from app.interviews import service as interviews_service
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published


def _interview_for(db: Session, candidate_email: str, interviewer_id: int, slug: str) -> tuple[int, str]:
    from app.users.models import User

    version = get_published(session=db, slug=slug)
    assert isinstance(version, ScenarioVersion)
    interviewer = db.get(User, interviewer_id)
    assert interviewer is not None
    interview, token = interviews_service.create_interview(
        session=db, interviewer=interviewer, candidate_email=candidate_email, scenario_version=version,
        time_limit_minutes=60, expires_in=timedelta(days=1),
    )
    db.commit()
    return interview.id, token


def test_attempt_for_an_interview_whose_invite_is_pending_is_refused(
    client, make_user, builtin_slugs, recorder, db: Session
) -> None:
    candidate, interviewer = make_user("candidate"), make_user("interviewer")
    slug = builtin_slugs[0]
    interview_id, token = _interview_for(db, candidate.user.email, interviewer.user.id, slug)

    pending = client.post("/api/attempts", headers=candidate.headers,
                          json={"scenario": slug, "kind": "run", "interview": interview_id})
    assert pending.status_code == 409, pending.text
    assert "open your invite link" in pending.json()["detail"]
    assert recorder.enqueued == []

    interviews_service.redeem_invite(session=db, token=token, password=None, signed_in=candidate.user)
    db.commit()
    started = client.post("/api/attempts", headers=candidate.headers,
                          json={"scenario": slug, "kind": "run", "interview": interview_id})
    assert started.status_code == 202, started.text
    assert recorder.enqueued == [started.json()["id"]]
