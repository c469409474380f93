"""The attempt object of the JSON API, shaped for who is looking at it.

Candidates never see planted-bug ids, hidden test ids or hidden tests' messages (those can name the
fix); interviewers and admins see everything the grader reported plus the score.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.coaching import service as coaching_service
from app.scenarios.models import Scenario, ScenarioVersion
from app.users.models import Role, User

# The baseline curves candidates compare against (CONTRACTS.md); other reference outputs stay hidden.
CANDIDATE_BASELINE_KEYS = frozenset({"baseline_val_loss", "baseline_final_val_loss", "baseline_train_loss"})
HIDDEN_PASSED = "Hidden check passed."
HIDDEN_FAILED = "Hidden check failed."


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def is_hidden_test(test: dict[str, Any]) -> bool:
    """The engine marks hidden tests; anything not marked public is treated as hidden."""
    if "hidden" in test:
        return bool(test["hidden"])
    if "public" in test:
        return not test["public"]
    return test.get("visibility", "hidden") != "public"


def candidate_tests(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tests as a candidate sees them: hidden ones anonymised, only verdict and component kept."""
    shown, hidden_count = [], 0
    for test in tests:
        if is_hidden_test(test):
            hidden_count += 1
            passed = bool(test.get("passed"))
            shown.append({
                "id": f"hidden-{hidden_count}",
                "component": test.get("component"),
                "passed": passed,
                "message": HIDDEN_PASSED if passed else HIDDEN_FAILED,
                "hidden": True,
            })
        else:
            shown.append({
                "id": test.get("id"),
                "component": test.get("component"),
                "passed": bool(test.get("passed")),
                "message": test.get("message"),
                "hidden": False,
            })
    return shown


def candidate_training(training: dict[str, Any] | None) -> dict[str, Any] | None:
    """The training summary without reference outputs beyond the baseline loss curves."""
    if training is None:
        return None
    return {k: v for k, v in training.items() if not k.startswith("baseline_") or k in CANDIDATE_BASELINE_KEYS}


def attempt_view(*, session: Session, attempt: Attempt, viewer: User) -> dict[str, Any]:
    """The API's attempt object for this viewer."""
    version = session.get(ScenarioVersion, attempt.scenario_version_id)
    assert version is not None
    slug = session.scalar(select(Scenario.slug).where(Scenario.id == version.scenario_id))
    result = attempt.result or {}
    staff = viewer.role in (Role.interviewer.value, Role.admin.value)
    view: dict[str, Any] = {
        "id": attempt.id,
        "scenario": slug,
        "version": version.version,
        "kind": attempt.kind,
        "status": attempt.status,
        "error": _error_view(attempt.error),
        "tests": list(result.get("tests") or []) if staff else candidate_tests(list(result.get("tests") or [])),
        "training": result.get("training") if staff else candidate_training(result.get("training")),
        "tips": coaching_service.tips_of(session=session, attempt_id=attempt.id),
        "notes": attempt.notes,
        "files": attempt.files,
        "interview": attempt.interview_id,
        "created_at": _iso(attempt.created_at),
        "started_at": _iso(attempt.started_at),
        "finished_at": _iso(attempt.finished_at),
    }
    if staff:
        view["bugs"] = [
            {"id": b.get("id"), "component": b.get("component"), "title": b.get("title"), "fixed": b.get("fixed")}
            for b in (result.get("bugs") or [])
        ]
        view["score"] = attempt.score
        view["regressions"] = result.get("regressions") or []
        view["tries"] = attempt.tries
        view["hints_used"] = attempt.hints_used
    return view


def _error_view(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if not error:
        return None
    return {"kind": error.get("kind"), "message": error.get("message")}

