"""Gradings of both interfaces at one model size, and `dojo check` on one model directory, timed as the
command line runs them: a cold bubblewrap sandbox per run, the reference already stored.

- gpt_v1_grading_s: grade_files on a gpt-v1 built-in's solution (default training-wheels: model.py,
  data.py and train.py, 2 layers, 4 heads, width 48, the default training run);
- llama_v1_grading_s: the same on a llama-v1 built-in's solution of the same model size (norm-and-gate);
- check_s: `dojo check` (app.grading.check_dir.check_directory) on a directory holding that llama-v1
  solution, judged against its template's reference;
- pipeline_v1_grading_s: the same on a pipeline-v1 built-in's solution whose scenario model is the gpt-v1
  one's size and training run (padded-truths), and pipeline_check_s: `dojo check` on its data.py and
  train.py.
The runs alternate (gpt-v1, llama-v1, check, pipeline-v1, pipeline check) so that load from other work
falls on each alike; one untimed run of each solution first computes the references and warms the page
cache. The issues bound llama_over_gpt_grading (at most 1.2), check_over_grading (at most 1.1),
pipeline_over_gpt_grading (at most 1.0) and pipeline_check_over_grading (at most 1.1).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.engine.builtin import find_builtin
from app.engine.harness_run import run_harness
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport, reference_only_report
from app.grading import reference as reference_cache
from app.grading.check_dir import check_directory, plan_check
from app.grading.grader import grade_files
from app.sandbox.job import Runner

GPT_SCENARIO, LLAMA_SCENARIO, PIPELINE_SCENARIO = "training-wheels", "norm-and-gate", "padded-truths"


@dataclass(frozen=True)
class GradingTimes:
    gpt_scenario: str
    llama_scenario: str
    gpt: list[float]
    llama: list[float]
    check: list[float]
    pipeline_scenario: str = PIPELINE_SCENARIO
    pipeline: list[float] = field(default_factory=list)
    pipeline_check: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, float | None]:
        gpt, llama, check = (statistics.median(v) for v in (self.gpt, self.llama, self.check))
        out: dict[str, float | None] = {
            "gpt_v1_grading_s": round(gpt, 3), "llama_v1_grading_s": round(llama, 3),
            "llama_over_gpt_grading": round(llama / gpt, 3), "check_s": round(check, 3),
            "check_over_grading": round(check / llama, 3)}
        if self.pipeline and self.pipeline_check:
            pipe, pipe_check = statistics.median(self.pipeline), statistics.median(self.pipeline_check)
            out.update({"pipeline_v1_grading_s": round(pipe, 3), "pipeline_over_gpt_grading": round(pipe / gpt, 3),
                        "pipeline_check_s": round(pipe_check, 3),
                        "pipeline_check_over_grading": round(pipe_check / pipe, 3)})
        return out

    def details(self) -> dict[str, object]:
        return {"gradings": {"gpt_v1_scenario": self.gpt_scenario, "llama_v1_scenario": self.llama_scenario,
                             "check_directory": f"{self.llama_scenario}'s solution",
                             "gpt_v1_samples_s": _rounded(self.gpt), "llama_v1_samples_s": _rounded(self.llama),
                             "check_samples_s": _rounded(self.check), "pipeline_v1_scenario": self.pipeline_scenario,
                             "pipeline_v1_samples_s": _rounded(self.pipeline),
                             "pipeline_check_samples_s": _rounded(self.pipeline_check)}}


def _package(slug: str) -> ScenarioPackage:
    package = find_builtin(slug)
    if package is None:
        raise ValueError(f"no built-in scenario {slug!r}")
    return package


def _reference(package: ScenarioPackage, runner: Runner) -> ValidationReport:
    """The solution's measurements (one untimed run): what a grading compares with, before the matrix."""
    report = reference_only_report(package, run_harness(package=package, files=dict(package.solution_files),
                                                        runner=runner))
    if report.reference is None:
        raise RuntimeError(f"{package.slug}: the solution did not run: {report.problems}")
    return report


