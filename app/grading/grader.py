"""Grade a candidate's files: run the probes in the sandbox, judge them, score the planted bugs."""

from __future__ import annotations

import time

from pydantic import ValidationError

from app.engine.harness_run import measured, outcome_error, run_harness
from app.engine.interfaces import get_interface
from app.engine.measurements import Measurements, ProbeReadings
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport
from app.grading import scoring
from app.grading.reference import ensure_reference
from app.grading.result import (
    AccumulationCheck,
    BugResult,
    CacheAgreement,
    GradeError,
    GradeResult,
    InfluenceMap,
    LrSchedule,
    PipelineSummary,
    ResumeCurves,
    TestResult,
    TrainingSummary,
)
from app.sandbox.job import Limits, Runner
from app.sandbox.progress import Progress, ProgressCallback

MAX_FILE_BYTES = 256 * 1024


class GradingInputError(ValueError):
    """The submitted files cannot be graded (unknown name, too large, not text)."""


def complete_files(package: ScenarioPackage, files: dict[str, str]) -> dict[str, str]:
    """The starter with the submitted files on top; unknown or oversize files are rejected. A read-only
    file (pipeline-v1's model.py) is always the scenario's: a submitted copy is ignored."""
    out = dict(package.starter_files)
    readonly = get_interface(package.interface).readonly_files
    for name, text in files.items():
        if name not in package.files:
            raise GradingInputError(f"unknown file {name!r}; this scenario's files are {', '.join(package.files)}")
        if name in readonly:
            continue
        if not isinstance(text, str):
            raise GradingInputError(f"{name}: content must be text")
        if len(text.encode("utf-8", errors="strict")) > MAX_FILE_BYTES:
            raise GradingInputError(f"{name}: larger than {MAX_FILE_BYTES} bytes")
        out[name] = text
    return out


def training_summary(result: Measurements, reference: Measurements) -> TrainingSummary | None:
    """Curves and headline numbers of the tiny training run, next to the baseline's."""
    run, base = result.readings("training_run") or {}, reference.readings("training_run") or {}
    if not run or "exception" in run:
        return TrainingSummary(error=run.get("exception", "the training run did not complete")) if run else None
    leak = result.readings("leak_probe") or {}
    return TrainingSummary(
        steps=run["steps"], train_loss=run["train_loss"], val_loss=run["val_loss"],
        baseline_val_loss=base.get("val_loss") or [], baseline_train_loss=base.get("train_loss") or [],
        final_val_loss=run["final_val_loss"], baseline_final_val_loss=base.get("final_val_loss"),
        final_train_loss=run["final_train_loss"], init_loss=run["init_loss"],
        ln_vocab=(leak.get("ln_vocab") if "exception" not in leak else None),
        unigram_entropy=run.get("unigram_entropy"), leak_probe_loss=leak.get("final_loss"),
        baseline_leak_probe_loss=(reference.readings("leak_probe") or {}).get("final_loss"),
        sample=run.get("sample"), baseline_sample=base.get("sample"),
        influence=_influence(result.readings("influence")),
        baseline_influence=_influence(reference.readings("influence")),
        cache_agreement=cache_agreement(result.readings("cache_curve")),
        baseline_cache_agreement=cache_agreement(reference.readings("cache_curve")),
    )


def _influence(readings: ProbeReadings | None) -> InfluenceMap | None:
    if not readings or "exception" in readings:
        return None
    return InfluenceMap(text=readings["text"], matrix=readings["matrix"])


def cache_agreement(readings: ProbeReadings | None) -> CacheAgreement | None:
    """The cache_curve probe (interfaces with a KV cache): the diffs per position, or why there are none.
    None when the run has no such probe (gpt-v1) or wrote something else than the probe's shape."""
    if not readings:
        return None
    if "exception" in readings:
        return CacheAgreement(error=str(readings["exception"]))
    try:
        return CacheAgreement(prefill=readings["prefill"], diffs=readings["diffs"])
    except (KeyError, ValidationError):
        return None


def pipeline_summary(result: Measurements, reference: Measurements) -> PipelineSummary | None:
    """The Accumulation check, LR schedule and Resume check data (pipeline-v1's accumulation, schedule and
    resume probes), yours beside the reference's. A chart is kept only when the reference measured it, so the
    other interfaces (whose probes may share a name but not the shape) get None."""
    found = {}
    for name, build in (("accumulation", accumulation_check), ("schedule", lr_schedule), ("resume", resume_curves)):
        baseline = build(reference.readings(name))
        if baseline is not None and baseline.error is None:
            found[name], found[f"baseline_{name}"] = build(result.readings(name)), baseline
    return PipelineSummary.model_validate(found) if found else None


def _probe_error(readings: ProbeReadings) -> str:
    return str(readings["exception"])


