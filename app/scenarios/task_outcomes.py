"""What one scenario-job task ended with, typed from the runner to the row (JobTask.outcome, JSON).

A validation run ends with the sandbox's HarnessOutcome; a rejudge's first task with whether the
version's reference is ready; each rejudge grading with the attempt's new verdict; any task whose run
broke, or whose worker kept dying, with a TaskFailed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from app.grading.result import GradeError, GradeResult
from app.sandbox.job import HarnessOutcome

M = TypeVar("M", GradeError, GradeResult)


@dataclass(frozen=True)
class TaskFailed:
    error_kind: str
    error_message: str

    def to_json(self) -> dict[str, Any]:
        return {"error_kind": self.error_kind, "error_message": self.error_message}


@dataclass(frozen=True)
class ReferenceReady:
    """A rejudge's first task: the version's reference is current (or could not be made)."""

    ready: bool

    def to_json(self) -> dict[str, Any]:
        return {"reference_ready": self.ready}


@dataclass(frozen=True)
class Verdict:
    """An attempt's verdict: a rejudge grading's new one (the task's outcome), or the one it had before
    (the task's `previous`), stored in the attempt row's JSON shapes."""

    status: str
    score: float | None
    error: GradeError | None
    result: GradeResult | None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "score": self.score,
                "error": None if self.error is None else self.error.model_dump(mode="json"),
                "result": None if self.result is None else self.result.to_dict()}

    @classmethod
    def from_json(cls, data: object) -> Verdict | None:
        """A stored verdict; None for a task that stored none (its grading crashed, or it has not run).

        A stored result that no longer reads as a GradeResult counts as no result, as it would on
        the attempt's pages.
        """
        if not isinstance(data, dict) or "status" not in data:
            return None
        score = data.get("score")
        return cls(status=str(data["status"]), score=None if score is None else float(score),
                   error=_read(GradeError, data.get("error")), result=_read(GradeResult, data.get("result")))


def _read(model: type[M], data: object) -> M | None:
    if not data:
        return None
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


TaskOutcome = HarnessOutcome | TaskFailed | ReferenceReady | Verdict


def to_json(outcome: TaskOutcome) -> dict[str, Any]:
    """What the task row stores: for a validation run its measurements or error, never its raw output."""
    if isinstance(outcome, HarnessOutcome):
        return {"result": outcome.result, "error_kind": outcome.error_kind, "error_message": outcome.error_message,
                "wall_seconds": round(outcome.wall_seconds, 3)}
    return outcome.to_json()
