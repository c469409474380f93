"""Admin authoring pages without a browser: fork, edit with preview, plant a bug from an edited copy, diff."""

from __future__ import annotations

import html
import uuid

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.package import ScenarioPackage
from app.scenarios.models import Scenario, ScenarioVersion
from app.web.admin_editor import form_of
from web.support import csrf_from, sign_in


def _admin(web_client: TestClient, make_account) -> str:
    sign_in(web_client, make_account("admin").email)
    return csrf_from(web_client.get("/admin/scenarios").text)


def _fork(web_client: TestClient, token: str) -> str:
    slug = f"fork-{uuid.uuid4().hex[:8]}"
    response = web_client.post("/admin/scenarios", data={"slug": slug, "title": "Leakier", "source": "leaky-mask:1",
                                                         "csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    assert response.headers["location"].endswith(f"/admin/scenarios/{slug}/versions/1/edit")
    return slug


def _version(db: Session, slug: str, number: int = 1) -> ScenarioVersion:
    db.expire_all()
    return db.query(ScenarioVersion).join(Scenario).filter(Scenario.slug == slug,
                                                           ScenarioVersion.version == number).one()


def test_fork_then_edit_with_a_brief_preview_and_a_refused_change(web_client: TestClient, make_account,
                                                                    published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    listing = web_client.get("/admin/scenarios").text
    assert "leaky-mask" in listing and "Fork leaky-mask v1" in listing
    slug = _fork(web_client, token)
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1/edit")
    assert page.status_code == 200 and "Editor: solution/model.py" in page.text

    form = {**form_of(ScenarioPackage.from_dict(_version(db, slug).content)), "csrf_token": token}
    form["brief"] = "# Symptoms\n\nThe loss is **too good**. <script>alert(1)</script>"
    preview = web_client.post(f"/admin/scenarios/{slug}/versions/1/edit", data={**form, "action": "preview"})
    assert preview.status_code == 200 and "<strong>too good</strong>" in preview.text
    assert "&lt;script&gt;" in preview.text and "<script>alert" not in preview.text
    fragment = web_client.post(f"/admin/scenarios/{slug}/versions/1/brief-preview", data=form,
                               headers={"HX-Request": "true"})
    assert fragment.text.startswith('<div id="brief-preview"') and "<h1>Symptoms</h1>" in fragment.text
    assert _version(db, slug).title == "Leakier"  # a preview saves nothing

    broken = {**form, "solution/model.py": form["solution/model.py"].replace(
        "        mask = torch.tril(torch.ones(config.block_size, config.block_size))\n", "")}
    refused = web_client.post(f"/admin/scenarios/{slug}/versions/1/edit", data=broken)
    assert refused.status_code == 422 and "bug mask-sees-next-token" in refused.text

    saved = web_client.post(f"/admin/scenarios/{slug}/versions/1/edit", data={**form, "title": "Leakiest"},
                            follow_redirects=False)
    assert saved.status_code == 303
    assert _version(db, slug).title == "Leakiest" and _version(db, slug).content["brief"] == form["brief"]


def test_plant_a_bug_from_a_template_and_an_edited_copy(web_client: TestClient, make_account,
                                                         published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token)
    proposed = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new?kind=softmax-wrong-dim")
    assert "The softmax-wrong-dim template changed model.py line 45" in proposed.text
    assert "att = F.softmax(att, dim=-2)" in proposed.text

    package = ScenarioPackage.from_dict(_version(db, slug).content)
    edited = package.solution_files["model.py"].replace("att = F.softmax(att, dim=-1)", "att = F.softmax(att, dim=-2)")
    form = {"csrf_token": token, "kind": "softmax-wrong-dim", "component": "attention", "id": "softmax-over-queries",
            "title": "Attention normalised over the queries", "hint1": "Look at the attention weights.",
            "hint2": "What should each row sum to?", "hint3": "Softmax over the key axis (dim=-1).",
            "expected": "Each row sums to one.", "detect": "Row sums differ from one.", "fix": "Use dim=-1.",
            "edited/model.py": edited, "edited/data.py": package.solution_files["data.py"]}
    checked = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data={**form, "action": "check"})
    assert checked.status_code == 200 and "model.py line 45" in checked.text and "applies exactly once" in checked.text

    no_tril = package.solution_files["model.py"].replace("torch.tril(torch.ones(", "(torch.ones(")
    overlapping = {**form, "action": "add", "edited/model.py": no_tril}
    refused = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data=overlapping)
    assert refused.status_code == 422 and "overlaps an earlier bug" in refused.text

    added = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data={**form, "action": "add"},
                            follow_redirects=False)
    assert added.status_code == 303, added.text[:800]
    version = _version(db, slug)
    bug = version.content["bugs"][-1]
    assert bug["id"] == "softmax-over-queries"
    assert bug["edits"] == [{"file": "model.py", "old": "        att = F.softmax(att, dim=-1)\n",
                             "new": "        att = F.softmax(att, dim=-2)\n"}]
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1")
    assert "softmax-over-queries" in page.text and "att = F.softmax(att, dim=-2)" in page.text  # starter preview
    refused = web_client.post(f"/admin/scenarios/{slug}/versions/1/publish", data={"csrf_token": token})
    assert refused.status_code == 409 and "validate it first" in refused.text


