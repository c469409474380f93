"""POST /api/attempts: validation, limits and enqueue-after-commit."""

from __future__ import annotations

import json

import pytest
from sqlalchemy.orm import Session

from app.attempts import service
from app.attempts.models import Attempt
from app.core.settings import get_settings
from app.engine.builtin import find_builtin


def _post(client, who, **body):
    body.setdefault("scenario", "warm-up")
    return client.post("/api/attempts", json=body, headers=who.headers)


def test_submit_queues_attempt_with_starter_files_and_enqueues_after_commit(
    client, make_user, builtin_slugs, recorder, db: Session
) -> None:
    who = make_user()
    edited = "# my fix\n" + find_builtin("warm-up").starter_files["model.py"]
    response = _post(client, who, files={"model.py": edited}, kind="submit", notes={"find": "printed shapes"})
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "queued"
    attempt = db.get(Attempt, body["id"])
    assert attempt.files["model.py"] == edited
    assert attempt.files["data.py"] == find_builtin("warm-up").starter_files["data.py"]
    assert attempt.notes == {"find": "printed shapes"}
    assert recorder.enqueued == [body["id"]]


def test_create_attempt_rolled_back_is_never_enqueued(make_user, builtin_slugs, recorder, db: Session) -> None:
    who = make_user()
    attempt = service.create_attempt(
        session=db, user=who.user, scenario="warm-up", files={}, kind="run", notes={}
    )
    assert attempt.id is not None
    db.rollback()
    db.commit()
    assert recorder.enqueued == []


def test_submit_rejects_unknown_scenario(client, make_user, builtin_slugs, recorder) -> None:
    response = _post(client, make_user(), scenario="no-such-thing")
    assert response.status_code == 404
    assert "no-such-thing" in response.json()["detail"]
    assert recorder.enqueued == []


def test_submit_rejects_unknown_file_name(client, make_user, builtin_slugs, recorder) -> None:
    response = _post(client, make_user(), files={"../etc/passwd": "x"})
    assert response.status_code == 422
    assert "Unknown file name" in response.json()["detail"]


def test_submit_rejects_oversized_file(client, make_user, builtin_slugs, recorder) -> None:
    big = "x" * (get_settings().max_file_bytes + 1)
    response = _post(client, make_user(), files={"model.py": big})
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]


def test_submit_rejects_lone_surrogate_as_non_utf8(client, make_user, builtin_slugs, recorder) -> None:
    raw = '{"scenario": "warm-up", "files": {"model.py": "x = 1\\ud800"}}'
    who = make_user()
    response = client.post(
        "/api/attempts", content=raw, headers={**who.headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "UTF-8" in response.json()["detail"]


def test_submit_rejects_too_many_files(client, make_user, builtin_slugs, recorder) -> None:
    files = {f"f{n}.py": "" for n in range(get_settings().max_files_per_attempt + 1)}
    response = _post(client, make_user(), files=files)
    assert response.status_code == 422
    assert "Too many files" in response.json()["detail"]


@pytest.mark.parametrize(
    ("notes", "expected"),
    [({"nonsense": "hi"}, "Unknown question"), ({"find": "x" * 50_000}, "longer than")],
)
def test_submit_rejects_bad_notes(client, make_user, builtin_slugs, recorder, notes, expected) -> None:
    response = _post(client, make_user(), notes=notes)
    assert response.status_code == 422
    assert expected in json.dumps(response.json())


def test_submit_rejects_non_string_file_content(client, make_user, builtin_slugs, recorder) -> None:
    response = _post(client, make_user(), files={"model.py": 42})
    assert response.status_code == 422


def test_second_submit_while_first_in_flight_gets_clear_429(client, make_user, builtin_slugs, recorder) -> None:
    who = make_user()
    first = _post(client, who, kind="submit")
    assert first.status_code == 202
    second = _post(client, who, kind="submit")
    assert second.status_code == 429
    assert "still being graded" in second.json()["detail"]
    # named by its challenge and its number there, not by a database id
    assert "(attempt 1 there)" in second.json()["detail"] and "/challenges/warm-up" in second.json()["detail"]
    assert _post(client, who, kind="run").status_code == 202  # runs are not blocked by a submit


def _finish(db: Session, attempt_id: int) -> None:
    db.get(Attempt, attempt_id).status = "failed"
    db.commit()


def test_submit_over_per_minute_limit_gets_429_with_the_wait(
    client, make_user, builtin_slugs, recorder, monkeypatch: pytest.MonkeyPatch, db: Session
) -> None:
    monkeypatch.setattr(get_settings(), "attempts_per_user_per_minute", 3)
    who = make_user()
    for _ in range(3):
        response = _post(client, who, kind="run")
        assert response.status_code == 202
        _finish(db, response.json()["id"])
    refused = _post(client, who, kind="run")
    assert refused.status_code == 429
    wait = int(refused.headers["Retry-After"])
    assert 1 <= wait <= 60 and f"You can run again in {wait} s." in refused.json()["detail"]
    assert _post(client, make_user(), kind="run").status_code == 202  # the limit is per user


def test_one_attempt_of_each_kind_in_flight(client, make_user, builtin_slugs, recorder) -> None:
    who = make_user()
    first = _post(client, who, kind="run")
    assert first.status_code == 202
    again = _post(client, who, kind="run")
    assert again.status_code == 429
    # The refusal names the challenge of the grading in progress, numbers it as that challenge's History
    # does (its first attempt there), and says where it is.
    title = find_builtin("warm-up").title
    assert again.json()["detail"] == (f"Your run on {title} (attempt 1 there) is still being graded; wait for its "
                                      "result before starting another run. It is at /challenges/warm-up")
    # Another challenge refuses the same way, naming the first one.
    other = _post(client, who, kind="run", scenario="leaky-mask")
    assert other.status_code == 429 and f"Your run on {title} (attempt 1 there)" in other.json()["detail"]
    assert _post(client, who, kind="submit").status_code == 202
    assert _post(client, who, kind="scratch", files={"scratch.py": "print(1)"}).status_code == 202


def test_scratch_py_belongs_to_scratch_runs_only(client, make_user, builtin_slugs, recorder) -> None:
    response = _post(client, make_user(), kind="submit", files={"scratch.py": "print(1)"})
    assert response.status_code == 422 and "scratch.py" in response.json()["detail"]


def test_a_queued_attempt_can_be_cancelled_by_its_owner_only(
    client, make_user, builtin_slugs, recorder, db: Session
) -> None:
    owner, other = make_user(), make_user()
    attempt_id = _post(client, owner, kind="submit").json()["id"]
    assert client.post(f"/api/attempts/{attempt_id}/cancel", headers=other.headers).status_code == 404
    assert client.post(f"/api/attempts/{attempt_id}/cancel", headers=owner.headers).json() == {
        "id": attempt_id, "status": "cancelled"}
    db.expire_all()
    assert db.get(Attempt, attempt_id).status == "cancelled"
    late = client.post(f"/api/attempts/{attempt_id}/cancel", headers=owner.headers)
    assert late.status_code == 409 and "already cancelled" in late.json()["detail"]
    assert _post(client, owner, kind="submit").status_code == 202  # a cancelled submit is not in flight


def test_submit_without_credentials_is_401(client, builtin_slugs) -> None:
    response = client.post("/api/attempts", json={"scenario": "warm-up"})
    assert response.status_code == 401
