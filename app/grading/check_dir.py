"""`dojo check DIR`: every behavioural check of an interface on a directory of model files, in the sandbox.

No scenario and no bugs: the directory's model.py (data.py and train.py when present) is measured by the
interface's harness and judged by its checks against the measurements of that interface's template
scenario's solution (Interface.template_scenario; a built-in of the same interface whose files cover
the directory's when the template's do not, e.g. train.py for gpt-v1). The reference comes from the
reference cache `dojo grade` fills; without one, the solution runs beside the directory's files and its
measurements are kept next to that cache for the next check.
"""

from __future__ import annotations

import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from app.engine.builtin import builtin_packages, find_builtin
from app.engine.errors import PackageError
from app.engine.harness_run import HarnessError, measured, outcome_error, run_harness
from app.engine.interfaces import FAILED, INTERFACES, NOT_APPLICABLE, PASSED, Interface, Verdict, get_interface
from app.engine.package import ScenarioPackage
from app.grading import reference as reference_cache
from app.sandbox.job import Runner

CACHE_TESTS = ("generation.cache-matches-full-forward", "generation.cache-chunk-after-prefix")
SHIFT_TEST = "positional.shift-invariant"
CACHE_START_NOTE = (
    "the cache checks pass but the same tokens at another start position do not: the model may assume its "
    "cache starts at position 0 (as Meta-style caches do), rather than the rotary embedding being wrong "
    "(e.g. keys written at start_pos of a preallocated cache, then attention over all its positions "
    "0..start_pos+T-1, empty ones included); an empty cache may start at any start_pos (CONTRACTS.md 1b)")
MARKS = {PASSED: "PASS", FAILED: "FAIL", NOT_APPLICABLE: "n/a", "not_run": "NOT RUN"}
MODEL_FILE, DATA_FILE = "model.py", "data.py"
MAX_FILE_BYTES = 256 * 1024


class CheckInputError(ValueError):
    """The directory or the options cannot be checked (exit status 2)."""


@dataclass
class CheckReport:
    """What `dojo check` found: one verdict per applicable test, grouped by component when printed."""

    directory: str
    interface: str
    detected: bool  # the interface was picked from model.py (not --interface)
    reference: str  # the built-in scenario whose solution gave the reference measurements
    files: list[str]  # the files measured and judged
    borrowed: list[str] = field(default_factory=list)  # not in the directory: the reference solution's
    ignored: list[str] = field(default_factory=list)  # in the directory, not judged by any reference
    error: HarnessError | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)  # test id -> what its verdict may mean
    wall_seconds: float = 0.0

    @property
    def status(self) -> str:
        if self.error is not None:
            return "error"
        return "passed" if all(v.status in (PASSED, NOT_APPLICABLE) for v in self.verdicts) else "failed"

    def components(self) -> dict[str, list[Verdict]]:
        """Component -> its verdicts, in the suite's order."""
        out: dict[str, list[Verdict]] = {}
        for v in self.verdicts:
            out.setdefault(v.component, []).append(v)
        return out

    def failing_components(self) -> list[str]:
        return [name for name, vs in self.components().items() if any(v.status not in (PASSED, NOT_APPLICABLE)
                                                                      for v in vs)]

    def counts(self) -> dict[str, int]:
        counts = {PASSED: 0, FAILED: 0, NOT_APPLICABLE: 0, "not_run": 0}
        for v in self.verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
        return counts

    def to_dict(self) -> dict[str, object]:
        """The --json document."""
        interface = get_interface(self.interface)
        components = []
        for name, verdicts in self.components().items():
            ok = all(v.status in (PASSED, NOT_APPLICABLE) for v in verdicts)
            components.append({"component": name, "status": "passed" if ok else "failed", "checks": [
                {"id": v.id, "title": interface.specs[v.id].title if v.id in interface.specs else v.id,
                 "status": v.status, "message": v.message, "reason": v.reason,
                 **({"note": self.notes[v.id]} if v.id in self.notes else {})} for v in verdicts]})
        return {"directory": self.directory, "interface": self.interface, "interface_detected": self.detected,
                "reference": self.reference, "files": self.files, "borrowed": self.borrowed,
                "ignored": self.ignored, "status": self.status,
                "error": None if self.error is None else {"kind": self.error.kind, "message": self.error.message},
                "counts": self.counts(), "failing_components": self.failing_components(),
                "components": components, "notes": [f"{k}: {v}" for k, v in self.notes.items()],
                "wall_seconds": self.wall_seconds}