def test_editing_a_published_version_starts_a_new_draft_and_the_diff_shows_the_change(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token)
    first = _version(db, slug)
    first.status = "published"  # as if validated and published
    db.commit()
    started = web_client.post(f"/admin/scenarios/{slug}/versions/1/new-draft", data={"csrf_token": token},
                              follow_redirects=False)
    assert started.headers["location"].endswith(f"/admin/scenarios/{slug}/versions/2/edit")
    form = {**form_of(ScenarioPackage.from_dict(_version(db, slug, 2).content)), "csrf_token": token,
            "title": "Leaky, second edition"}
    assert web_client.post(f"/admin/scenarios/{slug}/versions/2/edit", data=form,
                           follow_redirects=False).status_code == 303
    assert _version(db, slug, 1).title == "Leakier"  # the published version stays frozen
    diff = web_client.get(f"/admin/scenarios/{slug}/versions/2/diff?against=1")
    assert diff.status_code == 200
    text = html.unescape(diff.text)
    assert '-title = "Leakier"' in text and '+title = "Leaky, second edition"' in text


def test_the_version_page_shows_notices_by_key_never_text_from_the_link(
        web_client: TestClient, make_account, published_version, db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _fork(web_client, token)
    page = f"/admin/scenarios/{slug}/versions/1"
    spoof = "Your account is locked. Call +1 555 0100 to unlock it."
    shown = web_client.get(page, params={"notice": spoof})
    assert shown.status_code == 200 and "Call +1 555 0100" not in shown.text and 'role="status"' not in shown.text
    assert "Published." in web_client.get(page, params={"notice": "published"}).text
    # A planted bug is named only when this version has it.
    bug_id = ScenarioPackage.from_dict(_version(db, slug).content).bugs[0].id
    named = web_client.get(page, params={"notice": "bug_planted", "bug": bug_id}).text
    assert f"Bug {bug_id} planted." in named
    made_up = web_client.get(page, params={"notice": "bug_planted", "bug": "call-555-0100"}).text
    assert "call-555-0100" not in made_up and "Bug planted." in made_up
    # The actions send keys: saving the draft comes back with ?notice=draft_saved.
    form = {**form_of(ScenarioPackage.from_dict(_version(db, slug).content)), "csrf_token": token}
    saved = web_client.post(f"{page}/edit", data=form, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"].endswith(f"{page}?notice=draft_saved")
    assert "Draft saved. Validate it again before publishing." in web_client.get(saved.headers["location"]).text
