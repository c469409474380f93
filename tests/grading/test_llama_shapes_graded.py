"""Grading the llama-v1 built-ins end to end with submissions written independently of the template
(tests/engine/fixtures/llama_shapes/): a correct shape has every bug of the scenario fixed, and a catalog
row written by hand into another shape is reported not fixed by the scenario that plants its kind.

The built-ins are found through builtin_packages(), so a new llama-v1 scenario is graded here too. Each
scenario's reference is computed once (ensure_reference keeps it). Every pair of scenario and shape is 24
gradings, 15 minutes on two cores with the references to compute (all passed), so every shape is graded
against one scenario (ANCHOR, whose bugs are all in the incremental path, where the shapes differ most)
and every other scenario against one shape (ANCHOR_SHAPE, llama2.c's model.py). The llama-v1 built-ins share
the solution's data.py and train.py, so those gradings give the harness one job, run once (memo_runner)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.builtin import builtin_packages
from app.engine.package import ScenarioPackage
from app.grading.grader import grade_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "llama_v1"))  # the llama shapes
from llama_shapes import CORRECT_SHAPES, OTHER_SHAPE_BUGS  # noqa: E402

LLAMA_BUILTINS = sorted(p.slug for p in builtin_packages() if p.interface == "llama-v1")
SHAPES = {s.name: s for s in CORRECT_SHAPES}
ANCHOR, ANCHOR_SHAPE = "cache-drift", "llama2c"
PAIRS = [(ANCHOR, shape) for shape in sorted(SHAPES)] + [
    (slug, ANCHOR_SHAPE) for slug in LLAMA_BUILTINS if slug != ANCHOR]

# a row written into another shape -> the kind of bug it is (a built-in that plants that kind grades it)
ROW_KINDS = {
    "46-rmsnorm-subtracts-mean@heads_loop": "rmsnorm-wrong",
    "44-rope-pairs-mixed@neox_halfsplit": "rope-pairs-mixed",
    "51-top-p-drops-crossing-token@meta_complex": "top-p-off-by-one",
    "39-sdpa-is-causal-in-decode@neox_halfsplit": "sdpa-causal-in-decode",
}
ROWS = {b.name: b for b in OTHER_SHAPE_BUGS if b.name in ROW_KINDS}


def _package(slug: str) -> ScenarioPackage:
    return next(p for p in builtin_packages() if p.slug == slug)


def _planting(kind: str) -> tuple[ScenarioPackage, str]:
    """The first llama-v1 built-in (by slug) that plants a bug of this kind, and that bug's id."""
    for slug in LLAMA_BUILTINS:
        package = _package(slug)
        for bug in package.bugs:
            if bug.kind == kind:
                return package, bug.id
    raise AssertionError(f"no llama-v1 built-in plants a {kind} bug")


def test_the_llama_builtins_and_shapes_are_there():
    assert {"norm-and-gate", "nucleus-and-schedule", "llama-deep-end", ANCHOR} <= set(LLAMA_BUILTINS)
    assert set(SHAPES) == {"meta_complex", "neox_halfsplit", "heads_loop", "llama2c", "gptfast_complex"}
    assert set(ROWS) == set(ROW_KINDS)


@pytest.mark.parametrize(("slug", "shape"), PAIRS, ids=[f"{slug}-{shape}" for slug, shape in PAIRS])
def test_correct_shape_has_every_bug_fixed(slug, shape, memo_runner):
    package = _package(slug)
    report = grade_files(package=package, files=SHAPES[shape].files(), runner=memo_runner)
    assert report.error is None
    assert report.status == "passed", [(t.id, t.status, t.message) for t in report.tests
                                       if t.status not in ("passed", "not_applicable")]
    assert [(b.id, b.fixed, b.verifiable) for b in report.bugs] == [(b.id, True, True) for b in package.bugs]
    assert report.score == 1.0


@pytest.mark.parametrize("row", sorted(ROW_KINDS))
def test_row_written_into_another_shape_is_reported_not_fixed(row, runner):
    package, bug_id = _planting(ROW_KINDS[row])
    report = grade_files(package=package, files=ROWS[row].files(), runner=runner)
    assert report.error is None
    bugs = {b.id: b for b in report.bugs}
    assert (bugs[bug_id].fixed, bugs[bug_id].verifiable) == (False, True)
    assert report.status == "failed"
    assert report.score < 1.0