def detect_interface(model_source: str, sources: dict[str, str] | None = None) -> str | None:
    """The interface whose two names its entry file defines (a class, or a name bound at the top level):
    model.py's for the model interfaces; an interface whose entry file is another (pipeline-v1's data.py)
    is asked first, since its directories may hold the scenario's model.py as well."""
    texts = {MODEL_FILE: model_source, **(sources or {})}
    ordered = sorted(INTERFACES.items(), key=lambda item: item[1].entry_file == MODEL_FILE)
    for entry_file in dict.fromkeys(i.entry_file for _, i in ordered):
        found = [name for name, interface in ordered if interface.entry_file == entry_file
                 and all(_defines(texts.get(entry_file, ""), entry) for entry in interface.entry_points)]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def _defines(source: str, name: str) -> bool:
    pattern = rf"^(class\s+{name}\b|def\s+{name}\b|{name}\s*(:[^=\n]*)?=|from\s+\S+\s+import\s.*\b{name}\b)"
    return re.search(pattern, source, re.MULTILINE) is not None


def read_directory(directory: str, interface: Interface) -> dict[str, str]:
    """The interface's files found in `directory`; its entry file (model.py, pipeline-v1's data.py) is
    required. Read-only files (pipeline-v1's model.py) are the scenario's and not read."""
    path = Path(directory)
    if not path.is_dir():
        raise CheckInputError(f"{directory}: not a directory")
    found = {}
    for name in interface.allowed_files:
        if name in interface.readonly_files:
            continue
        file = path / name
        if file.is_file():
            data = file.read_bytes()
            if len(data) > MAX_FILE_BYTES:
                raise CheckInputError(f"{file}: larger than {MAX_FILE_BYTES} bytes")
            try:
                found[name] = data.decode("utf-8")
            except UnicodeDecodeError:
                raise CheckInputError(f"{file}: not UTF-8 text") from None
    if interface.entry_file not in found:
        raise CheckInputError(f"{directory}: no {interface.entry_file}")
    return found


def choose_interface(directory: str, name: str | None) -> tuple[Interface, bool]:
    """--interface, else the one model.py's names say; (interface, detected)."""
    if name is not None:
        if name not in INTERFACES:
            raise CheckInputError(f"unknown interface {name!r} (known: {', '.join(INTERFACES)})")
        return INTERFACES[name], False
    if not Path(directory).is_dir():
        raise CheckInputError(f"{directory}: not a directory")
    entry_files = dict.fromkeys(i.entry_file for i in INTERFACES.values())
    texts = {name: (Path(directory) / name).read_text(encoding="utf-8", errors="replace")
             for name in entry_files if (Path(directory) / name).is_file()}
    if not texts:
        raise CheckInputError(f"{directory}: no {' or '.join(entry_files)}")
    picked = detect_interface(texts.get(MODEL_FILE, ""), texts)
    if picked is None:
        said = "; ".join(f"{' and '.join(i.entry_points)} in {i.entry_file} ({name})" for name, i in INTERFACES.items())
        raise CheckInputError(f"{directory}: cannot tell the interface from the names its files define (expected "
                              f"{said}); pass --interface")
    return INTERFACES[picked], True


def reference_package(interface: Interface, present: list[str]) -> ScenarioPackage:
    """The interface's template scenario, or, when the directory has a file it does not list (train.py for
    gpt-v1's warm-up), the first built-in of the interface that lists every file present."""
    template = find_builtin(interface.template_scenario)
    if template is None:
        raise CheckInputError(f"the built-in template scenario {interface.template_scenario!r} is missing")
    if set(present) <= set(template.files):
        return template
    for package in builtin_packages():
        if package.interface == interface.name and set(present) <= set(package.files):
            return package
    return template


@dataclass(frozen=True)
class CheckPlan:
    """What a check will run, worked out before the sandbox is touched (bad input fails here)."""

    directory: str
    interface: Interface
    detected: bool
    package: ScenarioPackage  # the reference scenario
    files: dict[str, str]  # measured and judged, in the reference scenario's order
    borrowed: list[str]
    ignored: list[str]


def plan_check(directory: str, interface_name: str | None = None) -> CheckPlan:
    """The interface, the reference scenario and the files to measure; CheckInputError for bad input."""
    interface, detected = choose_interface(directory, interface_name)
    found = read_directory(directory, interface)
    package = reference_package(interface, list(found))
    # data.py and the read-only files (pipeline-v1's model.py) come from the reference scenario when absent
    judged = [name for name in package.files if name in found or name == DATA_FILE or name in interface.readonly_files]
    return CheckPlan(directory=directory, interface=interface, detected=detected, package=package,
                     files={name: found.get(name, package.solution_files.get(name, "")) for name in judged},
                     borrowed=[n for n in judged if n not in found], ignored=[n for n in found if n not in judged])


