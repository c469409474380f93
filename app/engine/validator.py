"""The mutation matrix: prove a scenario's tests detect each planted bug and pass the solution."""

from __future__ import annotations

import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from app.engine.edits import apply_edits
from app.engine.harness_run import measured, outcome_error, run_harness
from app.engine.interfaces import FAILED, NOT_RUN, Interface, get_interface
from app.engine.kinds import BUG_KINDS
from app.engine.measurements import Measurements
from app.engine.package import ScenarioPackage
from app.sandbox.job import HarnessOutcome, Runner

MAX_PAIR_RUNS = 4
# Tiny-run tests measure the whole model at once; two bugs often shift them in opposite directions,
# which is not the masking worth a pair run.
AGGREGATE_TESTS = {"training.finite", "training.learns", "training.not-too-good", "attention.random-token-leak"}


@dataclass
class BugDetection:
    """One planted bug's row of the bug x test matrix: the tests its mutant fails (empty until it ran)."""

    id: str
    kind: str
    component: str
    title: str
    detected_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MaskingPair:
    """Two bugs that hide each other: together they pass tests both fail alone, or fail nothing."""

    bugs: tuple[str, str]
    tests_passing_together: list[str]
    pair_fails_nothing: bool

    def to_dict(self) -> dict[str, list[str] | bool]:
        return {"bugs": list(self.bugs), "tests_passing_together": list(self.tests_passing_together),
                "pair_fails_nothing": self.pair_fails_nothing}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MaskingPair:
        first, second = d["bugs"]
        return cls(bugs=(first, second), tests_passing_together=list(d["tests_passing_together"]),
                   pair_fails_nothing=bool(d["pair_fails_nothing"]))


@dataclass
class ValidationReport:
    """Outcome of validating one package; `reference` is the solution's measurements."""

    slug: str
    version: str
    content_hash: str
    valid: bool = True
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    bugs: list[BugDetection] = field(default_factory=list)
    masking: list[MaskingPair] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    starter_failing: list[str] = field(default_factory=list)
    reference: Measurements | None = None
    engine: str = ""  # the interface's engine_fingerprint() of the harness and checks that produced this report
    # False for the solution's measurements alone (reference_only_report): gradings can check tests
    # against them, but which tests detect which bug is known only once the mutants have run.
    complete: bool = True

    def problem(self, text: str) -> None:
        self.valid = False
        self.problems.append(text)

    def summary(self) -> dict[str, Any]:
        """The --json shape: {slug, version, valid, problems, bugs: [{id, kind, component, detected_by}]}."""
        return {"slug": self.slug, "version": self.version, "valid": self.valid, "problems": self.problems,
                "warnings": self.warnings, "masking": [m.to_dict() for m in self.masking],
                "bugs": [{"id": b.id, "kind": b.kind, "component": b.component, "detected_by": b.detected_by}
                         for b in self.bugs]}

    def to_dict(self, *, measurements: bool = True) -> dict[str, Any]:
        """The stored shape (a database JSON column, the reference cache): summary() and the rest.

        measurements=False leaves out the solution's (large) measurements: the version's `validation`
        column, which pages read, keeps the report without them."""
        data = {**self.summary(), "content_hash": self.content_hash, "engine": self.engine, "tests": self.tests,
                "starter_failing": self.starter_failing, "bug_titles": {b.id: b.title for b in self.bugs},
                "reference": None if self.reference is None else self.reference.to_json(),
                "complete": self.complete}
        if not measurements:
            del data["reference"]
        return data

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ValidationReport:
        titles = d.get("bug_titles", {})
        bugs = [BugDetection(id=b["id"], kind=b["kind"], component=b["component"], title=titles.get(b["id"], b["id"]),
                             detected_by=list(b["detected_by"])) for b in d["bugs"]]
        # A report read from the `validation` column has no measurements (to_dict(measurements=False)).
        reference = None if d.get("reference") is None else Measurements.from_json(d["reference"])
        return cls(slug=d["slug"], version=d["version"], content_hash=d["content_hash"], valid=d["valid"],
                   problems=d["problems"], warnings=d.get("warnings", []), bugs=bugs,
                   masking=[MaskingPair.from_dict(m) for m in d.get("masking", [])], tests=d["tests"],
                   starter_failing=d["starter_failing"], reference=reference, engine=d.get("engine", ""),
                   complete=d.get("complete", True))


