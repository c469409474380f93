"""Grading leaky-mask end to end with submissions written independently of the starter."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from app.engine.builtin import find_builtin
from app.engine.validator import BugDetection
from app.grading.grader import grade_files
from app.grading.reference import ensure_reference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))  # the shapes of tests/engine
from variants import shape_files  # noqa: E402


@pytest.fixture(scope="module")
def leaky():
    return find_builtin("leaky-mask")


@pytest.mark.parametrize("shape", ["heads_loop", "rotary_sdpa", "alibi_fused"])
def test_correct_rewrite_has_every_leaky_mask_bug_fixed(shape, leaky, runner):
    report = grade_files(package=leaky, files=shape_files(shape), runner=runner)
    assert report.error is None
    assert report.status == "passed", [t for t in report.tests if t.status not in ("passed", "not_applicable")]
    assert [(b.id, b.fixed, b.verifiable) for b in report.bugs] == [
        (b.id, True, True) for b in leaky.bugs]
    assert report.score == 1.0


def test_nanogpt_model_fails_on_the_interface_not_on_symptoms(leaky, runner):
    report = grade_files(package=leaky, files=shape_files("nanogpt"), runner=runner)
    by_id = {t.id: t for t in report.tests}
    failed = {t.id for t in report.tests if t.status == "failed"}
    assert report.status == "failed"
    assert failed == {"general.interface", "general.forward-shapes"}
    assert by_id["attention.causal-perturb"].status == "not_run"
    assert "(B, T, vocab_size)" in (by_id["attention.causal-perturb"].reason or "")
    assert by_id["positional.depends-on-position"].status == "not_run"
    assert all(b.verifiable for b in report.bugs)  # other tests still tell each fix


def test_crashed_training_makes_training_only_bugs_unverifiable(leaky, runner):
    """A bug that only the trained model shows is not verifiable, with the crash as the reason, when the
    candidate's training run crashes (here: a strided get_batch with a model that calls targets.view)."""
    reference = copy.deepcopy(ensure_reference(package=leaky, runner=runner))
    reference.bugs.append(BugDetection(id="learns-slowly", kind="lr-schedule-wrong", component="training",
                                       title="Learns slowly", detected_by=["training.learns", "training.not-too-good"]))
    files = shape_files("heads_loop")
    files["data.py"] = files["data.py"].replace("windows[:, 1:].contiguous()", "windows[:, 1:]")
    report = grade_files(package=leaky, files=files, runner=runner, reference=reference)
    bugs = {b.id: b for b in report.bugs}
    assert (bugs["learns-slowly"].fixed, bugs["learns-slowly"].verifiable) == (False, False)
    assert (bugs["learns-slowly"].reason or "").startswith(
        "its tests were not run: the tiny training run stopped with RuntimeError: view size is not compatible")
    assert all(bugs[b.id].fixed and bugs[b.id].verifiable for b in leaky.bugs)
    assert report.status == "failed"
    assert {t.id for t in report.tests if t.status == "failed"} == {"training.runs"}
