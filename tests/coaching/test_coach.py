"""The rule-based coach: tips follow what failed and what the notes leave out."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching.models import AI_NOTICE
from app.coaching.service import coach_attempt, failing_components, tips_for, tips_of
from app.grading.result import GradeError, GradeResult
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import User

FAILED_RESULT = GradeResult.model_validate({
    "status": "failed",
    "tests": [
        {"id": "attention.perturb", "component": "attention", "passed": False, "message": "later tokens changed"},
        {"id": "loss.oracle", "component": "loss", "passed": False, "message": "oracle loss high"},
        {"id": "equiv.logits", "component": "general", "passed": False, "applicable": False, "message": "n/a"},
        {"id": "shape", "component": "general", "passed": True, "message": "ok"},
    ],
})


def test_failing_components_in_teaching_order_ignoring_not_applicable() -> None:
    assert failing_components(FAILED_RESULT) == ["loss", "attention"]


def test_tips_follow_failures_and_missing_habits() -> None:
    tips = tips_for(status="failed", result=FAILED_RESULT, error=None, notes={"find": "I read the code."})
    assert [t.component for t in tips] == ["loss", "attention", None]
    for tip in tips:
        assert tip.framing.startswith("Frame your")
        assert 3 <= len(tip.steps) <= 5
    assert any("overfitting one batch" in s for s in tips[-1].steps)


def test_notes_that_cover_every_habit_get_no_write_up_tip() -> None:
    notes = {"approach": "Root cause was X because Y; I wrote a test per component, overfit one batch, "
                         "compared with the baseline and watched the validation loss."}
    tips = tips_for(status="passed", result=GradeResult(status="passed"), error=None, notes=notes)
    assert tips == []


def test_training_run_failures_get_curve_advice_not_loop_advice() -> None:
    result = GradeResult.model_validate(
        {"status": "failed",
         "tests": [{"id": "training.not-too-good", "component": "training", "passed": False, "message": "m"}]})
    tips = tips_for(status="failed", result=result, error=None, notes={})
    assert failing_components(result) == []
    assert tips[0].component == "training" and "curves" in tips[0].framing


def test_error_attempt_gets_error_advice_first() -> None:
    tips = tips_for(status="error", result=None, error=GradeError(kind="syntax", message="model.py line 3"), notes={})
    assert tips[0].component is None and "import cleanly" in tips[0].framing


def test_coach_attempt_stores_tips_with_notice_and_replaces_them(db: Session) -> None:
    user = User(email="c@example.com", role="candidate", password_hash=None)
    scenario = Scenario(slug="s", title="S")
    db.add_all([user, scenario])
    db.flush()
    version = ScenarioVersion(scenario_id=scenario.id, version=1, title="S", difficulty="easy", content={},
                              content_hash="h")
    db.add(version)
    db.flush()
    attempt = Attempt(user_id=user.id, scenario_version_id=version.id, files={}, status="failed",
                      result=FAILED_RESULT.to_dict(), notes={})
    db.add(attempt)
    db.flush()
    first = coach_attempt(session=db, attempt_id=attempt.id)
    again = coach_attempt(session=db, attempt_id=attempt.id)
    stored = tips_of(session=db, attempt_id=attempt.id)
    assert len(first) == len(again) == len(stored) == 3
    assert all(t["notice"] == AI_NOTICE and t["source"] == "rules" for t in stored)
