"""What a candidate reads of hidden tests: a status and, when not run, the reason, never the test's id."""

from __future__ import annotations

from app.attempts.views import candidate_tests
from app.grading.result import TestResult

REASON = ("the gpt-v1 interface expects model(idx) to return (logits, None) with logits of shape "
          "(B, T, vocab_size): the logits of every position, but for idx of shape (2, 5) it returned "
          "logits of shape (2, 1, 37)")


def test_hidden_test_not_run_shows_the_reason_and_stays_anonymous():
    tests = [TestResult(id="attention.causal-perturb", component="attention", passed=False, applicable=False,
                        status="not_run", reason=REASON, message=f"not run: {REASON}")]
    shown = candidate_tests(tests)
    assert shown == [{"id": "hidden-1", "component": "attention", "passed": False, "status": "not_run",
                      "reason": REASON, "message": f"Hidden check not run: {REASON}.", "hidden": True}]


def test_each_hidden_status_reads_as_itself_and_public_tests_keep_their_message():
    tests = [TestResult(id="attention.causal-perturb", component="attention", passed=False, message="leak at 3"),
             TestResult(id="attention.rows-sum-to-one", component="attention", passed=True, applicable=False,
                        message="not applicable: no softmax"),
             TestResult(id="training.finite", component="training", passed=False, applicable=False, public=True,
                        status="not_run", reason="the tiny training run stopped with E",
                        message="not run: the tiny training run stopped with E")]
    shown = candidate_tests(tests)
    assert [(t["id"], t["status"], t["message"]) for t in shown] == [
        ("hidden-1", "failed", "Hidden check failed."),
        ("hidden-2", "not_applicable", "Hidden check does not apply to how this code is written."),
        ("training.finite", "not_run", "not run: the tiny training run stopped with E")]
    assert "causal" not in str(shown) and "softmax" not in str(shown)
