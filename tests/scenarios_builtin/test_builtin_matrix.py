"""The mutation matrix of each built-in scenario written here: valid, and each bug caught by its key test."""

from __future__ import annotations

import pytest

from app.engine.builtin import find_builtin
from app.engine.validator import ValidationReport
from app.grading.reference import ensure_reference
from app.sandbox.bwrap_runner import BwrapRunner

# Validated in the real sandbox, as `dojo scenarios validate` does.
pytestmark = [pytest.mark.slow, pytest.mark.bwrap]

# bug id -> the hidden test that must catch its single-bug mutant (the test a candidate's fix must pass)
KEY_TESTS: dict[str, dict[str, str]] = {
    "warm-up": {
        "pos-not-added": "positional.depends-on-position",
        "softmax-before-loss": "loss.matches-cross-entropy",
    },
    "attention-zoo": {
        "softmax-over-queries": "attention.causal-perturb",
        "scale-by-width": "equivalence.logits",
        "heads-merged-without-transpose": "attention.random-token-leak",
        "mask-after-softmax": "attention.causal-perturb",
    },
    "label-trouble": {
        "labels-shifted-twice": "loss.matches-cross-entropy",
        "logits-scrambled-in-reshape": "loss.matches-cross-entropy",
        "padding-counted": "loss.ignores-minus-one",
        "loss-summed-per-sequence": "loss.init-near-ln-v",
    },
    "block-party": {
        "residual-from-normalised": "equivalence.logits",
        "mlp-without-activation": "equivalence.logits",
        "dropout-always-on": "general.eval-deterministic",
        "layernorm-variance-over-batch": "attention.no-batch-mixing",
    },
    "training-wheels": {
        "gradients-accumulate": "training.gradients-reset",
        "clip-after-step": "training.clip-before-step",
        "evaluate-leaves-eval-mode": "training.evaluate-eval-mode",
        "last-window-never-sampled": "data.windows-cover-data",
    },
    "sampler-says": {
        "context-never-cropped": "generation.crops-context",
        "generator-ignored": "generation.seeded-reproducible",
        "temperature-multiplies": "generation.temperature",
        "topk-fills-zero": "generation.top-k",
    },
    "deep-end": {
        "mask-fill-finite": "attention.causal-extreme-scores",
        "positions-without-gradient": "positional.receives-gradient",
        "final-layernorm-skipped": "equivalence.logits",
        "micro-batches-not-weighted": "training.step-gradients",
        "validation-in-train-mode": "training.evaluate-eval-mode",
        "next-token-by-sequence-length": "generation.crops-context",
    },
    # llama-v1
    "norm-and-gate": {
        "rmsnorm-subtracts-mean": "general.rmsnorm",
        "rmsnorm-no-eps": "general.rmsnorm-eps",
        "swiglu-gate-dropped": "general.parameters-receive-gradient",
    },
    "rotary-road": {
        "values-rotated": "positional.values-carry-no-position",
        "rotate-half-on-pairs": "positional.rotation-keeps-norm",
        "frequency-exponent": "positional.rotary-frequency-set",
    },
    "grouped-queries": {
        "cache-holds-repeated-keys": "generation.cache-kv-heads",
        "repeat-along-time": "attention.causal-perturb",
        "scale-by-model-width": "attention.score-scale",
    },
    "nucleus-and-schedule": {
        "nucleus-drops-crossing-token": "generation.top-p",
        "micro-batch-means-averaged": "training.accumulation-token-mean",
        "cosine-stops-short": "training.lr-schedule",
    },
    "cache-drift": {
        "rope-from-zero": "positional.rotary-in-decode",
        "causal-flag-with-cache": "generation.decode-weighs-every-key",
        "cache-returns-before-append": "generation.decode-own-key",
    },
    "llama-deep-end": {
        "rmsnorm-gain-unused": "general.parameters-receive-gradient",
        "rmsnorm-over-time": "attention.causal-perturb",
        "causal-flag-for-chunks": "generation.chunk-mask",
        "warmup-starts-at-zero": "training.lr-schedule",
    },
    # pipeline-v1
    "padded-truths": {
        "pad-labels-kept": "loss.padding-ignored",
        "same-order-every-epoch": "data.batches-reshuffle",
        "last-batch-dropped": "data.batches-cover-epoch",
    },
    "eval-hygiene": {
        "eval-leaves-eval-mode": "evaluation.restores-train-mode",
        "eval-keeps-graphs": "evaluation.no-grad",
        "validation-mean-of-batch-means": "evaluation.token-mean",
        "cosine-over-whole-run": "training.lr-cosine",
    },
    "resume-faithfully": {
        "adam-moments-dropped": "checkpoint.optimizer-state",
        "resume-skips-a-step": "checkpoint.resume-step",
        "dropout-rng-not-saved": "checkpoint.rng-state",
    },
    "pipeline-composite": {
        "eos-masked-with-padding": "loss.eos-is-a-target",
        "train-from-unshuffled-list": "data.split-disjoint",
        "resume-one-step-late": "checkpoint.resume-step",
        "zero-grad-per-micro-batch": "training.accumulation-every-micro-batch",
    },
    "accumulate-honestly": {
        "micro-batch-means-averaged": "training.accumulation-token-mean",
        "clip-after-step": "training.clip-total-norm",
        "decay-on-every-parameter": "optimizer.decay-by-dimension",
    },
    "amp-on-cpu": {
        "clip-before-unscale": "training.scaler-clips-true-gradients",
        "step-bypasses-scaler": "training.scaler-skips-inf",
        "micro-batches-summed": "training.accumulation-equal-split",
    },
    "schedule-and-decay": {
        "adam-with-l2": "optimizer.decoupled-decay",
        "norm-gains-left-out": "optimizer.every-parameter",
        "warmup-from-zero": "training.lr-warmup",
        "loss-shifts-labels-again": "training.accumulation-token-mean",
    },
}
# Every built-in gives each bug a test that no other bug's mutant fails, so scoring can credit each fix
# on its own. In cache-drift, rotary-road and llama-deep-end those are the probes that look inside a
# call through the cache (which keys a decoded query is given and weighs, how it is rotated) and at
# the first attention's rotation (which frequencies, whether values carry positions).
SEPARABLE = (*sorted(KEY_TESTS), "leaky-mask")

def _report(slug: str) -> ValidationReport:
    """The scenario's validation, through the run's reference cache: each built-in's matrix is computed once
    per test run, here or by a grading test that needed it first (same package and engine, same report)."""
    pkg = find_builtin(slug)
    assert pkg is not None, f"built-in {slug} is missing"
    return ensure_reference(package=pkg, runner=BwrapRunner())


@pytest.mark.parametrize("slug", sorted(KEY_TESTS))
def test_builtin_validates_with_each_bug_caught_by_its_key_test(slug: str) -> None:
    report = _report(slug)
    assert report.valid, report.problems
    detected = {b.id: set(b.detected_by) for b in report.bugs}
    assert set(detected) == set(KEY_TESTS[slug])
    missed = {bug: test for bug, test in KEY_TESTS[slug].items() if test not in detected[bug]}
    assert missed == {}, detected


@pytest.mark.parametrize("slug", SEPARABLE)
def test_separable_builtin_gives_every_bug_a_test_of_its_own(slug: str) -> None:
    detected = {b.id: set(b.detected_by) for b in _report(slug).bugs}
    shared = {
        bug: tests for bug, tests in detected.items()
        if not tests - set().union(*(other for b, other in detected.items() if b != bug))
    }
    assert shared == {}
