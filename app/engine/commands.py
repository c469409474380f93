"""`dojo scenarios validate` and resolving a scenario named on the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from app.engine.builtin import builtin_dirs, find_builtin
from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage, load_package
from app.engine.validator import ValidationReport


def resolve_package(target: str) -> ScenarioPackage:
    """A path to a package directory or zip, else a built-in slug."""
    path = Path(target)
    if path.exists():
        return load_package(path)
    pkg = find_builtin(target)
    if pkg is None:
        raise PackageError(f"{target}: no such scenario (neither a package path nor a built-in slug)")
    return pkg


def _print_matrix(report: ValidationReport, out: TextIO) -> None:
    state = "VALID" if report.valid else "INVALID"
    print(f"{report.slug} (version {report.version}): {state}", file=out)
    columns = [t for t in report.tests if any(t in b["detected_by"] for b in report.bugs)]
    width = max([len(b["id"]) for b in report.bugs] + [3])
    print(f"  {'bug':<{width}}  {'component':<10}  " + " ".join(f"{n + 1:>2}" for n in range(len(columns))),
          file=out)
    for b in report.bugs:
        marks = " ".join(f"{'x' if t in b['detected_by'] else '.':>2}" for t in columns)
        print(f"  {b['id']:<{width}}  {b['component']:<10}  {marks}", file=out)
    for n, t in enumerate(columns, start=1):
        print(f"  {n:>2} = {t}", file=out)
    for m in report.masking:
        print(f"  masking: {' + '.join(m['bugs'])} pass together {m['tests_passing_together']}", file=out)
    for p in report.problems:
        print(f"  PROBLEM: {p}", file=out)
    for w in report.warnings:
        print(f"  warning: {w}", file=out)


def validate_command(target: str | None, as_json: bool, *, out: TextIO | None = None) -> int:
    """Validate one package (slug or path) or every built-in; exit status 1 when any is invalid."""
    from app.grading.reference import store
    from app.sandbox import get_runner

    out = out or sys.stdout
    runner = get_runner()
    targets = [str(p) for p in builtin_dirs()] if target is None else [target]
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
        from app.engine.validator import validate_package

        report = validate_package(package=pkg, runner=runner)
        if report.reference is not None:
            store(pkg, report)
        ok = ok and report.valid
        summaries.append(report.summary())
        if not as_json:
            _print_matrix(report, out)
    if as_json:
        print(json.dumps(summaries, indent=2), file=out)
    return 0 if ok else 1