def _timed_grading(package: ScenarioPackage, reference: ValidationReport, runner: Runner) -> float:
    started = time.monotonic()
    result = grade_files(package=package, files=dict(package.solution_files), runner=runner, reference=reference)
    elapsed = time.monotonic() - started
    if result.status != "passed":
        raise RuntimeError(f"grading {package.slug}'s solution gave {result.status}: {result.error}")
    return elapsed


def _timed_check(directory: str, runner: Runner) -> float:
    started = time.monotonic()
    report = check_directory(directory, runner=runner)
    elapsed = time.monotonic() - started
    if report.status != "passed":
        raise RuntimeError(f"dojo check {directory} gave {report.status}: {report.error}")
    return elapsed


def grading_times(*, repeats: int, say: Callable[[str], None], gpt_scenario: str = GPT_SCENARIO,
                  llama_scenario: str = LLAMA_SCENARIO) -> GradingTimes:
    from app.sandbox.bwrap_runner import BwrapRunner

    gpt_pkg, llama_pkg = _package(gpt_scenario), _package(llama_scenario)
    if gpt_pkg.training != llama_pkg.training or gpt_pkg.files != llama_pkg.files:
        raise ValueError(f"{gpt_scenario} and {llama_scenario} differ in model size, training run or files")
    runner = BwrapRunner()
    say(f"references: one untimed run of {gpt_scenario}'s and {llama_scenario}'s solutions")
    gpt_ref, llama_ref = _reference(gpt_pkg, runner), _reference(llama_pkg, runner)
    assert llama_ref.reference is not None
    directory = Path(tempfile.mkdtemp(prefix="dojo-bench-check-"))
    for name, text in llama_pkg.solution_files.items():
        (directory / name).write_text(text, encoding="utf-8")
    # What `dojo check` reads when no full reference is cached: its template's solution, measured once.
    check_pkg = plan_check(str(directory)).package
    check_ref = llama_ref if check_pkg.slug == llama_pkg.slug else _reference(check_pkg, runner)
    assert check_ref.reference is not None
    reference_cache.store_solution(check_pkg, check_ref.reference)
    pipe_pkg = _package(PIPELINE_SCENARIO)
    if pipe_pkg.training != gpt_pkg.training:
        raise ValueError(f"{PIPELINE_SCENARIO} and {gpt_scenario} differ in model size or training run")
    say(f"references: one untimed run of {PIPELINE_SCENARIO}'s solution")
    pipe_ref = _reference(pipe_pkg, runner)
    assert pipe_ref.reference is not None
    pipe_dir = Path(tempfile.mkdtemp(prefix="dojo-bench-check-pipeline-"))
    for name in ("data.py", "train.py"):  # model.py is the scenario's own (read-only)
        (pipe_dir / name).write_text(pipe_pkg.solution_files[name], encoding="utf-8")
    reference_cache.store_solution(plan_check(str(pipe_dir)).package, pipe_ref.reference)
    times = GradingTimes(gpt_scenario, llama_scenario, [], [], [])
    for n in range(1, repeats + 1):
        say(f"round {n} of {repeats}: grading {gpt_scenario}, grading {llama_scenario}, dojo check, grading "
            f"{PIPELINE_SCENARIO}, dojo check on it")
        times.gpt.append(_timed_grading(gpt_pkg, gpt_ref, runner))
        times.llama.append(_timed_grading(llama_pkg, llama_ref, runner))
        times.check.append(_timed_check(str(directory), runner))
        times.pipeline.append(_timed_grading(pipe_pkg, pipe_ref, runner))
        times.pipeline_check.append(_timed_check(str(pipe_dir), runner))
    return times


def _rounded(values: list[float]) -> list[float]:
    return [round(v, 3) for v in values]