def accumulation_check(readings: ProbeReadings | None) -> AccumulationCheck | None:
    """The accumulation probe's splits (the same documents in 1, 2, 4 and 8 micro-batches), or why none."""
    if not readings:
        return None
    if "exception" in readings:
        return AccumulationCheck(error=_probe_error(readings))
    try:
        return AccumulationCheck(splits=readings["splits"])
    except (KeyError, ValidationError):
        return None


def lr_schedule(readings: ProbeReadings | None) -> LrSchedule | None:
    """The first schedule get_lr was asked for (the one the chart draws), or why there is none."""
    if not readings:
        return None
    if "exception" in readings:
        return LrSchedule(error=_probe_error(readings))
    try:
        return LrSchedule.model_validate(readings["schedules"][0])
    except (KeyError, IndexError, TypeError, ValidationError):
        return None


def resume_curves(readings: ProbeReadings | None) -> ResumeCurves | None:
    """The resume probe's losses per step, a run never stopped and one saved, loaded and continued."""
    if not readings:
        return None
    if "exception" in readings:
        return ResumeCurves(error=_probe_error(readings))
    try:
        return ResumeCurves(saved_at=readings["saved_at"], steps=readings["steps"],
                            uninterrupted=readings["uninterrupted_losses"], resumed=readings["resumed_losses"])
    except (KeyError, ValidationError):
        return None


def _bugs(report: ValidationReport, verdicts: list[TestResult] | None,
          error: GradeError | None = None) -> list[BugResult]:
    """Planted bugs with their verdicts (app/grading/scoring.py: fixed, not fixed, cannot tell yet, not
    verifiable) and, when not judged, the reason."""
    return scoring.bug_verdicts(report, verdicts, error)


MATRIX_PENDING = "the bug × test matrix of this version is still being computed; bug verdicts follow"


def _bugs_before_matrix(report: ValidationReport, verdicts: list[TestResult]) -> list[BugResult]:
    """Before the matrix: a submission that passes every test has fixed every bug (validation proves
    each bug is detected by a test); otherwise which bugs are fixed is not known yet."""
    if all(v.status in ("passed", "not_applicable") for v in verdicts):
        return [BugResult(id=b.id, component=b.component, title=b.title, fixed=True, verifiable=True)
                for b in report.bugs]
    return [BugResult(id=b.id, component=b.component, title=b.title, fixed=False, verifiable=False,
                      reason=MATRIX_PENDING) for b in report.bugs]


def grade_files(*, package: ScenarioPackage, files: dict[str, str], runner: Runner,
                hints_used: dict[str, int] | None = None, kind: str = "submit",
                limits: Limits | None = None, reference: ValidationReport | None = None,
                on_progress: ProgressCallback | None = None) -> GradeResult:
    """Grade `files` (missing ones are the starter's). kind='run' reports only the public tests.

    hints_used maps bug id -> hint levels revealed; `reference` is a stored validation report
    (ValidationReport.from_dict of what the web app saved); one made by another engine version,
    or none, means the file cache is used or filled. `on_progress` hears the stages (display only).
    """
    report_progress = on_progress or (lambda _progress: None)
    started = time.monotonic()
    interface = get_interface(package.interface)
    complete = complete_files(package, files)
    if reference is not None and reference.content_hash != package.content_hash:
        raise ValueError("the reference report belongs to a different scenario version")
    if reference is None or reference.engine != interface.engine_fingerprint():
        report_progress(Progress("reference"))
        reference = ensure_reference(package=package, runner=runner)
    ref_report = reference
    report = GradeResult(status="error", scenario=package.slug, version=package.version, kind=kind)
    baseline = ref_report.reference
    if baseline is None:
        report.error = GradeError(kind="sandbox", message="the scenario's reference run failed; see validation")
        return report
    report_progress(Progress("sandbox"))
    outcome = run_harness(package=package, files=complete, runner=runner, limits=limits, on_progress=on_progress)
    report_progress(Progress("checking"))
    error = outcome_error(outcome)
    report.error = GradeError(kind=error.kind, message=error.message) if error is not None else None
    measurements = measured(outcome)
    if report.error is not None or measurements is None:
        report.bugs = _bugs(ref_report, None, report.error)
    else:
        verdicts = [TestResult.model_validate(v.to_dict())
                    for v in interface.run_checks(measurements, baseline, files=package.files)]
        if ref_report.complete:
            report.bugs = _bugs(ref_report, verdicts)
            report.regressions = scoring.regressions(verdicts, ref_report.starter_failing)
        else:  # graded again by the validation that completes the reference (app/scenarios/validation.py)
            report.provisional = True
            report.bugs = _bugs_before_matrix(ref_report, verdicts)
        report.tests = [v for v in verdicts if kind != "run" or v.public]
        report.status = "passed" if all(v.status in ("passed", "not_applicable") for v in verdicts) else "failed"
        report.training = training_summary(measurements, baseline)
        report.pipeline = pipeline_summary(measurements, baseline)
    report.score = scoring.score({b.id: b.fixed for b in report.bugs}, hints_used)
    report.wall_seconds = round(time.monotonic() - started, 3)
    return report
