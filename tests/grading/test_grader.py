"""Grading the flagship scenario end to end (harness in a subprocess)."""

from __future__ import annotations

import json

import pytest

from app.engine.builtin import find_builtin
from app.engine.validator import ValidationReport
from app.grading.commands import grade_command
from app.grading.grader import GradingInputError, grade_files
from app.grading.reference import ensure_reference
from app.sandbox.progress import Progress


@pytest.fixture(scope="module")
def leaky():
    return find_builtin("leaky-mask")


def _write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return str(tmp_path)


def test_grade_command_on_starter_fails_with_all_four_bugs_unfixed(leaky, tmp_path, capsys,
                                                                    use_subprocess_runner):
    directory = _write(tmp_path, leaky.starter_files)
    assert grade_command("leaky-mask", directory, as_json=True) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "failed" and result["error"] is None
    assert [b["fixed"] for b in result["bugs"]] == [False] * 4
    assert result["score"] == 0.0 and result["regressions"] == []
    failing = {t["id"] for t in result["tests"] if not t["passed"]}
    assert {"data.targets-next-token", "positional.receives-gradient", "attention.causal-perturb",
            "equivalence.last-position"} <= failing
    training = result["training"]
    assert training["final_val_loss"] > training["baseline_final_val_loss"]


def test_grade_command_on_solution_passes_with_full_score(leaky, tmp_path, capsys, use_subprocess_runner):
    directory = _write(tmp_path, leaky.solution_files)
    assert grade_command("leaky-mask", directory, as_json=False) == 0
    out = capsys.readouterr().out
    assert "PASSED" in out and "score 1.00" in out and "NOT fixed" not in out


def test_fixing_one_bug_scores_a_quarter_and_reports_progress(leaky, runner):
    files = {"data.py": leaky.solution_files["data.py"]}  # model.py stays the starter's
    reported: list[Progress] = []
    report = grade_files(package=leaky, files=files, runner=runner, hints_used={"labels-not-shifted": 1},
                         on_progress=reported.append)
    seen = [p.to_json() for p in reported]
    stages = [p["stage"] for p in seen if p["stage"] != "reference"]  # only when the reference is not cached
    assert stages[:2] == ["sandbox", "importing"] and stages[-2:] == ["leak-probe", "checking"]
    probes = [p for p in seen if p["stage"] == "probe"]
    assert [p["k"] for p in probes] == list(range(1, probes[0]["n"] + 1))
    training = [p for p in seen if p["stage"] == "training"]
    assert training[0]["k"] == 0 and training[-1]["k"] == training[-1]["n"] == leaky.training["steps"]
    fixed = {b.id: b.fixed for b in report.bugs}
    assert fixed == {"labels-not-shifted": True, "positions-frozen-at-zero": False,
                     "mask-sees-next-token": False, "scale-uses-head-count": False}
    assert report.score == pytest.approx(0.25 * 0.85)
    assert report.status == "failed"


def test_syntax_error_is_an_error_status(leaky, runner):
    broken = leaky.solution_files["model.py"].replace("def forward(self, x):", "def forward(self, x)", 1)
    report = grade_files(package=leaky, files={"model.py": broken}, runner=runner)
    assert report.status == "error"
    assert report.error is not None and report.error.kind == "syntax" and "model.py:" in report.error.message
    assert report.error.location is not None and report.error.location[0] == "model.py"
    assert report.tests == [] and report.score == 0.0


def test_run_kind_reports_only_public_tests_with_a_stored_reference(leaky, runner):
    stored = json.loads(json.dumps(ensure_reference(package=leaky, runner=runner).to_dict()))
    report = grade_files(package=leaky, files={}, runner=runner, kind="run",
                         reference=ValidationReport.from_dict(stored))
    assert report.tests and all(t.public for t in report.tests)
    assert not any(t.id.startswith(("attention.", "equivalence.", "data.")) for t in report.tests)


def test_unknown_file_name_is_rejected(leaky, runner):
    with pytest.raises(GradingInputError, match="unknown file 'evil.py'"):
        grade_files(package=leaky, files={"evil.py": "print(1)"}, runner=runner)
