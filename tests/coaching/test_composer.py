"""The rule coach's blocks beyond the notes: failures no note mentions, the tiny run, errors, empty notes."""

from __future__ import annotations

from app.coaching.composer import compose, read_notes
from app.coaching.evidence import evidence_for
from app.coaching.guard import EMPTY_GUARD
from app.grading.result import GradeError, GradeResult

from .conftest import facts

FAILED = GradeResult.model_validate({
    "status": "failed",
    "tests": [
        {"id": "attention.causal-perturb", "component": "attention", "passed": False, "message": "m"},
        {"id": "loss.matches-cross-entropy", "component": "loss", "passed": False, "message": "m"},
        {"id": "equivalence.logits", "component": "general", "passed": False, "applicable": False, "message": "n/a"},
        {"id": "general.forward-shapes", "component": "general", "passed": True, "message": "ok", "public": True},
        {"id": "training.not-too-good", "component": "training", "passed": False, "message": "m", "public": True},
    ],
})


def _tips(notes: dict[str, str], result: GradeResult | None = FAILED, status: str = "failed",
          error: GradeError | None = None):
    scenario = facts("leaky-mask")
    proof = evidence_for(attempt_kind="submit", status=status, result=result, error=error, facts=scenario)
    return compose(readings=read_notes(notes, ["find", "verify", "approach"]), evidence=proof, history=None,
                   guard=EMPTY_GUARD)


def test_failures_no_note_mentions_get_component_blocks_in_teaching_order() -> None:
    tips = _tips({})
    assert [(t.component, t.rules) for t in tips] == [
        ("loss", ("component.failing",)), ("attention", ("component.failing",)),
        ("training", ("training-run.failing",)), (None, ("notes.empty",))]


def test_a_failure_a_note_mentions_gets_no_separate_block() -> None:
    tips = _tips({"find": "Something was off in the attention weights; I also trained it for a few steps."})
    assert tips[0].note == "find" and tips[0].component == "attention"
    assert [t.component for t in tips[1:]] == ["loss"]


def test_notes_come_first_in_question_order() -> None:
    tips = _tips({"approach": "Read the code.", "find": "Printed shapes.", "verify": " "})
    assert [t.note for t in tips[:2]] == ["find", "approach"]


def test_an_error_gets_its_advice_and_nothing_about_tests() -> None:
    tips = _tips({}, result=None, status="error", error=GradeError(kind="timeout", message="too slow"))
    assert [t.rules for t in tips] == [("error",)]
    assert "how long" in tips[0].framing


def test_passing_attempt_with_notes_gets_only_note_blocks() -> None:
    passed = GradeResult.model_validate({"status": "passed", "tests": [
        {"id": "attention.causal-perturb", "component": "attention", "passed": True, "message": "m"}]})
    tips = _tips({"verify": "I fixed the causal mask and perturbed later tokens to confirm."}, result=passed,
                 status="passed")
    assert len(tips) == 1 and "note.claim-supported" in tips[0].rules


def test_tests_that_did_not_run_are_no_evidence_and_a_broken_interface_is_said_first() -> None:
    result = GradeResult.model_validate({"status": "failed", "tests": [
        {"id": "general.interface", "component": "general", "passed": False, "public": True, "status": "failed",
         "message": "GPT(config) raised TypeError"},
        {"id": "attention.causal-perturb", "component": "attention", "passed": False, "status": "not_run",
         "reason": "needs the interface"},
        {"id": "loss.matches-cross-entropy", "component": "loss", "passed": False, "status": "not_run"},
    ]})
    tips = _tips({"verify": "I fixed the causal mask."}, result=result)
    assert tips[0].rules[0] == "note.claim-unchecked"  # nothing ran that could confirm or contradict it
    assert [t.rules for t in tips[1:]] == [("interface.failing",)]


def test_a_run_cannot_confirm_what_only_hidden_checks_see() -> None:
    from .conftest import evidence

    proof = evidence("leaky-mask", "mutant:labels-not-shifted", kind="run")
    tips = compose(readings=read_notes({"verify": "Verified the positional embeddings train."}, ["verify"]),
                   evidence=proof, history=None, guard=facts("leaky-mask").guard)
    assert tips[0].rules[0] == "note.claim-unchecked"
    assert "a Run shows only the public checks" in tips[0].framing