def _failing(interface: Interface, result: Measurements, reference: Measurements,
             files: tuple[str, ...]) -> list[str]:
    return [v.id for v in interface.run_checks(result, reference, files=files) if v.status == FAILED]


def _comparable(result: Measurements) -> str:
    probes = dict(result.probes)
    run = probes.get("training_run")
    if isinstance(run, dict):
        probes["training_run"] = {k: v for k, v in run.items() if k != "seconds"}
    return json.dumps(probes, sort_keys=True)


def planned_runs(package: ScenarioPackage) -> dict[str, dict[str, str]]:
    """Name -> files of every run validation needs first: the solution twice, the starter, each mutant."""
    runs: dict[str, dict[str, str]] = {"solution": package.solution_files, "solution-again": package.solution_files,
                                       "starter": package.starter_files}
    for bug in package.bugs:
        runs[f"bug:{bug.id}"] = package.mutant_files(bug.id)
    return runs


def validate_package(*, package: ScenarioPackage, runner: Runner, workers: int = 2) -> ValidationReport:
    """Run solution (twice), starter and every single-bug mutant; build the bug -> test matrix."""
    runs = planned_runs(package)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(run_harness, package=package, files=files, runner=runner)
                   for name, files in runs.items()}
        outcomes = {name: f.result() for name, f in futures.items()}
    report = report_from_outcomes(package, outcomes)
    pairs = masking_pairs(package, report)
    add_masking(package, report, {pair: run_harness(package=package, files=pair_files(package, *pair), runner=runner)
                         for pair in pairs})
    return report


def report_from_outcomes(pkg: ScenarioPackage, outcomes: dict[str, HarnessOutcome]) -> ValidationReport:
    """The report (masking pairs aside) from the outcomes of planned_runs()."""
    interface = get_interface(pkg.interface)
    report = ValidationReport(slug=pkg.slug, version=pkg.version, content_hash=pkg.content_hash,
                              engine=interface.engine_fingerprint())
    _check_static(pkg, report)
    err = outcome_error(outcomes["solution"])
    ref = measured(outcomes["solution"])
    if err or ref is None:
        report.problem(f"the solution does not run: {err}")
        return report
    report.reference = ref
    verdicts = interface.run_checks(ref, ref, files=pkg.files)
    report.tests = [v.id for v in verdicts]
    for v in verdicts:
        if v.status in (FAILED, NOT_RUN):
            report.problem(f"the solution {'fails' if v.status == FAILED else 'cannot run'} {v.id}: {v.message}")
    again = measured(outcomes["solution-again"])
    if again is None or _comparable(again) != _comparable(ref):
        report.problem("two runs of the solution gave different measurements (the harness is not deterministic)")
    starter_err = outcome_error(outcomes["starter"])
    starter = measured(outcomes["starter"])
    if starter_err or starter is None:
        report.problem(f"the starter does not run: {starter_err}")
    else:
        report.starter_failing = _failing(interface, starter, ref, pkg.files)
        if not report.starter_failing:
            report.problem("the full starter passes every test")
    for bug in pkg.bugs:
        outcome = outcomes[f"bug:{bug.id}"]
        entry = BugDetection(id=bug.id, kind=bug.kind, component=bug.component, title=bug.title)
        report.bugs.append(entry)
        bug_err = outcome_error(outcome)
        mutant = measured(outcome)
        if bug_err or mutant is None:
            report.problem(f"bug {bug.id}: its mutant does not run ({bug_err})")
            continue
        entry.detected_by = _failing(interface, mutant, ref, pkg.files)
        hidden = [t for t in entry.detected_by if not interface.specs[t].public]
        if not hidden:
            report.problem(f"bug {bug.id}: no hidden test detects it (its mutant passes every hidden test)")
    if not starter_err:
        _check_masked_by_starter(report)
    return report


