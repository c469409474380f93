"""Run a candidate's scratch.py against their current files in the sandbox: output only, never graded."""

from __future__ import annotations

from app.engine.interfaces import get_interface
from app.engine.package import ScenarioPackage
from app.engine.scratch import FILE_NAME, SCHEMA, scratch_bundle_dir
from app.grading.grader import complete_files
from app.grading.result import GradeError, GradeResult, ScratchOutput
from app.sandbox.job import HarnessJob, Limits, Runner

KiB = 1024


def scratch_limits() -> Limits:
    """A few seconds of CPU and a small output cap: the console is for quick experiments."""
    from app.core.settings import get_settings

    settings = get_settings()
    return Limits(cpu_seconds=settings.scratch_cpu_seconds, wall_seconds=settings.scratch_wall_seconds,
                  max_output_bytes=settings.scratch_output_kib * KiB)


def run_scratch(*, package: ScenarioPackage, files: dict[str, str], runner: Runner,
                limits: Limits | None = None) -> GradeResult:
    """passed when scratch.py exited 0, failed for another exit status, error when a limit stopped it."""
    script = files.get(FILE_NAME, "")
    candidate = complete_files(package, {name: text for name, text in files.items() if name != FILE_NAME})
    candidate[FILE_NAME] = script
    job = HarnessJob(candidate_files=candidate, harness_dir=scratch_bundle_dir(get_interface(package.interface)),
                     input={}, limits=limits or scratch_limits())
    outcome = runner.run(job)
    result = outcome.result or {}
    exit_code = result.get("exit_code") if result.get("schema") == SCHEMA else None
    output = ScratchOutput(stdout=outcome.stdout, stderr=outcome.stderr,
                           exit_code=exit_code if isinstance(exit_code, int) else None,
                           wall_seconds=round(outcome.wall_seconds, 3), truncated=outcome.error_kind == "output")
    report = GradeResult(status="error", kind="scratch", scenario=package.slug, version=package.version,
                         scratch=output, wall_seconds=output.wall_seconds)
    if outcome.error_kind is not None or output.exit_code is None:
        report.error = GradeError(kind=outcome.error_kind or "crash",
                                  message=outcome.error_message or "scratch.py did not finish")
        return report
    report.status = "passed" if output.exit_code == 0 else "failed"
    return report
