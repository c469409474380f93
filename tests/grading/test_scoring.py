"""Which bugs count as fixed, hint penalties and regressions."""

from __future__ import annotations

from app.grading.result import TestResult
from app.grading.scoring import fixed_bugs, regressions, score

MATRIX = {
    "labels": {"data.targets", "training.learns", "training.too-good"},
    "mask": {"attention.perturb", "training.too-good", "equivalence.logits"},
    "scale": {"equivalence.logits", "equivalence.last"},
}


def test_nothing_failing_means_every_bug_fixed():
    assert fixed_bugs(MATRIX, set()) == {"labels": True, "mask": True, "scale": True}


def test_shared_failure_explained_by_a_remaining_bug_does_not_block_a_fix():
    # labels fixed; the mask bug remains and explains training.too-good and equivalence.logits
    failing = {"attention.perturb", "training.too-good", "equivalence.logits"}
    assert fixed_bugs(MATRIX, failing) == {"labels": True, "mask": False, "scale": True}


def test_distinctive_failure_marks_bug_unfixed():
    failing = {"equivalence.last", "equivalence.logits"}
    assert fixed_bugs(MATRIX, failing) == {"labels": True, "mask": True, "scale": False}


def test_unexplained_shared_failure_blocks_the_fix():
    # mask's own test passes, so nothing explains training.too-good: both sharing bugs stay unfixed
    failing = {"training.too-good"}
    assert fixed_bugs(MATRIX, failing) == {"labels": False, "mask": False, "scale": True}


def test_loud_bug_fixed_while_a_quiet_bug_inside_its_tests_remains():
    # "loud" crashes everything; "quiet" fails one test that loud also fails
    matrix = {"loud": {"a", "b", "c"}, "quiet": {"b"}}
    assert fixed_bugs(matrix, {"b"}) == {"loud": True, "quiet": False}
    assert fixed_bugs(matrix, {"a", "b", "c"}) == {"loud": False, "quiet": False}
    assert fixed_bugs(matrix, set()) == {"loud": True, "quiet": True}


def test_bugs_with_identical_tests_stay_unfixed_while_any_fails():
    matrix = {"x": {"t"}, "y": {"t"}}
    assert fixed_bugs(matrix, {"t"}) == {"x": False, "y": False}


def test_undetectable_bug_is_never_fixed():
    assert fixed_bugs({"ghost": set(), "real": {"a"}}, set()) == {"ghost": False, "real": True}


def test_score_subtracts_hint_penalties_per_bug():
    fixed = {"a": True, "b": True, "c": False, "d": False}
    assert score(fixed, None) == 0.5
    assert score(fixed, {"a": 2, "c": 3}) == round(0.25 * 0.7 + 0.25, 4)
    assert score(fixed, {"a": 10}) == 0.25


def test_regressions_are_new_failures_only():
    outcomes = (("x", False), ("y", False), ("z", True))
    tests = [TestResult(id=name, component="loss", passed=passed) for name, passed in outcomes]
    assert regressions(tests, starter_failing=["x"]) == ["y"]


def _report():
    from app.engine.validator import BugDetection, ValidationReport

    return ValidationReport(slug="s", version="v", content_hash="h", bugs=[
        BugDetection(id="mask", kind="mask-missing", component="attention", title="M",
                     detected_by=["attention.causal-perturb", "equivalence.logits"]),
        BugDetection(id="scale", kind="attn-scale-wrong", component="attention", title="S",
                     detected_by=["equivalence.logits", "equivalence.last-position"]),
        BugDetection(id="leak", kind="mask-future-leak", component="attention", title="L",
                     detected_by=["training.not-too-good", "attention.random-token-leak"])])


def _verdict(test_id: str, status: str, reason: str | None = None) -> TestResult:
    return TestResult(id=test_id, component="attention", passed=status == "passed",
                      applicable=status in ("passed", "failed"), status=status, reason=reason)


def test_bug_seen_only_by_not_applicable_tests_is_unverifiable():
    from app.grading.grader import _bugs

    verdicts = [_verdict("attention.causal-perturb", "passed"), _verdict("equivalence.logits", "not_applicable"),
                _verdict("equivalence.last-position", "not_applicable"),
                _verdict("training.not-too-good", "passed"), _verdict("attention.random-token-leak", "passed")]
    bugs = _bugs(_report(), verdicts)
    assert [(b.id, b.fixed, b.verifiable) for b in bugs] == [("mask", True, True), ("scale", False, False),
                                                             ("leak", True, True)]
    assert bugs[1].reason == "the tests that detect it do not apply to how this submission is written"
    assert bugs[0].reason is None


def test_bug_whose_tests_could_not_run_is_unverifiable_with_the_crash_not_unfixed():
    from app.grading.grader import _bugs

    crash = "the tiny training run stopped with RuntimeError: boom (model.py:3)"
    verdicts = [_verdict("attention.causal-perturb", "failed"), _verdict("equivalence.logits", "passed"),
                _verdict("equivalence.last-position", "passed"),
                _verdict("training.not-too-good", "not_run", crash),
                _verdict("attention.random-token-leak", "not_run", "the training run on random tokens stopped")]
    bugs = {b.id: b for b in _bugs(_report(), verdicts)}
    assert (bugs["leak"].fixed, bugs["leak"].verifiable) == (False, False)
    assert bugs["leak"].reason == f"its tests were not run: {crash}"
    assert (bugs["mask"].fixed, bugs["mask"].verifiable) == (False, True)
    assert (bugs["scale"].fixed, bugs["scale"].verifiable) == (True, True)


def test_run_that_produced_no_measurements_leaves_every_bug_unverifiable():
    from app.grading.grader import _bugs
    from app.grading.result import GradeError

    bugs = _bugs(_report(), None, GradeError(kind="timeout", message="the run took longer than 90 s"))
    assert all(not b.fixed and not b.verifiable for b in bugs)
    assert bugs[0].reason == "the submission could not be graded (timeout: the run took longer than 90 s)"


def test_not_run_tests_are_not_regressions():
    tests = [_verdict("x", "not_run", "an unmet interface item"), _verdict("y", "failed")]
    assert regressions(tests, starter_failing=[]) == ["y"]


def test_stored_results_without_a_status_derive_it():
    assert TestResult(id="a", component="loss", passed=False).status == "failed"
    assert TestResult(id="a", component="loss", passed=True, applicable=False).status == "not_applicable"
