"""Admin authoring pages: llama-v1 templates, a leftover comment named, shared tests before publishing,
"validating" while a validation job runs, and no stale "queued" line above the verdict."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.package import ScenarioPackage
from app.scenarios import validation
from app.scenarios.job_models import ScenarioJob
from app.scenarios.models import Scenario, ScenarioVersion
from web.support import csrf_from, sign_in


def _admin(web_client: TestClient, make_account) -> str:
    sign_in(web_client, make_account("admin").email)
    return csrf_from(web_client.get("/admin/scenarios").text)


def _fork(web_client: TestClient, token: str, source: str) -> str:
    slug = f"fork-{uuid.uuid4().hex[:8]}"
    response = web_client.post("/admin/scenarios", data={"slug": slug, "title": "Forked", "source": source,
                                                         "csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return slug


def _version(db: Session, slug: str) -> ScenarioVersion:
    db.expire_all()
    return db.query(ScenarioVersion).join(Scenario).filter(Scenario.slug == slug).one()


def test_a_pipeline_scenario_is_offered_every_pipeline_template_even_those_over_several_lines(
        web_client: TestClient, make_account, published_version) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token, "padded-truths:1")
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new").text
    offered = page[page.index('id="template-kind"'):][:6000].split("</select>")[0]
    assert 'value="clip-wrong-place"' in offered and 'value="eval-mean-of-means"' in offered
    # model.py is the scenario's: shown read-only, as in the workspace
    editor = page[page.index('Editor: model.py (read-only)'):].split("</textarea>")[0]
    assert "model.py is read-only" in editor and " readonly " in editor
    assert "Editor: data.py (copy of the solution)" in page and "Editor: train.py (copy of the solution)" in page
    for kind in ("clip-wrong-place", "eval-mean-of-means"):
        proposed = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new?kind={kind}").text
        assert f"The {kind} template changed train.py line" in proposed and "No template" not in proposed


def test_a_llama_scenario_is_offered_llama_templates_and_a_telling_comment_is_named(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token, "norm-and-gate:1")
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new").text
    offered = page[page.index('id="template-kind"'):][:4000].split("</select>")[0]  # the template menu
    assert 'value="swiglu-gate-wrong"' in offered and 'value="mlp-no-nonlinearity"' not in offered
    proposed = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new?kind=rope-ignores-offset")
    assert "The rope-ignores-offset template changed model.py line" in proposed.text
    assert "self.rope[:T]" in proposed.text and "No template" not in proposed.text

    package = ScenarioPackage.from_dict(_version(db, slug).content)
    line = "rot = self.rope[start_pos : start_pos + T]"
    edited = package.solution_files["model.py"].replace(line, "rot = self.rope[:T]  # BUG: ignores start_pos")
    form = {"csrf_token": token, "kind": "rope-ignores-offset", "id": "rope-from-zero", "action": "check",
            **{f"edited/{n}": t for n, t in package.solution_files.items()}, "edited/model.py": edited}
    checked = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data=form)
    assert checked.status_code == 200 and "applies exactly once" in checked.text
    assert "leaves the comment “# BUG: ignores start_pos”, which names the bug" in checked.text


def test_shared_tests_are_warned_and_publishing_asks_for_without_per_bug_credit(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token, "warm-up:1")
    version = _version(db, slug)
    bugs = [b["id"] for b in version.content["bugs"]]
    version.validation = {"valid": True, "content_hash": version.content_hash, "problems": [], "warnings": [],
                          "masking": [], "slug": slug, "version": "v", "tests": ["t1"], "starter_failing": ["t1"],
                          "bugs": [{"id": b, "kind": "k", "component": "loss", "detected_by": ["t1"]} for b in bugs]}
    db.commit()
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1")
    assert "Shared tests." in page.text and f"{bugs[0]} and {bugs[1]} are caught by exactly the same tests" in page.text
    assert 'name="without_per_bug_credit"' in page.text and "Publish without per-bug credit" in page.text
    refused = web_client.post(f"/admin/scenarios/{slug}/versions/1/publish", data={"csrf_token": token})
    assert refused.status_code == 409 and "publish without per-bug credit" in refused.text
    assert _version(db, slug).status == "draft"
    published = web_client.post(f"/admin/scenarios/{slug}/versions/1/publish",
                                data={"csrf_token": token, "without_per_bug_credit": "yes"}, follow_redirects=False)
    assert published.status_code == 303 and _version(db, slug).status == "published"


def test_a_version_whose_validation_runs_says_validating_and_no_queued_line_outlives_it(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token, "warm-up:1")
    version = _version(db, slug)
    job = ScenarioJob(kind=validation.KIND, scenario_version_id=version.id, package=version.content, status="queued",
                      total=5)
    db.add(job)
    db.commit()
    listing = web_client.get("/admin/scenarios").text
    row = listing[listing.index(f"/admin/scenarios/{slug}/versions/1"):][:600]
    assert "validating" in row and "not validated" not in row
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1").text
    assert "Validation queued: waiting for a grading worker (5 runs)." in page and "Not validated yet" not in page
    job.status, job.done = "done", 5
    version.validation = {"valid": True, "content_hash": version.content_hash, "problems": [], "warnings": [],
                          "masking": [], "slug": slug, "version": "v", "tests": [], "starter_failing": [],
                          "bugs": [{"id": "x", "kind": "k", "component": "loss", "detected_by": ["t1"]}]}
    db.commit()
    # The Validate button leads to the page without a notice: the section says what the job does.
    done = web_client.get(f"/admin/scenarios/{slug}/versions/1").text
    assert "Valid." in done and "queued" not in done.lower().split("valid.")[0][-400:]
    assert "Validation queued." not in done


def test_the_api_refuses_shared_tests_until_without_per_bug_credit_and_lists_them(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token, "warm-up:1")
    version = _version(db, slug)
    bugs = [b["id"] for b in version.content["bugs"]]
    version.validation = {"valid": True, "content_hash": version.content_hash, "problems": [], "warnings": [],
                          "masking": [], "slug": slug, "version": "v", "tests": ["t1"], "starter_failing": ["t1"],
                          "bugs": [{"id": b, "kind": "k", "component": "loss", "detected_by": ["t1"]} for b in bugs]}
    db.commit()
    api = f"/api/admin/scenarios/{slug}/versions/1"
    headers = {"X-CSRF-Token": token}
    shown = web_client.get(api).json()
    assert shown["validation"]["shared_tests"] == [[bugs[0], bugs[1]], [bugs[1], bugs[0]]]
    assert shown["comment_warnings"] == []
    refused = web_client.post(f"{api}/publish", headers=headers)
    assert refused.status_code == 409 and "publish without per-bug credit" in refused.json()["detail"]
    wrong = web_client.post(f"{api}/publish", headers=headers, json={"without_per_bug_credit": "maybe"})
    assert wrong.status_code == 422
    published = web_client.post(f"{api}/publish", headers=headers, json={"without_per_bug_credit": True})
    assert published.status_code == 200 and published.json()["status"] == "published"
