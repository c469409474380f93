"""Run the gpt-v1 harness on a set of files through whichever Runner the caller supplies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.engine.gpt_v1.bundle import harness_bundle_dir
from app.engine.package import ScenarioPackage
from app.sandbox.job import HarnessJob, HarnessOutcome, Limits, Runner

RESULT_SCHEMA = "dojo.gpt-v1.result/1"


def configured_limits() -> Limits:
    """The sandbox limits for one harness run, with the CPU and wall-clock caps from the settings."""
    from app.core.settings import get_settings

    settings = get_settings()
    return Limits(cpu_seconds=settings.grading_cpu_seconds, wall_seconds=settings.grading_wall_seconds)


def run_harness(*, package: ScenarioPackage, files: dict[str, str], runner: Runner,
                limits: Limits | None = None,
                on_progress: Callable[[dict[str, Any]], None] | None = None) -> HarnessOutcome:
    """Measure `files` (a complete set of the scenario's files) in the runner."""
    job_input: dict[str, Any] = {"files": list(package.files), "training": dict(package.training)}
    job = HarnessJob(candidate_files=dict(files), harness_dir=harness_bundle_dir(), input=job_input,
                     limits=limits or configured_limits(), on_progress=on_progress)
    outcome = runner.run(job)
    if outcome.result is not None and outcome.result.get("schema") != RESULT_SCHEMA:
        outcome.result, outcome.error_kind = None, "sandbox"
        outcome.error_message = "the harness wrote a result in an unexpected format"
    return outcome


def outcome_error(outcome: HarnessOutcome) -> dict[str, str] | None:
    """{kind, message} when the run produced no measurements (limits, crash, syntax, import)."""
    if outcome.error_kind is not None or outcome.result is None:
        return {"kind": outcome.error_kind or "crash", "message": outcome.error_message or "no result"}
    err = outcome.result.get("error")
    if err:
        return {"kind": str(err.get("kind", "crash")), "message": str(err.get("message", ""))[:500]}
    return None
