"""Correct but different passes (CONTRACTS.md 1c, BUG_CATALOG.md section I's not-bugs): every style the
contract lists and every not-bug of section I, each a fixture in tests/engine/fixtures/pipeline_styles/,
passes every pipeline-v1 test; and one submission written in those styles is graded at full score, in the
sandbox, against every pipeline-v1 built-in."""

from __future__ import annotations

import pytest
from pipeline_styles import FILES, replaces, style_files, style_names, style_text, template_files

from app.engine.builtin import builtin_packages
from app.engine.measurements import Measurements
from app.engine.pipeline_v1.checks import SPECS, run_checks
from app.engine.shared.verdicts import PASSED
from app.grading.grader import grade_files

STYLES = style_names()

# Each correct style of contract 1c and each not-bug of section I, and the fixtures written in it (the
# template, padded-truths' solution, is the other half of each pair).
COVERED: dict[str, tuple[str, ...]] = {
    "the loss weighted by each micro-batch's token share": ("train_token_share",),
    "an explicit mask instead of ignore_index": ("train_explicit_mask",),
    "zero_grad after step": ("train_zero_grad_after_step", "train_model_zero_grad_after_step"),
    "zero_grad without set_to_none": ("train_zero_grad_after_step", "train_model_zero_grad"),
    "zero_grad on the model": ("train_model_zero_grad", "train_model_zero_grad_after_step"),
    "decay groups by module type": ("train_decay_by_module",),
    "torch.inference_mode": ("train_inference_mode",),
    "evaluate ending in model.train()": ("train_eval_ends_in_train",),
    "several checkpoint files under a folder": ("train_checkpoint_folder",),
    "a shuffle through random.Random(seed + epoch)": ("data_random_shuffle",),
    "a shuffle through a sampler with a seeded generator": ("data_sampler_generator",),
    "the undivided loss logged for display": ("train_undivided_loss_logged", "train_all_styles"),
}


# The tests the tiny training run decides (the grader's loop over the candidate's pieces on the scenario's
# model): measured apart, as a `slow` test per style, since a run is most of a measurement's time.
RUN_TESTS = {"training.runs", "training.learns"}


def verdicts(result: dict, reference: dict) -> dict[str, tuple[str, str]]:
    found = run_checks(Measurements.from_json(result), Measurements.from_json(reference), files=FILES)
    return {v.id: (v.status, v.message) for v in found}


def not_passed(found: dict[str, tuple[str, str]], tests: set[str]) -> dict[str, tuple[str, str]]:
    return {k: v for k, v in found.items() if k in tests and v[0] != PASSED}


def test_every_listed_style_has_a_fixture_that_differs_from_the_template() -> None:
    assert {s for styles in COVERED.values() for s in styles} <= set(STYLES)
    template = template_files()
    for style in STYLES:
        assert replaces(style) in ("data.py", "train.py"), style
        assert style_text(style) != template[replaces(style)], style


def test_run_tests_are_the_interfaces_run_tests() -> None:
    assert set(SPECS) >= RUN_TESTS and "training_run" in SPECS["training.learns"].needs


def test_template_passes_every_test(pipeline_reference: dict, pipeline_run_reference: dict) -> None:
    found = verdicts(pipeline_reference, pipeline_reference)
    assert set(found) == set(SPECS)
    assert not_passed(found, set(SPECS) - RUN_TESTS) == {}
    assert not_passed(verdicts(pipeline_run_reference, pipeline_run_reference), RUN_TESTS) == {}


@pytest.mark.parametrize("style", STYLES)
def test_style_passes_every_test_of_its_functions(style: str, pipeline_measure, pipeline_probes,
                                                  pipeline_reference: dict) -> None:
    result = pipeline_measure(style_files(style), probes=pipeline_probes)
    assert result["error"] is None, result["error"]
    found = verdicts(result, pipeline_reference)
    assert set(found) == set(SPECS)
    assert not_passed(found, set(SPECS) - RUN_TESTS) == {}


@pytest.mark.slow
@pytest.mark.parametrize("style", STYLES)
def test_style_passes_the_training_run(style: str, pipeline_measure, pipeline_run_reference: dict) -> None:
    result = pipeline_measure(style_files(style), probes=["interface", "training_run"])
    assert result["error"] is None, result["error"]
    assert not_passed(verdicts(result, pipeline_run_reference), RUN_TESTS) == {}


PIPELINE_BUILTINS = [p for p in builtin_packages() if p.interface == "pipeline-v1"]


@pytest.mark.parametrize("package", PIPELINE_BUILTINS, ids=lambda p: p.slug)
def test_a_submission_in_other_styles_scores_full_marks_on_every_pipeline_builtin(package, runner) -> None:
    files = {"data.py": style_text("data_sampler_generator"), "train.py": style_text("train_all_styles")}
    result = grade_files(package=package, files=files, runner=runner)
    failing = {t.id: t.message for t in result.tests if not t.passed}
    assert failing == {} and result.status == "passed", (result.status, result.error, failing)
    assert result.score == 1.0 and all(b.fixed for b in result.bugs)
