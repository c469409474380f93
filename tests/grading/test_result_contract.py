"""The typed result contract carries every verdict field faithfully, and old stored rows stay readable."""

from __future__ import annotations

import io
import json

from app.engine.builtin import find_builtin
from app.engine.shared.verdicts import NOT_RUN, Verdict
from app.grading.commands import _print_report
from app.grading.result import BugResult, GradeResult, TestResult

INTERFACE = ("the gpt-v1 interface expects model(idx) to return (logits, None) with logits of shape "
             "(B, T, vocab_size): the logits of every position, but for idx of shape (2, 5) it returned "
             "logits of shape (2, 1, 37)")


def _not_run(test_id: str, component: str, *, public: bool = False) -> TestResult:
    verdict = Verdict(test_id, component, False, f"not run: {INTERFACE}", False, public,
                      status=NOT_RUN, reason=INTERFACE)
    return TestResult(**verdict.to_dict())


def test_every_field_of_a_verdict_is_a_field_of_the_typed_result():
    verdict = Verdict("attention.causal-perturb", "attention", False, f"not run: {INTERFACE}", False, False,
                      status=NOT_RUN, reason=INTERFACE)
    # extra="ignore" would drop a field the engine adds but the contract lacks: none may be missing.
    assert set(verdict.to_dict()) <= set(TestResult.model_fields)
    assert TestResult(**verdict.to_dict()).model_dump(include=set(verdict.to_dict())) == verdict.to_dict()


def test_not_run_tests_and_unverifiable_bugs_survive_storage():
    report = GradeResult(status="failed", tests=[_not_run("attention.causal-perturb", "attention")],
                         bugs=[BugResult(id="mask", component="attention", fixed=False, verifiable=False,
                                         reason=f"its tests were not run: {INTERFACE}")])
    stored = json.loads(json.dumps(report.to_dict()))
    again = GradeResult.from_stored(stored)
    assert again == report
    assert (again.tests[0].status, again.tests[0].reason) == ("not_run", INTERFACE)
    assert again.failing() == []


def test_rows_stored_before_statuses_and_reasons_read_back():
    old = {"status": "failed", "error": None, "score": 0.0,
           "tests": [{"id": "a", "component": "loss", "passed": False, "message": "m", "public": True},
                     {"id": "b", "component": "loss", "passed": True, "message": "", "applicable": False}],
           "bugs": [{"id": "x", "component": "loss", "title": "X", "fixed": False}]}
    result = GradeResult.from_stored(old)
    assert result is not None
    assert [(t.status, t.reason) for t in result.tests] == [("failed", None), ("not_applicable", None)]
    assert [(b.verifiable, b.reason) for b in result.bugs] == [(True, None)]


def test_dojo_grade_prints_not_run_tests_apart_from_failures_with_each_reason_once():
    report = GradeResult(status="failed", tests=[
        TestResult(id="general.interface", component="general", passed=False, message="does not follow",
                   public=True),
        _not_run("attention.causal-perturb", "attention"), _not_run("positional.depends-on-position", "positional"),
        TestResult(id="equivalence.logits", component="general", passed=True, applicable=False,
                   message="not applicable: other names"),
    ], bugs=[BugResult(id="mask", component="attention", verifiable=False, reason="its tests were not run: x")])
    out = io.StringIO()
    _print_report(find_builtin("leaky-mask"), report, out)
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines[1:5]] == ["FAIL", "NOT", "NOT", "n/a"]
    assert "attention.causal-perturb" in lines[2] and lines[2].endswith("(reason 1 below)")
    assert lines[3].endswith("(reason 1 below)")
    assert [line for line in lines if INTERFACE in line] == [f"  not run (1): {INTERFACE}"]
    assert lines[-1] == "  bug mask (attention): not verifiable: its tests were not run: x"
