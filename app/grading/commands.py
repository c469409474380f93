"""`dojo grade SCENARIO DIR` and `dojo scenarios validate`: grade a directory of candidate files, or run a
scenario's mutation matrix, in the sandbox and print the result."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from app.engine.builtin import builtin_dirs, find_builtin, resolve_package
from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport, validate_package
from app.grading.grader import GradingInputError, grade_files
from app.grading.reference import load_shipped, ship, store
from app.grading.result import GradeResult

MARKS = {"passed": "PASS", "failed": "FAIL", "not_applicable": "n/a"}


def read_candidate_dir(package: ScenarioPackage, directory: str) -> dict[str, str]:
    """The scenario's files found in `directory` (others are ignored; missing ones stay the starter's)."""
    found = {}
    for name in package.files:
        path = Path(directory) / name
        if path.is_file():
            found[name] = path.read_text(encoding="utf-8")
    return found


def grade_command(scenario: str, directory: str, as_json: bool, *, out: TextIO | None = None) -> int:
    """Grade a directory of candidate files; exit 0 passed, 1 failed, 2 error."""
    from app.sandbox import get_runner

    out = out or sys.stdout
    try:
        pkg = resolve_package(scenario)
        if not Path(directory).is_dir():
            raise PackageError(f"{directory}: not a directory")
        report = grade_files(package=pkg, files=read_candidate_dir(pkg, directory), runner=get_runner())
    except (PackageError, GradingInputError, UnicodeDecodeError) as exc:
        sys.stderr.write(f"dojo grade: {exc}\n")
        return 2
    if as_json:
        print(json.dumps(report.to_dict(), indent=2), file=out)
    else:
        _print_report(pkg, report, out)
    return {"passed": 0, "failed": 1}.get(report.status, 2)


def _print_report(pkg: ScenarioPackage, report: GradeResult, out: TextIO) -> None:
    print(f"{pkg.slug} (version {pkg.version}): {report.status.upper()}  score {report.score:.2f}", file=out)
    if report.error:
        print(f"  error ({report.error.kind}): {report.error.message}", file=out)
    # A test that was not run is neither a pass nor a failure; its reason (often long: what the
    # interface expects and what was found) is printed once, after the tests, and referred to by number.
    reasons: dict[str, int] = {}
    for t in report.tests:
        if t.status == "not_run":
            number = reasons.setdefault(t.reason or "something it relies on is missing", len(reasons) + 1)
            print(f"  {'NOT RUN':<7}  {t.id:<36} (reason {number} below)", file=out)
        else:
            print(f"  {MARKS[t.status]:<7}  {t.id:<36} {t.message}", file=out)
    for reason, number in reasons.items():
        print(f"  not run ({number}): {reason}", file=out)
    training = report.training
    if training is not None and training.final_val_loss is not None:
        baseline = training.baseline_final_val_loss
        print(f"  training: final val loss {training.final_val_loss:.3f} "
              f"(baseline {baseline if baseline is None else f'{baseline:.3f}'})", file=out)
    for b in report.bugs:
        state = {"fixed": "fixed", "not_fixed": "NOT fixed", "cannot_tell": "cannot tell yet"}.get(b.verdict,
                                                                                                 "not verifiable")
        print(f"  bug {b.id} ({b.component}): {state}{f': {b.reason}' if b.reason else ''}", file=out)


def _print_matrix(report: ValidationReport, out: TextIO) -> None:
    state = "VALID" if report.valid else "INVALID"
    print(f"{report.slug} (version {report.version}): {state}", file=out)
    columns = [t for t in report.tests if any(t in b.detected_by for b in report.bugs)]
    width = max([len(b.id) for b in report.bugs] + [3])
    print(f"  {'bug':<{width}}  {'component':<10}  " + " ".join(f"{n + 1:>2}" for n in range(len(columns))),
          file=out)
    for b in report.bugs:
        marks = " ".join(f"{'x' if t in b.detected_by else '.':>2}" for t in columns)
        print(f"  {b.id:<{width}}  {b.component:<10}  {marks}", file=out)
    for n, t in enumerate(columns, start=1):
        print(f"  {n:>2} = {t}", file=out)
    for m in report.masking:
        print(f"  masking: {' + '.join(m.bugs)} pass together {m.tests_passing_together}", file=out)
    for p in report.problems:
        print(f"  PROBLEM: {p}", file=out)
    for w in report.warnings:
        print(f"  warning: {w}", file=out)


def validate_command(target: str | None, as_json: bool, *, ship_builtins: bool = False,
                     out: TextIO | None = None) -> int:
    """Validate one package (slug or path) or every built-in; exit status 1 when any is invalid.

    ship_builtins: validate the built-in named, or every built-in whose shipped report is missing or was
    made from other content or by another engine, and write each valid report where the app ships it."""
    from app.sandbox import get_runner

    out = out or sys.stdout
    runner = get_runner()
    targets = [str(p) for p in builtin_dirs()] if target is None else [target]
    if ship_builtins:
        if target is not None and find_builtin(target) is None:
            sys.stderr.write(f"dojo scenarios validate --ship: {target} is not a built-in scenario's slug\n")
            return 2
        if target is None:
            targets = [str(p) for p in builtin_dirs() if load_shipped(resolve_package(str(p))) is None]
            if not as_json:
                print(f"{len(builtin_dirs()) - len(targets)} shipped report(s) current; validating "
                      f"{len(targets)}", file=out)
    summaries, ok = [], True
    for t in targets:
        try:
            pkg = resolve_package(t)
        except PackageError as exc:
            ok = False
            summaries.append({"slug": Path(t).name, "version": None, "valid": False, "problems": [str(exc)],
                              "bugs": []})
            if not as_json:
                print(f"{t}: INVALID\n  PROBLEM: {exc}", file=out)
            continue
        report = validate_package(package=pkg, runner=runner)
        if report.reference is not None:
            store(pkg, report)
        ok = ok and report.valid
        summaries.append(report.summary())
        if not as_json:
            _print_matrix(report, out)
        if ship_builtins and report.valid:
            path = ship(pkg, report)
            if not as_json:
                print(f"  shipped: {path}", file=out)
    if as_json:
        print(json.dumps(summaries, indent=2), file=out)
    return 0 if ok else 1
