"""Which bugs count as fixed, hint penalties and regressions."""

from __future__ import annotations

from app.grading.result import TestResult
from app.grading.scoring import Matrix, judge_bugs, regressions, score

MATRIX = {
    "labels": {"data.targets", "training.learns", "training.too-good"},
    "mask": {"attention.perturb", "training.too-good", "equivalence.logits"},
    "scale": {"equivalence.logits", "equivalence.last"},
}
TESTS = set().union(*MATRIX.values()) | {"general.shapes"}


def _matrix(detected_by=MATRIX, starter_failing=None, pairs=None) -> Matrix:
    caught = set().union(*detected_by.values())
    return Matrix(detected_by={b: frozenset(t) for b, t in detected_by.items()},
                  starter_failing=frozenset(caught if starter_failing is None else starter_failing),
                  pairs=pairs or {})


def _judge(matrix: Matrix, failing: set[str], tests: set[str] = TESTS) -> dict[str, str]:
    return judge_bugs(matrix, {t: t in failing for t in tests})


def test_nothing_failing_means_every_bug_fixed():
    assert _judge(_matrix(), set()) == {"labels": "fixed", "mask": "fixed", "scale": "fixed"}


def test_the_starter_and_each_single_bug_are_judged_exactly():
    matrix = _matrix()
    assert _judge(matrix, set().union(*MATRIX.values())) == {b: "not_fixed" for b in MATRIX}
    for bug, tests in MATRIX.items():
        assert _judge(matrix, set(tests)) == {b: "not_fixed" if b == bug else "fixed" for b in MATRIX}


def test_shared_failure_explained_by_a_remaining_bug_does_not_block_a_fix():
    # labels fixed; the mask bug remains and explains training.too-good and equivalence.logits
    failing = {"attention.perturb", "training.too-good", "equivalence.logits"}
    assert _judge(_matrix(), failing) == {"labels": "fixed", "mask": "not_fixed", "scale": "fixed"}


def test_a_bug_whose_tests_the_starter_passes_is_never_fixed_while_its_hider_remains():
    # label-trouble's shape: "shift" fails data.targets alone, but with "pad" planted too it passes
    matrix = _matrix({"shift": {"data.targets"}, "pad": {"data.pad", "data.targets"}},
                     starter_failing={"data.pad"})
    tests = {"data.targets", "data.pad"}
    # only both bugs together fail data.pad and pass data.targets: shift's passing test is no fix
    assert _judge(matrix, {"data.pad"}, tests) == {"shift": "not_fixed", "pad": "not_fixed"}
    assert _judge(matrix, set(), tests) == {"shift": "fixed", "pad": "fixed"}
    assert _judge(matrix, {"data.targets"}, tests) == {"shift": "not_fixed", "pad": "fixed"}


def test_bugs_with_identical_tests_cannot_be_told_apart_while_any_fails():
    matrix = _matrix({"x": {"t"}, "y": {"t"}, "z": {"u"}})
    assert _judge(matrix, {"t"}, {"t", "u"}) == {"x": "cannot_tell", "y": "cannot_tell", "z": "fixed"}
    assert _judge(matrix, set(), {"t", "u"}) == {"x": "fixed", "y": "fixed", "z": "fixed"}


def test_a_masking_pair_that_passes_a_test_keeps_both_bugs_open():
    matrix = _matrix({"a": {"t", "a-only"}, "b": {"t", "b-only"}, "c": {"c-only"}},
                     pairs={frozenset({"a", "b"}): frozenset({"t"})})
    tests = {"t", "a-only", "b-only", "c-only"}
    assert _judge(matrix, {"a-only", "b-only"}, tests) == {"a": "not_fixed", "b": "not_fixed", "c": "fixed"}


def test_a_change_outside_the_planted_bugs_credits_no_fix_until_it_is_undone():
    # every bug's tests pass, but the submission broke general.shapes, which no bug fails: a change that
    # can hide bugs as well (a model returning zero logits passes every cache test), so nothing is scored
    assert _judge(_matrix(), {"general.shapes"}) == {"labels": "cannot_tell", "mask": "cannot_tell",
                                                      "scale": "cannot_tell"}
    # scale's own distinctive test fails: scale is surely there; the others cannot be told
    assert _judge(_matrix(), {"general.shapes", "equivalence.last"}) == {
        "labels": "cannot_tell", "mask": "cannot_tell", "scale": "not_fixed"}


def test_undetectable_bug_is_never_fixed():
    matrix = _matrix({"ghost": set(), "real": {"a"}})
    assert _judge(matrix, set(), {"a"}) == {"ghost": "not_verifiable", "real": "fixed"}


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
    verdicts = [_verdict("attention.causal-perturb", "failed"), _verdict("equivalence.logits", "failed"),
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


def test_a_failed_gate_test_hides_nothing():
    # the training run crashed: training.runs fails and the tests that need it were not run (absent here);
    # a crash cannot make another test pass, so the other bugs are judged exactly as without it
    tests = {"attention.perturb", "equivalence.logits", "equivalence.last", "data.targets", "training.runs"}
    assert _judge(_matrix(), {"training.runs"}, tests) == {"labels": "fixed", "mask": "fixed", "scale": "fixed"}



def test_a_leak_probe_passing_in_an_unmeasured_combination_credits_no_fix():
    """Three bugs together can leak less than one of them alone (attention-zoo's starter without
    mask-after-softmax passes the leak probe): a trained quantity predicts nothing for a combination
    never measured, so the bug whose only own test is that probe is "cannot tell yet", never "fixed"."""
    from app.grading.scoring import Matrix, judge_bugs

    matrix = Matrix(detected_by={"a": frozenset({"attention.causal-perturb", "training.not-too-good"}),
                                 "b": frozenset({"attention.score-scale"}),
                                 "leak": frozenset({"attention.causal-perturb", "attention.random-token-leak"})},
                    starter_failing=frozenset({"attention.causal-perturb", "attention.score-scale",
                                               "attention.random-token-leak", "training.not-too-good"}),
                    pairs={})
    observed = {"attention.causal-perturb": True, "attention.score-scale": True, "training.not-too-good": True,
                "attention.random-token-leak": False}
    assert judge_bugs(matrix, observed) == {"a": "not_fixed", "b": "not_fixed", "leak": "cannot_tell"}
    # Alone, the bug's mutant is measured: a passing leak probe then says it is gone.
    alone = {"attention.causal-perturb": False, "attention.score-scale": True, "training.not-too-good": False,
             "attention.random-token-leak": False}
    assert judge_bugs(matrix, alone) == {"a": "fixed", "b": "not_fixed", "leak": "fixed"}
