"""The scenario authoring API (CONTRACTS.md section 2): upload, validate, publish or refuse, export, audit."""

from __future__ import annotations

import pytest
from dispatch.conftest import app_db  # noqa: F401
from fastapi.testclient import TestClient

from app.attempts.grading_job import grade_attempt
from app.audit.models import AuditEvent
from app.core.db import new_session
from app.engine.builtin import find_builtin
from app.engine.package import load_zip
from app.scenarios.export import package_files
from scenarios.api_support import app_client, bearer, tiny_zip, zip_of  # noqa: F401
from scenarios.jobs_support import run_queued_tasks

BASE = "/api/admin/scenarios"


def _upload(client: TestClient, headers: dict[str, str], data: bytes):
    return client.post(BASE, files={"file": ("package.zip", data, "application/zip")}, headers=headers)


def _validate(client: TestClient, headers: dict[str, str], slug: str, number: int) -> dict:
    queued = client.post(f"{BASE}/{slug}/versions/{number}/validate", headers=headers)
    assert queued.status_code == 202, queued.text
    assert queued.json()["total"] >= 3 and queued.json()["finished"] is False
    run_queued_tasks(queued.json()["id"])  # what the grading workers do
    body = client.get(f"{BASE}/{slug}/versions/{number}", headers=headers).json()
    assert body["jobs"]["validate"]["status"] == "done"
    return body


@pytest.mark.bwrap
def test_upload_validate_publish_export_and_the_audit_trail(app_client: TestClient) -> None:  # noqa: F811
    admin = bearer("admin")
    slug, data = tiny_zip()
    created = _upload(app_client, admin, data)
    assert created.status_code == 201 and created.json() == {"slug": slug, "version": 1, "status": "draft"}
    before = app_client.get(f"{BASE}/{slug}/versions/1", headers=admin).json()
    assert before["status"] == "draft" and before["validation"] is None
    early = app_client.post(f"{BASE}/{slug}/versions/1/publish", headers=admin)
    assert early.status_code == 409 and "validate it first" in early.json()["detail"]

    body = _validate(app_client, admin, slug, 1)
    assert body["validation"]["valid"] is True and body["validation"]["problems"] == []
    assert {b["id"] for b in body["validation"]["bugs"]} == {"pos-not-added", "softmax-before-loss"}
    assert all(b["detected_by"] for b in body["validation"]["bugs"])

    published = app_client.post(f"{BASE}/{slug}/versions/1/publish", headers=admin)
    assert published.status_code == 200 and published.json()["status"] == "published"
    candidate = bearer("candidate")
    assert slug in {s["slug"] for s in app_client.get("/api/scenarios", headers=candidate).json()}

    exported = app_client.get(f"{BASE}/{slug}/versions/1/export", headers=admin)
    assert exported.status_code == 200 and exported.headers["content-type"] == "application/zip"
    assert load_zip(exported.content).content_hash == body["content_hash"]

    # A candidate's attempt, graded by a worker; then a rejudge grades it again and finds nothing changed.
    files = load_zip(exported.content).solution_files
    attempt = app_client.post("/api/attempts", json={"scenario": slug, "files": files, "kind": "submit"},
                              headers=candidate)
    assert attempt.status_code == 202, attempt.text
    assert grade_attempt(attempt.json()["id"]) == "graded"
    rejudging = app_client.post(f"{BASE}/{slug}/versions/1/rejudge", headers=admin)
    assert rejudging.status_code == 202 and rejudging.json()["kind"] == "rejudge"
    run_queued_tasks(rejudging.json()["id"])
    done = app_client.get(f"{BASE}/{slug}/versions/1", headers=admin).json()["jobs"]["rejudge"]
    assert done["status"] == "done" and done["summary"] == {"attempts": 1, "changed": 0, "changed_attempts": []}
    assert app_client.get(f"/api/attempts/{attempt.json()['id']}", headers=candidate).json()["status"] == "passed"

    with new_session() as session:
        actions = [e.action for e in session.query(AuditEvent).filter(AuditEvent.target.startswith(slug))
                   .order_by(AuditEvent.id)]
    assert actions == ["scenario.imported", "version.created", "version.validation_started", "version.published",
                       "version.rejudge_started"]


@pytest.mark.bwrap
def test_a_package_with_an_undetectable_bug_is_refused_naming_the_bug(app_client: TestClient) -> None:  # noqa: F811
    admin = bearer("admin")

    def plant_a_harmless_bug(data: dict) -> None:
        edit = {"file": "model.py", "old": "# re-assemble all heads side by side", "new": "# heads back together"}
        data["bugs"].append({**data["bugs"][0], "id": "comment-only", "title": "A comment changed", "edits": [edit]})

    slug, data = tiny_zip(mutate=plant_a_harmless_bug)
    assert _upload(app_client, admin, data).status_code == 201
    body = _validate(app_client, admin, slug, 1)
    assert body["validation"]["valid"] is False
    assert {"id": "comment-only", "detected_by": []} in body["validation"]["bugs"]
    refused = app_client.post(f"{BASE}/{slug}/versions/1/publish", headers=admin)
    assert refused.status_code == 409
    assert "comment-only" in refused.json()["detail"] and "pos-not-added" not in refused.json()["detail"]
    assert app_client.get(f"{BASE}/{slug}/versions/1", headers=admin).json()["status"] == "draft"


def test_a_broken_package_is_422_naming_file_field_and_line(app_client: TestClient) -> None:  # noqa: F811
    files = package_files(find_builtin("warm-up"))
    files["scenario.toml"] = files["scenario.toml"].replace('difficulty = "easy"', 'difficulty = "extreme"')
    response = _upload(app_client, bearer("admin"), zip_of(files))
    assert response.status_code == 422
    body = response.json()
    assert (body["file"], body["field"], body["line"]) == ("scenario.toml", "difficulty", 3)
    assert "must be one of easy, medium, hard" in body["detail"]
    not_a_zip = _upload(app_client, bearer("admin"), b"not a zip")
    assert not_a_zip.status_code == 422 and not_a_zip.json()["detail"] == "zip: not a valid zip archive"


def test_only_admins_may_author(app_client: TestClient) -> None:  # noqa: F811
    _slug, data = tiny_zip()
    for role in ("candidate", "interviewer"):
        assert _upload(app_client, bearer(role), data).status_code == 403
        assert app_client.get(f"{BASE}/warm-up/versions/1", headers=bearer(role)).status_code == 403
    assert _upload(app_client, {}, data).status_code == 401
    assert app_client.get(f"{BASE}/warm-up/versions/999", headers=bearer("admin")).status_code == 404
