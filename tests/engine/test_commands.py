"""Printing the mutation matrix and resolving command targets (no harness runs)."""

from __future__ import annotations

import io

import pytest

from app.engine.builtin import resolve_package
from app.engine.errors import PackageError
from app.engine.validator import BugDetection, ValidationReport
from app.grading.commands import _print_matrix, grade_command


def test_matrix_table_marks_detecting_tests_and_problems():
    report = ValidationReport(slug="demo", version="abc", content_hash="abc" * 10, valid=False,
                              problems=["bug b: no hidden test detects it"],
                              tests=["data.targets-next-token", "attention.causal-perturb", "general.finite-outputs"],
                              bugs=[BugDetection(id="a", kind="label-no-shift", component="loss", title="A",
                                                 detected_by=["data.targets-next-token"]),
                                    BugDetection(id="b", kind="mask-missing", component="attention", title="B",
                                                 detected_by=[])])
    out = io.StringIO()
    _print_matrix(report, out)
    text = out.getvalue()
    assert "demo (version abc): INVALID" in text
    assert "1 = data.targets-next-token" in text and "general.finite-outputs" not in text
    assert "PROBLEM: bug b: no hidden test detects it" in text
    row_a = next(line for line in text.splitlines() if line.strip().startswith("a "))
    assert row_a.rstrip().endswith("x")


def test_resolve_package_accepts_slug_and_rejects_unknown():
    assert resolve_package("leaky-mask").slug == "leaky-mask"
    with pytest.raises(PackageError, match="no such scenario"):
        resolve_package("no-such-scenario")


def test_grade_command_reports_unknown_scenario_and_missing_directory(tmp_path, capsys):
    assert grade_command("no-such-scenario", str(tmp_path), as_json=True) == 2
    assert "no such scenario" in capsys.readouterr().err
    assert grade_command("leaky-mask", str(tmp_path / "missing"), as_json=True) == 2
    assert "not a directory" in capsys.readouterr().err
