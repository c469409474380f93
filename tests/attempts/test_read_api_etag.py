"""GET /api/attempts/{id} with If-None-Match: 304 while nothing it shows has changed, a new ETag when it has.

Each step changes the attempt as a worker, the coach or a rejudge would, then reads it twice through the
real app: plainly (the full object) and with the previous ETag, which must be a 304 exactly when the
object is the same as before.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching.models import CoachingTip
from app.core.db import utcnow
from app.scenarios.service import get_published

from .test_read_api import GRADED_REPORT, _interview


def _read(client: TestClient, attempt_id: int, headers: dict[str, str], etag: str | None = None):
    extra = {"If-None-Match": etag} if etag else {}
    return client.get(f"/api/attempts/{attempt_id}", headers={**headers, **extra})


def _running_attempt(db: Session, *, user_id: int, interview_id: int | None = None) -> Attempt:
    version = get_published(session=db, slug="warm-up")
    attempt = Attempt(user_id=user_id, scenario_version_id=version.id, interview_id=interview_id, kind="submit",
                      status="running", files={"model.py": "x"}, notes={}, started_at=utcnow(), tries=1,
                      progress={"stage": "training", "k": 10, "n": 200})
    db.add(attempt)
    db.commit()
    return attempt


def test_304_on_a_matching_etag_and_200_with_a_new_one_after_progress(
    client, make_user, builtin_slugs, db: Session
) -> None:
    candidate = make_user()
    attempt = _running_attempt(db, user_id=candidate.user.id)
    first = _read(client, attempt.id, candidate.headers)
    assert first.status_code == 200 and first.json()["progress"] == {"stage": "training", "k": 10, "n": 200}
    assert first.headers["cache-control"] == "no-cache" and first.headers["etag"].startswith('W/"')

    again = _read(client, attempt.id, candidate.headers, first.headers["etag"])
    assert (again.status_code, again.content, again.headers["etag"]) == (304, b"", first.headers["etag"])

    db.execute(update(Attempt).where(Attempt.id == attempt.id).values(progress={"stage": "training", "k": 20,
                                                                                "n": 200}))
    db.commit()
    db.expire_all()  # the app reads through this same session: forget what it loaded, as a new request would
    moved = _read(client, attempt.id, candidate.headers, first.headers["etag"])
    assert moved.status_code == 200 and moved.json()["progress"]["k"] == 20
    assert moved.headers["etag"] != first.headers["etag"]
    assert moved.json() == _read(client, attempt.id, candidate.headers).json()  # the same object as before


def test_the_etag_changes_exactly_when_the_object_does(client, make_user, builtin_slugs, db: Session) -> None:
    candidate, interviewer = make_user(), make_user("interviewer")
    interview = _interview(db, interviewer_id=interviewer.user.id, candidate_id=candidate.user.id)
    attempt = _running_attempt(db, user_id=candidate.user.id, interview_id=interview.id)

    def change(**values: object) -> Callable[[], None]:
        def apply() -> None:
            db.execute(update(Attempt).where(Attempt.id == attempt.id).values(**values))
            db.commit()
        return apply

    def tips_arrive() -> None:
        db.add(CoachingTip(attempt_id=attempt.id, source="rules", component="positional", framing="Frame.",
                           pro_tip="Check order.", steps=["a", "b", "c"]))
        db.commit()

    # A rejudge that keeps the status: one hidden check now passes.
    rejudged = {**GRADED_REPORT, "tests": [{**t, "passed": True} for t in GRADED_REPORT["tests"]]}
    steps: list[tuple[str, Callable[[], None], bool]] = [
        ("a heartbeat", change(heartbeat_at=utcnow(), worker_id="w-1"), False),
        ("a training step", change(progress={"stage": "training", "k": 30, "n": 200}), True),
        ("the verdict", change(status="failed", result=GRADED_REPORT, score=0.5, finished_at=utcnow()), True),
        ("the coach's tips", tips_arrive, True),
        ("a rejudge with the same status", change(result=rejudged, score=0.75), True),
    ]
    for viewer in (candidate, interviewer):
        attempt_state = {"status": "running", "result": None, "score": None, "finished_at": None,
                         "progress": {"stage": "training", "k": 10, "n": 200}}
        change(**attempt_state)()
        db.execute(CoachingTip.__table__.delete().where(CoachingTip.attempt_id == attempt.id))
        db.commit()
        db.expire_all()
        seen = _read(client, attempt.id, viewer.headers)
        for what, apply, shown in steps:
            apply()
            db.expire_all()
            now = _read(client, attempt.id, viewer.headers)
            assert now.status_code == 200
            assert (now.json() != seen.json()) == shown, f"{viewer.user.role}, {what}"
            conditional = _read(client, attempt.id, viewer.headers, seen.headers["etag"])
            if shown:
                assert conditional.status_code == 200 and conditional.json() == now.json(), what
                assert conditional.headers["etag"] == now.headers["etag"] != seen.headers["etag"], what
            else:
                assert (conditional.status_code, conditional.content) == (304, b""), what
            seen = now


def test_an_etag_opens_nothing_the_viewer_may_not_read(client, make_user, builtin_slugs, db: Session) -> None:
    owner, other, interviewer = make_user(), make_user(), make_user("interviewer")
    attempt = _running_attempt(db, user_id=owner.user.id)
    etag = _read(client, attempt.id, owner.headers).headers["etag"]
    for outsider in (other, interviewer):  # a practice attempt: no interviewer reads it
        for tag in (etag, "*"):
            refused = _read(client, attempt.id, outsider.headers, tag)
            assert refused.status_code == 404 and "not found" in refused.json()["detail"]
    assert _read(client, 999999, owner.headers, "*").status_code == 404
