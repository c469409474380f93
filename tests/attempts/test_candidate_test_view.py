"""What a candidate reads of a hidden test that was not run: the reason, never the test's id."""

from __future__ import annotations

from app.attempts.views import candidate_tests
from app.grading.result import TestResult


def test_hidden_test_not_run_shows_the_reason_and_stays_anonymous():
    reason = ("the gpt-v1 interface expects model(idx) to return (logits, None) with logits of shape "
              "(B, T, vocab_size): the logits of every position, but for idx of shape (2, 5) it returned "
              "logits of shape (2, 1, 37)")
    tests = [TestResult(id="attention.causal-perturb", component="attention", passed=False, applicable=False,
                        status="not_run", reason=reason, message=f"not run: {reason}")]
    shown = candidate_tests(tests)
    assert shown == [{"id": "hidden-1", "component": "attention", "passed": False,
                      "message": f"Hidden check not run: {reason}.", "hidden": True}]
