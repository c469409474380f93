"""What one scenario-job task ended with, typed from the runner to the row (JobTask.outcome, JSON).

A validation run ends with the sandbox's HarnessOutcome; a rejudge's first task with whether the
version's reference is ready; each rejudge grading with the attempt's new verdict; any task whose run
broke, or whose worker kept dying, with a TaskFailed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.sandbox.job import HarnessOutcome


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
class Regraded:
    """A rejudge grading: the attempt's new verdict, in the attempt row's JSON shapes."""

    status: str
    score: float | None
    error: dict[str, Any] | None
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "score": self.score, "error": self.error, "result": self.result}


TaskOutcome = HarnessOutcome | TaskFailed | ReferenceReady | Regraded


def to_json(outcome: TaskOutcome) -> dict[str, Any]:
    """What the task row stores: for a validation run its measurements or error, never its raw output."""
    if isinstance(outcome, HarnessOutcome):
        return {"result": outcome.result, "error_kind": outcome.error_kind, "error_message": outcome.error_message,
                "wall_seconds": round(outcome.wall_seconds, 3)}
    return outcome.to_json()
