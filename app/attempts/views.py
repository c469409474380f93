"""The attempt object of the JSON API, shaped for who is looking at it.

Candidates never see planted-bug ids, hidden test ids or hidden tests' messages (those can name the
fix); interviewers and admins see everything the grader reported plus the score.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching import service as coaching_service
from app.grading.result import GradeError, GradeResult, TestResult, TrainingSummary
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import Role, User

# What candidates see of the known-good run: its curves, sample and influence map, nothing else.
CANDIDATE_BASELINE_FIELDS = frozenset({
    "baseline_val_loss", "baseline_final_val_loss", "baseline_train_loss", "baseline_sample", "baseline_influence",
})
HIDDEN_MESSAGES = {"passed": "Hidden check passed.", "failed": "Hidden check failed.",
                   "not_applicable": "Hidden check does not apply to how this code is written."}
HIDDEN_NOT_RUN = "Hidden check not run"  # + the reason: an unmet interface item or the candidate's own crash


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def candidate_tests(tests: list[TestResult]) -> list[dict[str, Any]]:
    """Tests as a candidate sees them: hidden ones anonymised, only status and component kept. A test
    that was not run keeps its reason (an unmet interface item or the candidate's own crash, never a
    test id), so it reads as not run rather than failed."""
    shown, hidden_count = [], 0
    for test in tests:
        seen = {"component": test.component, "passed": test.passed, "status": test.status,
                "reason": test.reason if test.status == "not_run" else None}
        if test.public:
            shown.append({"id": test.id, **seen, "message": test.message, "hidden": False})
            continue
        hidden_count += 1
        message = (f"{HIDDEN_NOT_RUN}: {test.reason}." if test.status == "not_run"
                   else HIDDEN_MESSAGES.get(test.status, HIDDEN_MESSAGES["failed"]))
        shown.append({"id": f"hidden-{hidden_count}", **seen, "message": message, "hidden": True})
    return shown


def candidate_training(training: TrainingSummary | None) -> dict[str, Any] | None:
    """The training summary without reference outputs beyond what CANDIDATE_BASELINE_FIELDS allows."""
    if training is None:
        return None
    data = training.model_dump(mode="json")
    return {k: v for k, v in data.items() if not k.startswith("baseline_") or k in CANDIDATE_BASELINE_FIELDS}


# The version's number and slug only (its package and reference are large JSON); built once, since
# building the statement costs more than running it on the attempt the workspace polls.
_VERSION_AND_SLUG = (
    select(ScenarioVersion.version, Scenario.slug).join(Scenario, Scenario.id == ScenarioVersion.scenario_id)
    .where(ScenarioVersion.id == bindparam("version_id"))
)


def attempt_view(*, session: Session, attempt: Attempt, viewer: User) -> dict[str, Any]:
    """The API's attempt object for this viewer."""
    version_number, slug = session.execute(_VERSION_AND_SLUG, {"version_id": attempt.scenario_version_id}).one()
    result = GradeResult.from_stored(attempt.result)
    staff = viewer.role in (Role.interviewer.value, Role.admin.value)
    tests = result.tests if result else []
    training = result.training if result else None
    view: dict[str, Any] = {
        "id": attempt.id,
        "scenario": slug,
        "version": version_number,
        "kind": attempt.kind,
        "status": attempt.status,
        "error": _error_view(attempt.error),
        "tests": [t.model_dump(mode="json") for t in tests] if staff else candidate_tests(tests),
        "training": (training.model_dump(mode="json") if training else None) if staff else candidate_training(training),
        "tips": coaching_service.tips_of(session=session, attempt_id=attempt.id),
        "notes": attempt.notes,
        "files": attempt.files,
        "interview": attempt.interview_id,
        "progress": attempt.progress,
        "scratch": result.scratch.model_dump(mode="json") if result and result.scratch else None,
        "created_at": _iso(attempt.created_at),
        "started_at": _iso(attempt.started_at),
        "finished_at": _iso(attempt.finished_at),
    }
    if staff:
        view["bugs"] = [{"id": b.id, "component": b.component, "title": b.title, "fixed": b.fixed,
                         "verifiable": b.verifiable, "reason": b.reason} for b in (result.bugs if result else [])]
        view["score"] = attempt.score
        view["regressions"] = result.regressions if result else []
        view["tries"] = attempt.tries
        view["hints_used"] = attempt.hints_used
    return view


def _error_view(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if not error:
        return None
    parsed = GradeError.model_validate(error)
    return {"kind": parsed.kind, "message": parsed.message}
