"""The tamper corpus (tests/grading/tamper/): fill a payload, append it to a built-in's starter, grade."""

from __future__ import annotations

import base64
import codecs
import json
import marshal
import re
from functools import cache
from pathlib import Path

from app.engine.builtin import builtin_packages
from app.engine.harness_run import run_harness
from app.engine.package import ScenarioPackage
from app.engine.validator import ValidationReport
from app.grading.grader import grade_files
from app.grading.reference import ensure_reference
from app.grading.result import GradeResult
from app.sandbox.bwrap_runner import BwrapRunner

TAMPER = Path(__file__).resolve().parent / "tamper"
_ENCODED = re.compile(r"\{ENCODED:(\w+):(\w+)\}")


def package(slug: str) -> ScenarioPackage:
    return next(p for p in builtin_packages() if p.slug == slug)


@cache
def reference(slug: str) -> ValidationReport:
    """The scenario's whole validation (solution, starter, mutants, the bug x test matrix), so that a
    payload's per-bug verdicts and score are judged as an interview's would be."""
    report = ensure_reference(package=package(slug), runner=BwrapRunner())
    assert report.reference is not None and report.complete, report.problems
    return report


@cache
def recorded_result(slug: str) -> str:
    """What an attacker who once graded the right answer would hold: the solution's result.json."""
    pkg = package(slug)
    outcome = run_harness(package=pkg, files=dict(pkg.solution_files), runner=BwrapRunner())
    assert outcome.result is not None
    return json.dumps(outcome.result)


def payload(name: str, slug: str) -> str:
    """tamper/<name>.payload with {RESULT} and {ENCODED:how:other} filled in."""
    text = (TAMPER / f"{name}.payload").read_text()
    text = text.replace("{RESULT}", f"__import__('json').loads({recorded_result(slug)!r})")

    def encoded(match: re.Match[str]) -> str:
        how, other = match.groups()
        inner = payload(other, slug)
        if how == "base64":
            return repr(base64.b64encode(inner.encode()))
        if how == "rot13":
            return repr(codecs.encode(inner, "rot13"))
        return repr(marshal.dumps(compile(inner, "<payload>", "exec")).hex())

    return _ENCODED.sub(encoded, text)


def tampered_files(name: str, slug: str) -> dict[str, str]:
    """The starter, every bug left in, with the payload at the end of model.py."""
    files = dict(package(slug).starter_files)
    files["model.py"] = files["model.py"].rstrip("\n") + "\n\n\n" + payload(name, slug)
    return files


def grade_tampered(name: str, slug: str) -> GradeResult:
    return grade_files(package=package(slug), files=tampered_files(name, slug), runner=BwrapRunner(),
                       reference=reference(slug), kind="submit")