def reference_only_report(pkg: ScenarioPackage, solution: HarnessOutcome) -> ValidationReport:
    """The solution's measurements alone (one run), before the matrix: `complete` is False and each
    bug's `detected_by` is empty until the full validation replaces this report."""
    interface = get_interface(pkg.interface)
    report = ValidationReport(slug=pkg.slug, version=pkg.version, content_hash=pkg.content_hash,
                              engine=interface.engine_fingerprint(), complete=False)
    err = outcome_error(solution)
    ref = measured(solution)
    if err or ref is None:
        report.problem(f"the solution does not run: {err}")
        return report
    report.reference = ref
    report.tests = [v.id for v in interface.run_checks(ref, ref, files=pkg.files)]
    report.bugs = [BugDetection(id=bug.id, kind=bug.kind, component=bug.component, title=bug.title)
                   for bug in pkg.bugs]
    return report


def _check_static(pkg: ScenarioPackage, report: ValidationReport) -> None:
    starter = dict(pkg.solution_files)
    for bug in pkg.bugs:
        starter = apply_edits(starter, list(bug.edits), where=f"bugs[{bug.id}]")
        if bug.kind not in BUG_KINDS:
            report.warnings.append(f"bug {bug.id}: kind {bug.kind!r} is not in the bug catalog's list")
    if starter != pkg.starter_files:
        report.problem("the starter is not exactly the solution with every bug's edits applied")
    if starter == pkg.solution_files:
        report.problem("the starter is identical to the solution")


def _check_masked_by_starter(report: ValidationReport) -> None:
    """A bug whose every detecting test passes in the full starter is hidden by another bug."""
    starter = set(report.starter_failing)
    for entry in report.bugs:
        if entry.detected_by and not set(entry.detected_by) & starter:
            report.problem(f"bug {entry.id}: the full starter passes every test that detects it "
                           "(another bug masks it)")


def masking_pairs(pkg: ScenarioPackage, report: ValidationReport) -> list[tuple[str, str]]:
    """Pairs of bugs worth running together: a test a single mutant fails but the full starter passes
    is masked by another bug (report.reference None or a starter that did not run: no pairs)."""
    if report.reference is None or not report.starter_failing:
        return []
    starter = set(report.starter_failing)
    suspects = [e.id for e in report.bugs
                if [t for t in e.detected_by if t not in starter and t not in AGGREGATE_TESTS]]
    return [p for p in combinations([b.id for b in pkg.bugs], 2) if set(p) & set(suspects)][:MAX_PAIR_RUNS]


def pair_files(pkg: ScenarioPackage, a: str, b: str) -> dict[str, str]:
    """The solution with bugs a and b planted."""
    return apply_edits(pkg.mutant_files(a), list(pkg.bug(b).edits), where=f"bugs[{b}]")


def add_masking(pkg: ScenarioPackage, report: ValidationReport,
                outcomes: dict[tuple[str, str], HarnessOutcome]) -> None:
    """Record each pair whose two bugs together pass a test both fail alone (or fail nothing)."""
    ref = report.reference
    if ref is None:
        return
    det = {e.id: set(e.detected_by) for e in report.bugs}
    interface, files = get_interface(pkg.interface), pkg.files
    for (a, b), outcome in outcomes.items():
        pair = measured(outcome)
        if pair is None:
            continue
        failing = set(_failing(interface, pair, ref, files))
        hidden = sorted((det[a] & det[b]) - failing)
        if hidden or not failing:
            report.masking.append(MaskingPair(bugs=(a, b), tests_passing_together=hidden,
                                              pair_fails_nothing=not failing))
