"""The mutation-matrix validator on the flagship scenario and on broken packages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.engine.builtin import find_builtin
from app.engine.package import load_package
from app.engine.validator import ValidationReport, validate_package
from app.grading.commands import validate_command
from app.grading.reference import ensure_reference, load_cached
from app.sandbox.subprocess_runner import SubprocessRunner

LEAKY = Path(__file__).resolve().parents[2] / "app" / "scenarios_builtin" / "leaky-mask"


# Every test here validates a package: the solution, the starter and each mutant train.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def leaky_report():
    """The flagship's validation, through the run's reference cache (grading tests use the same entry)."""
    return ensure_reference(package=find_builtin("leaky-mask"), runner=SubprocessRunner())


def test_leaky_mask_is_valid_with_each_bug_detected(leaky_report):
    assert leaky_report.valid, leaky_report.problems
    detected = {b.id: b.detected_by for b in leaky_report.bugs}
    assert "data.targets-next-token" in detected["labels-not-shifted"]
    assert "positional.receives-gradient" in detected["positions-frozen-at-zero"]
    assert "attention.causal-perturb" in detected["mask-sees-next-token"]
    assert "equivalence.last-position" in detected["scale-uses-head-count"]
    assert set(leaky_report.starter_failing) >= {t for tests in detected.values() for t in tests}


def test_validation_report_is_cached_and_round_trips(leaky_report):
    cached = load_cached(find_builtin("leaky-mask"))
    assert cached is not None and cached.summary() == leaky_report.summary()
    data = leaky_report.to_dict()
    assert ValidationReport.from_dict(json.loads(json.dumps(data))).to_dict() == data


def _package_with(tmp_path: Path, bugs_toml: str) -> Path:
    target = tmp_path / "pkg"
    shutil.copytree(LEAKY, target, ignore=shutil.ignore_patterns("__pycache__"))
    toml = target / "scenario.toml"
    head = toml.read_text().split("[[bugs]]")[0]
    toml.write_text(head + bugs_toml)
    return target


COMMENT_ONLY_BUG = '''[[bugs]]
id = "cosmetic"
kind = "typo-wrong-variable"
component = "general"
title = "Only a comment changes"
hints = ["a", "b", "c"]
[bugs.explanation]
expected = "x"
detect = "y"
fix = "z"
[[bugs.edits]]
file = "model.py"
old = "  # weight tying"
new = "  # tied weights"
'''


def test_validator_rejects_undetectable_bug(tmp_path):
    pkg = load_package(_package_with(tmp_path, COMMENT_ONLY_BUG))
    report = validate_package(package=pkg, runner=SubprocessRunner())
    assert not report.valid
    assert any("cosmetic: no hidden test detects it" in p for p in report.problems)
    assert any("full starter passes every test" in p for p in report.problems)
    assert report.bugs[0].detected_by == []


def test_validate_command_rejects_edit_that_does_not_apply(tmp_path, capsys):
    path = _package_with(tmp_path, COMMENT_ONLY_BUG.replace("  # weight tying", "  # no such comment"))
    assert validate_command(str(path), as_json=True) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary[0]["valid"] is False
    assert "bugs[0].edits[0].old: the text does not occur in model.py" in summary[0]["problems"][0]
