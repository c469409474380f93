"""Run a scenario's interface harness on a set of files through whichever sandbox Runner the caller supplies."""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.interfaces import get_interface
from app.engine.measurements import Measurements
from app.engine.package import ScenarioPackage
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits, Runner
from app.sandbox.progress import ProgressCallback


@dataclass(frozen=True)
class HarnessError:
    """Why a run produced no measurements: limits, crash, syntax, import or sandbox (app.sandbox.job.ErrorKind)."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def configured_limits() -> Limits:
    """The sandbox limits for one harness run, with the CPU and wall-clock caps from the settings."""
    from app.core.settings import get_settings

    settings = get_settings()
    return Limits(cpu_seconds=settings.grading_cpu_seconds, wall_seconds=settings.grading_wall_seconds)


def _import_seconds() -> float:
    from app.core.settings import get_settings

    return get_settings().grading_import_seconds


def run_harness(*, package: ScenarioPackage, files: dict[str, str], runner: Runner,
                limits: Limits | None = None, on_progress: ProgressCallback | None = None) -> HarnessOutcome:
    """Measure `files` (a complete set of the scenario's files) in the runner."""
    interface = get_interface(package.interface)
    job = HarnessJob(candidate_files=dict(files), harness_dir=interface.harness_bundle_dir(),
                     input={"files": list(package.files), "training": dict(package.training),
                            "import_seconds": _import_seconds()},
                     limits=limits or configured_limits(), on_progress=on_progress)
    outcome = runner.run(job)
    if outcome.result is not None and outcome.result.get("schema") != interface.result_schema:
        outcome.result, outcome.error_kind = None, "sandbox"
        outcome.error_message = "the harness wrote a result in an unexpected format"
    return outcome


def outcome_error(outcome: HarnessOutcome) -> HarnessError | None:
    """Why the run produced no measurements (limits, crash, syntax, import), or None when it did."""
    if outcome.error_kind is not None or outcome.result is None:
        return HarnessError(outcome.error_kind or "crash", outcome.error_message or "no result")
    err = outcome.result.get("error")
    if not err:
        return None
    if isinstance(err, dict):
        return HarnessError(str(err.get("kind", "crash")), str(err.get("message", ""))[:500])
    return HarnessError("crash", str(err)[:500])


def measured(outcome: HarnessOutcome) -> Measurements | None:
    """The run's measurements: result.json made into Measurements here, once; None exactly when
    outcome_error says why there are none."""
    if outcome.result is None or outcome_error(outcome) is not None:
        return None
    return Measurements.from_json(outcome.result)