def check_directory(directory: str, *, runner: Runner, interface_name: str | None = None,
                    plan: CheckPlan | None = None) -> CheckReport:
    """Measure the directory's files in the sandbox and judge them against the reference solution's."""
    started = time.monotonic()
    plan = plan or plan_check(directory, interface_name)
    package, interface, judged = plan.package, plan.interface, list(plan.files)
    report = CheckReport(directory=directory, interface=interface.name, detected=plan.detected,
                         reference=package.slug, files=judged, borrowed=plan.borrowed, ignored=plan.ignored)
    ref = reference_cache.load_solution(package)
    with ThreadPoolExecutor(max_workers=2) as pool:
        candidate_run = pool.submit(run_harness, package=replace(package, files=tuple(judged)), files=plan.files,
                                    runner=runner)
        solution_run = None if ref is not None else pool.submit(
            run_harness, package=package, files=dict(package.solution_files), runner=runner)
        outcome = candidate_run.result()
        if solution_run is not None:
            solution = solution_run.result()
            ref = measured(solution)
            if ref is None:
                raise PackageError(f"the reference solution of {package.slug} did not run: {outcome_error(solution)}")
            reference_cache.store_solution(package, ref)
    report.error = outcome_error(outcome)
    measurements = measured(outcome)
    if report.error is None and measurements is not None and ref is not None:
        report.verdicts = interface.run_checks(measurements, ref, files=judged)
        report.notes = notes_for(report.verdicts)
    report.wall_seconds = round(time.monotonic() - started, 3)
    return report


def notes_for(verdicts: list[Verdict]) -> dict[str, str]:
    """What a pattern of verdicts suggests beyond each check's own message."""
    status = {v.id: v.status for v in verdicts}
    notes = {}
    if status.get(SHIFT_TEST) == FAILED and all(status.get(t) == PASSED for t in CACHE_TESTS):
        notes[SHIFT_TEST] = CACHE_START_NOTE
    return notes


def print_report(report: CheckReport, out: TextIO) -> None:
    entry_file = INTERFACES[report.interface].entry_file if report.interface in INTERFACES else MODEL_FILE
    picked = (f"{report.interface} (picked from {entry_file}'s names; --interface overrides)" if report.detected
              else f"{report.interface} (--interface)")
    print(f"{report.directory}: interface {picked}", file=out)
    print(f"  judged against the solution of the built-in {report.reference}; files: {', '.join(report.files)}",
          file=out)
    readonly = INTERFACES[report.interface].readonly_files if report.interface in INTERFACES else ()
    for name in report.borrowed:
        if name in readonly:
            print(f"  {name}: the scenario's own (read-only in {report.interface}), from the reference", file=out)
        else:
            print(f"  {name}: not in the directory, the reference solution's is used", file=out)
    for name in report.ignored:
        print(f"  {name}: not judged (no built-in {report.interface} scenario lists it with the others)", file=out)
    if report.error is not None:
        print(f"ERROR ({report.error.kind}): {report.error.message}", file=out)
        return
    reasons: dict[str, int] = {}
    for component, verdicts in report.components().items():
        print(component, file=out)
        for v in verdicts:
            if v.status == "not_run":
                number = reasons.setdefault(v.reason or "something it relies on is missing", len(reasons) + 1)
                print(f"  {MARKS[v.status]:<7}  {v.id:<40} (reason {number} below)", file=out)
            else:
                print(f"  {MARKS[v.status]:<7}  {v.id:<40} {v.message}", file=out)
            if v.id in report.notes:
                print(f"  {'':<7}  {'':<40} note: {report.notes[v.id]}", file=out)
    for reason, number in reasons.items():
        print(f"not run ({number}): {reason}", file=out)
    counts = report.counts()
    summary = f"{counts[PASSED]} passed, {counts[FAILED]} failed, {counts['not_run']} not run, " \
              f"{counts[NOT_APPLICABLE]} not applicable"
    if report.status == "passed":
        print(f"PASSED: every applicable check passes ({summary})", file=out)
    else:
        print(f"FAILED in {', '.join(report.failing_components())} ({summary})", file=out)


def check_command(directory: str, *, interface: str | None = None, as_json: bool = False,
                  out: TextIO | None = None) -> int:
    """Exit 0 when every applicable check passes, 1 otherwise (a harness error included), 2 for bad input."""
    from app.sandbox import get_runner

    out = out or sys.stdout
    try:
        plan = plan_check(directory, interface)
        report = check_directory(directory, runner=get_runner(), plan=plan)
    except (CheckInputError, PackageError, OSError) as exc:
        sys.stderr.write(f"dojo check: {exc}\n")
        return 2
    if as_json:
        print(json.dumps(report.to_dict(), indent=2), file=out)
    else:
        print_report(report, out)
    return 0 if report.status == "passed" else 1
