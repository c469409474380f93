"""Authoring warnings: llama-v1 bug templates, comments that give a bug away, bugs that share all their
detecting tests (publishing them asks for "publish without per-bug credit"), no stale status lines."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from app.engine.builtin import builtin_packages, find_builtin
from app.engine.edits import Edit
from app.engine.package import ScenarioPackage
from app.scenarios import authoring, bug_edits
from app.scenarios.models import Scenario, ScenarioVersion

LLAMA_KINDS_WITHOUT_TEMPLATE = {"cache-after-repeat-kv"}  # the bug moves lines: planted by hand


def test_every_llama_v1_kind_a_built_in_plants_has_a_template_that_fits_the_llama_template_solution() -> None:
    template = find_builtin("norm-and-gate")  # llama-v1's blank template scenario
    assert template is not None and template.interface == "llama-v1"
    planted = {b.kind for p in builtin_packages() if p.interface == "llama-v1" for b in p.bugs}
    assert planted - LLAMA_KINDS_WITHOUT_TEMPLATE <= set(bug_edits.templates_for("llama-v1"))
    for kind in bug_edits.templates_for("llama-v1"):
        proposed = bug_edits.propose(kind, template.solution_files, "llama-v1")
        if kind == "repeat-kv-wrong-axis":  # the template uses enable_gqa; grouped-queries has repeat_kv
            assert proposed is None
            proposed = bug_edits.propose(kind, find_builtin("grouped-queries").solution_files, "llama-v1")
        assert proposed is not None, kind
        files, _where = proposed
        edits = bug_edits.derive_edits(template.solution_files if kind != "repeat-kv-wrong-axis"
                                       else find_builtin("grouped-queries").solution_files, files)
        assert len(edits) == 1, kind
        assert bug_edits.comment_warnings({}, [(kind, kind, "", edits)]) == [], kind
    # gpt-v1's templates are not offered for llama-v1 solutions, and the reverse
    assert bug_edits.propose("mlp-no-nonlinearity", template.solution_files, "llama-v1") is None
    assert "swiglu-gate-wrong" not in bug_edits.templates_for("gpt-v1")


def test_a_comment_that_names_the_bug_is_a_warning_and_a_cover_story_is_not() -> None:
    old = "        att = F.softmax(att, dim=-1)\n"
    telling = Edit("model.py", old, "        att = F.softmax(att, dim=-2)  # BUG: should be -1\n")
    named = Edit("model.py", old, "        att = F.softmax(att, dim=-2)  # softmax-wrong-dim here\n")
    cover = Edit("model.py", old, "        att = F.softmax(att, dim=-2)  # normalise each column\n")
    kept = Edit("model.py", "x = 1  # wrong on purpose\n", "x = 2  # wrong on purpose\n")
    found = bug_edits.comment_warnings({}, [("over-queries", "softmax-wrong-dim", "Softmax", [telling, named]),
                                            ("quiet", "softmax-wrong-dim", "Quiet", [cover, kept])])
    assert len(found) == 2
    assert "bug over-queries" in found[0] and "“BUG”" in found[0] and "# BUG: should be -1" in found[0]
    assert "its kind softmax-wrong-dim" in found[1]
    # no built-in leaves such a comment in its starter
    for package in builtin_packages():
        assert bug_edits.comment_warnings(
            package.solution_files, [(b.id, b.kind, b.title, list(b.edits)) for b in package.bugs]) == []


REPORT = {"valid": True, "content_hash": "h", "problems": [],
          "bugs": [{"id": "a", "detected_by": ["t1", "t2"]}, {"id": "b", "detected_by": ["t1", "t2", "t3"]},
                   {"id": "c", "detected_by": ["t4"]}]}


def test_bugs_whose_tests_all_catch_another_bug_are_named() -> None:
    assert authoring.shared_tests(REPORT) == [("a", "b")]
    warning = authoring.credit_warning(REPORT)
    assert warning is not None and "every test that catches a also catches b" in warning
    assert authoring.credit_warning({**REPORT, "bugs": REPORT["bugs"][1:]}) is None
    cache_drift = {"bugs": [{"id": i, "detected_by": ["x", "y"]} for i in ("p", "q", "r")]}
    assert len(authoring.shared_tests(cache_drift)) == 6  # every ordered pair


def _draft(db: Session, report: dict) -> ScenarioVersion:
    package = find_builtin("warm-up")
    assert package is not None
    scenario = Scenario(slug="shared-tests-draft", title="Shared")
    db.add(scenario)
    db.flush()
    version = ScenarioVersion(scenario_id=scenario.id, version=1, title="Shared", difficulty="easy",
                              content=package.to_dict(), content_hash="h", status="draft", validation=report)
    db.add(version)
    db.flush()
    return version


def test_publishing_bugs_that_share_their_tests_needs_an_explicit_without_per_bug_credit(db: Session) -> None:
    version = _draft(db, REPORT)
    with pytest.raises(authoring.AuthoringError) as refused:
        authoring.publish(session=db, slug="shared-tests-draft", version=version, user=None)
    assert refused.value.status_code == 409 and "publish without per-bug credit" in refused.value.detail
    assert version.status == "draft"
    authoring.publish(session=db, slug="shared-tests-draft", version=version, user=None, without_per_bug_credit=True)
    assert version.status == "published"
    assert ScenarioPackage.from_dict(version.content).slug == "warm-up"
