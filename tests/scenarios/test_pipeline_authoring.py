"""Authoring a pipeline-v1 scenario through the admin pages: a blank draft starts from the interface's
template (padded-truths' solution), a bug template plants a pipeline bug in data.py or train.py, and a bug
that edits the read-only model.py is refused with a message that says why and where to plant it instead."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from web.support import csrf_from, fast_password_hashing, make_account, sign_in, web_app, web_client  # noqa: F401

from app.engine.builtin import find_builtin
from app.engine.errors import PackageError
from app.engine.interfaces import INTERFACES
from app.engine.package import ScenarioPackage, parse_package
from app.scenarios import bug_edits, drafts
from app.scenarios.models import Scenario, ScenarioVersion

PIPELINE = INTERFACES["pipeline-v1"]
HINTS = {"hint1": "Draw three epochs with one seed.", "hint2": "What does the generator's seed depend on?",
         "hint3": "Seed it with the epoch too.", "expected": "Each epoch has its own order.",
         "detect": "Consecutive epochs give the same order.", "fix": "Mix the epoch into the seed."}


def _admin(web_client: TestClient, make_account: Callable[..., object]) -> str:  # noqa: F811
    sign_in(web_client, make_account("admin").email)  # type: ignore[attr-defined]
    return csrf_from(web_client.get("/admin/scenarios").text)


def _newest(db: Session, slug: str) -> ScenarioVersion:
    db.expire_all()
    return db.scalars(select(ScenarioVersion).join(Scenario).where(Scenario.slug == slug)
                      .order_by(ScenarioVersion.version.desc()).limit(1)).one()


def _blank_pipeline_draft(web_client: TestClient, token: str) -> str:  # noqa: F811
    slug = f"pipe-{uuid.uuid4().hex[:8]}"
    created = web_client.post("/admin/scenarios", data={"slug": slug, "title": "Pipeline trouble", "source": "blank",
                                                        "interface": "pipeline-v1", "csrf_token": token},
                              follow_redirects=False)
    assert created.status_code == 303, created.text[:500]
    assert created.headers["location"].endswith(f"/admin/scenarios/{slug}/versions/1/edit")
    return slug


def test_a_blank_pipeline_draft_starts_from_padded_truths(web_client: TestClient, make_account,  # noqa: F811
                                                           db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _blank_pipeline_draft(web_client, token)
    content = _newest(db, slug).content
    template = find_builtin(PIPELINE.template_scenario)
    assert PIPELINE.template_scenario == "padded-truths" and template is not None
    assert content["interface"] == "pipeline-v1" and content["bugs"] == []
    assert content["files"] == ["model.py", "data.py", "train.py"]
    assert content["solution_files"] == template.solution_files
    page = web_client.get(f"/admin/scenarios/{slug}/versions/1/edit")
    assert page.status_code == 200 and "Editor: solution/train.py" in page.text
    # The template offers the pipeline kinds, each proposing an edit of data.py or train.py.
    bugs_page = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new").text
    assert all(kind in bugs_page for kind in ("shuffle-same-every-epoch", "accum-micro-batch-mean", "resume-rng-lost"))


def test_a_template_plants_a_pipeline_bug_in_data_py(web_client: TestClient, make_account,  # noqa: F811
                                                     db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _blank_pipeline_draft(web_client, token)
    proposed = web_client.get(f"/admin/scenarios/{slug}/versions/1/bugs/new?kind=shuffle-same-every-epoch")
    assert "The shuffle-same-every-epoch template changed data.py line" in proposed.text
    assert "g = torch.Generator().manual_seed(seed)" in proposed.text

    package = ScenarioPackage.from_dict(_newest(db, slug).content)
    planted = bug_edits.propose("shuffle-same-every-epoch", package.solution_files, "pipeline-v1")
    assert planted is not None
    form = {"csrf_token": token, "kind": "shuffle-same-every-epoch", "component": "data", "id": "one-order",
            "title": "Every epoch in the same order", **HINTS,
            **{f"edited/{name}": text for name, text in planted[0].items()}, "action": "add"}
    added = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data=form, follow_redirects=False)
    assert added.status_code == 303, added.text[:800]
    bug = _newest(db, slug).content["bugs"][-1]
    assert bug["id"] == "one-order" and [e["file"] for e in bug["edits"]] == ["data.py"]
    assert bug["edits"][0]["new"].strip() == "g = torch.Generator().manual_seed(seed)"
    starter = ScenarioPackage.from_dict(_newest(db, slug).content).starter_files
    assert starter["model.py"] == package.solution_files["model.py"]
    assert "manual_seed(seed)\n" in starter["data.py"]


def test_a_bug_that_edits_model_py_is_refused_saying_why(web_client: TestClient, make_account,  # noqa: F811
                                                         db: Session) -> None:
    token = _admin(web_client, make_account)
    slug = _blank_pipeline_draft(web_client, token)
    package = ScenarioPackage.from_dict(_newest(db, slug).content)
    model = package.solution_files["model.py"]
    assert model.count("self.gelu(self.c_fc(x))") == 1
    form = {"csrf_token": token, "kind": "mlp-no-nonlinearity", "component": "general", "id": "linear-mlp",
            "title": "An MLP without its nonlinearity", **HINTS,
            **{f"edited/{name}": text for name, text in package.solution_files.items()},
            "edited/model.py": model.replace("self.gelu(self.c_fc(x))", "self.c_fc(x)")}
    refused = web_client.post(f"/admin/scenarios/{slug}/versions/1/bugs", data={**form, "action": "add"})
    assert refused.status_code == 422
    assert "model.py is read-only in pipeline-v1 scenarios" in refused.text
    assert "plant the bug in data.py, train.py" in refused.text
    assert _newest(db, slug).content["bugs"] == []  # nothing stored


def test_drafts_and_packages_refuse_a_model_py_edit_alike() -> None:
    package = drafts.blank_package(slug="pipe-unit", title="Pipe", interface="pipeline-v1")
    edit = {"file": "model.py", "old": "self.gelu(self.c_fc(x))", "new": "self.c_fc(x)"}
    bug: drafts.NewBug = {"id": "linear", "kind": "mlp-no-nonlinearity", "component": "general", "title": "Linear",
                          "hints": ["a", "b", "c"], "explanation": {"expected": "e", "detect": "d", "fix": "f"},
                          "edits": [edit]}
    with pytest.raises(PackageError, match=r"model\.py is read-only in pipeline-v1 scenarios .* data\.py, train\.py"):
        drafts.with_bug(package, bug)
    # The same draft with the bug in train.py is fine.
    planted = bug_edits.propose("resume-rng-lost", package.solution_files, "pipeline-v1")
    assert planted is not None
    edits = [e.to_dict() for e in bug_edits.derive_edits(package.solution_files, planted[0])]
    fine = drafts.with_bug(package, {**bug, "kind": "resume-rng-lost", "component": "checkpoint", "edits": edits})
    assert [b.kind for b in fine.bugs] == ["resume-rng-lost"]

    # An uploaded scenario.toml says the same of an edit to model.py.
    template = find_builtin("padded-truths")
    assert template is not None
    files = {"scenario.toml": (
        'slug = "pipe-upload"\ntitle = "Pipe"\ndifficulty = "easy"\nsummary = "s"\ninterface = "pipeline-v1"\n'
        'time_limit_minutes = 30\nfiles = ["model.py", "data.py", "train.py"]\n\n[[bugs]]\nid = "linear"\n'
        'kind = "mlp-no-nonlinearity"\ncomponent = "general"\ntitle = "Linear"\nhints = ["a", "b", "c"]\n'
        '[bugs.explanation]\nexpected = "e"\ndetect = "d"\nfix = "f"\n[[bugs.edits]]\nfile = "model.py"\n'
        'old = "self.gelu(self.c_fc(x))"\nnew = "self.c_fc(x)"\n'),
        "brief.md": "# Pipe\n", **{f"solution/{n}": t for n, t in template.solution_files.items()}}
    with pytest.raises(PackageError, match=r"model\.py is read-only in pipeline-v1"):
        parse_package(files)
