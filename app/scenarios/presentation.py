"""What the admin version page shows, computed from a version and its report: matrix, problems, diffs."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport
from app.scenarios.export import package_files

LOCATION = re.compile(r"\((?P<file>[\w.-]+\.py):(?P<line>\d+)\)")


@dataclass(frozen=True)
class MatrixRow:
    id: str
    title: str
    component: str
    cells: list[bool]  # one per column: does that test catch this bug
    undetected: bool


@dataclass(frozen=True)
class Matrix:
    columns: list[str]  # the tests that catch at least one bug
    rows: list[MatrixRow]
    quiet_tests: int  # tests that catch none of the bugs


@dataclass(frozen=True)
class Problem:
    text: str
    file: str | None
    line: int | None


@dataclass(frozen=True)
class FileDiff:
    file: str
    lines: list[tuple[str, str]]  # (add | del | hunk | ctx, text)


def matrix(report: ValidationReport) -> Matrix:
    """Rows: bugs; columns: the tests that detect at least one bug; cells: caught or not."""
    detecting = {t for b in report.bugs for t in b.detected_by}
    columns = [t for t in report.tests if t in detecting] or sorted(detecting)
    rows = [MatrixRow(id=b.id, title=b.title, component=b.component, cells=[t in b.detected_by for t in columns],
                      undetected=not b.detected_by) for b in report.bugs]
    return Matrix(columns=columns, rows=rows, quiet_tests=len(report.tests) - len(columns))


def problems(report: ValidationReport) -> list[Problem]:
    """Each problem with the file and line it names, when it names one."""
    out = []
    for text in report.problems:
        where = LOCATION.search(text)
        out.append(Problem(text=text, file=where["file"] if where else None,
                           line=int(where["line"]) if where else None))
    return out


def unified(before: dict[str, str], after: dict[str, str], *, old: str, new: str) -> list[FileDiff]:
    """Per file, the unified diff lines (file: name, lines: [(kind, text)]) where the texts differ."""
    out = []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name, ""), after.get(name, "")
        if a == b:
            continue
        lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), f"{old}/{name}", f"{new}/{name}",
                                          lineterm=""))
        kinds = [("add" if ln.startswith("+") and not ln.startswith("+++") else
                  "del" if ln.startswith("-") and not ln.startswith("---") else
                  "hunk" if ln.startswith("@@") else "ctx", ln) for ln in lines]
        out.append(FileDiff(file=name, lines=kinds))
    return out


def starter_diff(package: ScenarioPackage) -> list[FileDiff]:
    """The derived starter against the solution: what candidates get."""
    return unified(package.solution_files, package.starter_files, old="solution", new="starter")


def version_diff(older: ScenarioPackage, newer: ScenarioPackage, *, old: str, new: str) -> list[FileDiff]:
    """Every package file (scenario.toml, brief.md, solution/*) of two versions compared."""
    return unified(package_files(older), package_files(newer), old=old, new=new)
