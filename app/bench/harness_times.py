"""One harness run of a built-in scenario: in a plain subprocess (bare) and in a cold sandbox."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from app.sandbox.job import HarnessJob, Limits, Runner


def scenario_job(slug: str, *, files: str = "solution", limits: Limits | None = None) -> HarnessJob:
    """The exact job the grader builds for a built-in scenario's solution (or starter)."""
    from app.engine.builtin import find_builtin
    from app.engine.interfaces import get_interface

    package = find_builtin(slug)
    if package is None:
        raise ValueError(f"no built-in scenario {slug!r}")
    chosen = package.solution_files if files == "solution" else package.starter_files
    job_input = {"files": list(package.files), "training": dict(package.training)}
    harness_dir = get_interface(package.interface).harness_bundle_dir()
    return HarnessJob(candidate_files=dict(chosen), harness_dir=harness_dir, input=job_input,
                      limits=limits or Limits(cpu_seconds=300, wall_seconds=600))  # fmt: skip


def time_run(runner: Runner, job: HarnessJob) -> float:
    """Wall seconds of one run; a run that fails is an error (a benchmark of a broken run means nothing)."""
    started = time.monotonic()
    outcome = runner.run(job)
    elapsed = time.monotonic() - started
    if not outcome.ok:
        raise RuntimeError(f"{runner.name} run failed: {outcome.error_kind}: {outcome.error_message}")
    return elapsed


@dataclass(frozen=True)
class Paired:
    plain: list[float]
    sandboxed: list[float]


def alternate(plain: Runner, sandboxed: Runner, job: HarnessJob, repeats: int) -> Paired:
    """Alternate the two runners so load changes on the machine hit both alike."""
    result = Paired([], [])
    for _ in range(repeats):
        result.plain.append(time_run(plain, job))
        result.sandboxed.append(time_run(sandboxed, job))
    return result


def bare_and_sandbox(slug: str, *, repeats: int) -> Paired:
    """bare_s and sandbox_s samples: the harness alone (python subprocess) and in a cold bubblewrap sandbox."""
    from app.sandbox.bwrap_runner import BwrapRunner
    from app.sandbox.subprocess_runner import SubprocessRunner

    job = scenario_job(slug)
    sandboxed = BwrapRunner()
    time_run(sandboxed, job)  # page cache and bundle directory, not timed
    return alternate(SubprocessRunner(), sandboxed, job, repeats)


def median(values: list[float]) -> float:
    return statistics.median(values)
