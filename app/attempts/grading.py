"""The bridge from a claimed attempt to the grader: package + files in, attempt fields out."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.grading.result import GradeError, GradeResult
from app.sandbox.progress import Progress, ProgressCallback

if TYPE_CHECKING:
    from app.engine.package import ScenarioPackage

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class GradeOutcome:
    """What gets written to the attempt row (claims.finish turns it into the row's JSON)."""

    status: str
    result: GradeResult | None
    error: GradeError | None
    score: float | None


def grade(*, package: ScenarioPackage, files: dict[str, str], kind: str, hints_used: dict[str, int],
          version_id: int | None = None, reference: object = None,
          on_progress: ProgressCallback | None = None) -> GradeOutcome:
    """Grade candidate files against a scenario version's package and its stored reference (or run scratch.py).

    `reference` is the version row's stored report (its JSON column, read by
    app.scenarios.reference.current_report); when it is missing or from another engine version it is
    computed here once and written back to the row (`version_id`).
    """
    from app.grading.grader import grade_files
    from app.sandbox import SandboxUnavailableError, get_runner
    from app.scenarios import reference as reference_store

    try:
        runner = get_runner()
    except SandboxUnavailableError:
        # The details (host paths, the missing package) go to the log, not to the candidate.
        log.exception("grading refused: no usable sandbox")
        return internal_error("Grading is unavailable: this server has no working sandbox. Please tell the "
                              "administrator; your submission is kept.")
    if kind == "scratch":  # the candidate's experiment: no reference, no checks, no score
        from app.grading.scratch import run_scratch

        return outcome_from_report(run_scratch(package=package, files=files, runner=runner), scored=False)
    stored = reference_store.current_report(reference, package)
    if stored is None and version_id is not None:
        if on_progress is not None:
            on_progress(Progress("reference"))
        stored = reference_store.ensure_version_reference(version_id=version_id, package=package, runner=runner)
    # A "run" reports only the public tests; a "submit" reports the hidden ones too.
    report = grade_files(package=package, files=files, runner=runner, hints_used=hints_used, kind=kind,
                         reference=stored, on_progress=on_progress)
    return outcome_from_report(report)


def outcome_from_report(report: GradeResult, *, scored: bool = True) -> GradeOutcome:
    """Map the grader's report onto the attempt's status, error and score."""
    return GradeOutcome(status=report.status, result=report, error=report.error,
                        score=report.score if scored else None)


def internal_error(message: str) -> GradeOutcome:
    """The grader itself broke (not the candidate's code): recorded as a sandbox error."""
    return GradeOutcome(status="error", result=None, error=GradeError(kind="sandbox", message=message),
                        score=None)
