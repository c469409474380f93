"""`dojo scenarios validate` and `dojo grade` (the lead wires these into app/cli.py)."""

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
    from app.grading.grader import GradingInputError, grade_files
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
    data = report.to_dict()
    if as_json:
        print(json.dumps(data, indent=2), file=out)
    else:
        print(f"{pkg.slug} (version {pkg.version}): {data['status'].upper()}  score {data['score']:.2f}", file=out)
        if data["error"]:
            print(f"  error ({data['error']['kind']}): {data['error']['message']}", file=out)
        for t in data["tests"]:
            mark = "PASS" if t["passed"] else "FAIL"
            mark = "n/a " if not t["applicable"] else mark
            print(f"  {mark}  {t['id']:<36} {t['message']}", file=out)
        tr = data["training"] or {}
        if "final_val_loss" in tr:
            print(f"  training: final val loss {tr['final_val_loss']:.3f} "
                  f"(baseline {tr['baseline_final_val_loss']:.3f})", file=out)
        for b in data["bugs"]:
            print(f"  bug {b['id']} ({b['component']}): {'fixed' if b['fixed'] else 'NOT fixed'}", file=out)
    return {"passed": 0, "failed": 1}.get(data["status"], 2)
