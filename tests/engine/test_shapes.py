"""Submissions in other shapes: correct ones pass every test, and every catalog bug written into
another shape by hand is still caught (the other-shapes matrix)."""

from __future__ import annotations

import copy
import json

import pytest
from bug_fixtures import probes_for
from shapes import CORRECT_SHAPES, OTHER_SHAPE_BUGS
from variants import shape_files

from app.engine.builtin import builtin_packages
from app.engine.gpt_v1.checks import run_checks
from app.engine.measurements import Measurements
from app.engine.shared.verdicts import FAILED, NOT_APPLICABLE, PASSED
from app.grading.reference import ensure_reference
from app.sandbox.bwrap_probe import bwrap_problem
from app.sandbox.bwrap_runner import BwrapRunner
from app.sandbox.subprocess_runner import SubprocessRunner

FILES = ("model.py", "data.py")
# Structure that another design may legitimately lack: the equivalence tier needs the starter's
# parameter names; probability rows need a softmax (scaled_dot_product_attention has none); the
# identity test is for pre-LN blocks.
MAY_NOT_APPLY = {"equivalence.logits", "equivalence.last-position", "attention.rows-sum-to-one",
                 "attention.rows-zero-on-future", "general.block-residual-identity"}


def _statuses(result: dict, reference: dict, files=FILES) -> dict[str, tuple[str, str]]:
    candidate, baseline = Measurements.from_json(result), Measurements.from_json(reference)
    return {v.id: (v.status, v.message) for v in run_checks(candidate, baseline, files=files)}


@pytest.mark.parametrize("shape", CORRECT_SHAPES, ids=[s.name for s in CORRECT_SHAPES])
def test_correct_shape_passes_every_test(shape, measure, reference):
    result = _measured_once(measure, shape.files())
    assert result["error"] is None
    statuses = _statuses(result, reference)
    wrong = {k: v for k, v in statuses.items() if v[0] != PASSED and not (v[0] == NOT_APPLICABLE
                                                                          and k in MAY_NOT_APPLY)}
    assert wrong == {}
    for test_id in ("attention.score-scale", "general.mlp-nonlinear", "general.final-norm",
                    "positional.depends-on-position"):
        assert statuses[test_id][0] == PASSED, (test_id, statuses[test_id])


@pytest.mark.parametrize("name", ["rotary_sdpa", "alibi_fused"])
def test_position_scheme_without_a_table_is_seen_by_behaviour(name, measure, reference):
    result = measure(shape_files(name), probes=["interface", "order_dependence", "attention_scale",
                                                "block_identity", "mlp_nonlinearity", "final_norm"])
    statuses = _statuses(result, reference)
    for test_id in ("positional.depends-on-position", "attention.score-scale", "general.block-residual-identity",
                    "general.mlp-nonlinear", "general.final-norm"):
        assert statuses[test_id][0] == PASSED, (test_id, statuses[test_id])


@pytest.mark.parametrize("bug", OTHER_SHAPE_BUGS, ids=[b.name for b in OTHER_SHAPE_BUGS])
def test_bug_written_into_another_shape_is_caught(bug, measure, reference):
    result = measure(bug.files(), probes=["interface", *probes_for(bug.detected_by)])
    assert result["error"] is None
    files = (*FILES, "train.py") if bug.with_train else FILES
    statuses = _statuses(result, reference, files)
    missed = {t: statuses[t] for t in bug.detected_by if statuses[t][0] != FAILED}
    assert missed == {}
    unmodified = _measured_once(measure, shape_files(bug.shape, bug.with_train),
                                probes=["interface", *probes_for(bug.detected_by)])
    spared = _statuses(unmodified, reference, files)
    assert all(spared[t][0] == PASSED for t in bug.detected_by), {t: spared[t] for t in bug.detected_by}


def test_other_shapes_cover_every_bug_kind_of_the_builtins():
    covered = {b.name.split("@")[0] for b in OTHER_SHAPE_BUGS}
    used = {bug.kind for pkg in builtin_packages() if pkg.interface == "gpt-v1" for bug in pkg.bugs}
    assert used - covered == set()


@pytest.mark.slow
@pytest.mark.parametrize("shape", CORRECT_SHAPES, ids=[s.name for s in CORRECT_SHAPES])
def test_correct_shape_passes_every_builtin_scenario(shape, measure):
    """Against each gpt-v1 built-in scenario's own reference, with that scenario's train.py when it has one
    (llama-v1's shapes are graded against its built-ins in tests/engine/llama_v1 and tests/grading)."""
    failed = {}
    by_train: dict[str | None, dict] = {}
    gpt_packages = [pkg for pkg in builtin_packages() if pkg.interface == "gpt-v1"]
    for pkg in gpt_packages:
        reference = _solution_reference(pkg)
        train = pkg.solution_files.get("train.py")
        if train not in by_train:
            by_train[train] = _with_train(measure, shape.files(), train)
        statuses = _statuses(by_train[train], reference, pkg.files)
        failed[pkg.slug] = {k: v for k, v in statuses.items() if v[0] not in (PASSED, NOT_APPLICABLE)}
    assert failed == {pkg.slug: {} for pkg in gpt_packages}


def _with_train(measure, files: dict[str, str], train: str | None) -> dict:
    """The shape's measurements with this train.py: the probes a train.py can change (those the harness
    runs only with one, the interface that binds it, the training run that steps with it) measured with
    it, every other probe (the model's and the data's, which never call it) shared with the shape's
    measurement without one."""
    alone = _measured_once(measure, files)
    if train is None:
        return alone
    from dojo_harness.runner import PROBES  # the harness's own list (measure put its bundle on sys.path)

    touched = ["interface", *(name for name, needs_train, _ in PROBES if needs_train), "training_run"]
    trained = measure({**files, "train.py": train}, probes=touched)
    assert trained["error"] is None, trained["error"]
    alone["probes"].update(trained["probes"])
    alone["has_train"] = trained["has_train"]
    return alone


_references: dict[str, dict] = {}


def _solution_reference(pkg) -> dict:
    """The scenario's own reference, the one its gradings use: the solution's measurements in the validation
    report of the run's reference cache (keyed by the package's content and the engine's fingerprint), so
    it is measured once per test run, here or by whichever test needs the scenario's matrix first
    (tests/scenarios_builtin validates every built-in in the sandbox)."""
    if pkg.slug not in _references:
        report = ensure_reference(package=pkg, runner=BwrapRunner() if bwrap_problem() is None else SubprocessRunner())
        assert report.reference is not None, report.problems
        _references[pkg.slug] = report.reference.to_json()
    return _references[pkg.slug]


_measured: dict[str, dict] = {}


def _measured_once(measure, files: dict[str, str], probes: list[str] | None = None) -> dict:
    """measure(files, probes), once per files and probes in this process: a correct shape without a train.py
    is measured with every probe by two tests (every test, every built-in), and the unmodified shape of
    bugs caught by the same probes is measured with the same probes."""
    key = json.dumps([files, probes], sort_keys=True)
    if key not in _measured:
        _measured[key] = measure(files, probes=probes)
    return copy.deepcopy(_measured[key])
