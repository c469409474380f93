"""`dojo grade SCENARIO DIR`: grade a directory of candidate files in the sandbox and print the result."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from app.engine.commands import resolve_package
from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage
from app.grading.grader import GradingInputError, grade_files
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
        state = "fixed" if b.fixed else "NOT fixed" if b.verifiable else "not verifiable"
        print(f"  bug {b.id} ({b.component}): {state}{f': {b.reason}' if b.reason else ''}", file=out)
